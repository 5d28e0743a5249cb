/* spmv_op.c - an SpMV operator for solvers: made once from a CSR matrix, applied many times.
 * It is a one-part plan of the engine. On the CPU the fitted model chooses the format at once
 * (nothing built to decide) and the first call runs in it; on the GPU the first call runs at
 * once in the rule's CSR and the model decides on a helper thread meanwhile. The candidates the
 * model could not tell from the running one are tried between calls (spmv_tune.c) within a
 * tenth of the calls' time, the faster taking over; the trial cache remembers the outcome for
 * the next operator of the same matrix. */
#include <string.h>
#include "rvs_mem.h"
#include "spmv_internal.h"

struct rvs_spmv_op {
    rvs_stream S; /* its hub is the caller's matrix, or a host copy of a device one */
    int own_hub;  /* the hub is ours (made from device arrays) */
    rvs_plan P;
    rvs_spmv_engine *E;
    int64_t calls;
};

void rvs_spmv_op_options_default(rvs_spmv_op_options *o)
{
    memset(o, 0, sizeof *o);
    o->device = -1;
    o->tune = 1;
    o->use_cache = 1;
}

/* op's plan and runner over op->S. */
static rvs_status make(rvs_spmv_op *op, const rvs_spmv_op_options *o, rvs_error *err)
{
    rvs_engine_devices dev;
    rvs_plan_options po;
    rvs_engine_devices_probe(&dev, o->threads, o->device != RVS_DEV_CPU);
    rvs_mem_trace("op: devices probed");
    const rvs_device want = o->device < 0 ? (dev.gpus > 0 ? RVS_DEV_GPU : RVS_DEV_CPU) : (rvs_device)o->device;
    if (want == RVS_DEV_GPU && dev.gpus == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable GPU: %s", dev.gpu_desc);
    rvs_plan_options_default(&po);
    po.mode = want == RVS_DEV_GPU ? RVS_MODE_GPU : RVS_MODE_CPU;
    po.vtype = o->vtype ? o->vtype : op->S.A.vtype;
    po.fallback = o->format;
    po.tune = o->tune_knobs;
    po.advisor.use_cache = o->use_cache;
    po.tune_between_calls = o->tune;
    /* on the GPU the first call runs at once in the rule's CSR, which needs no look at the matrix,
     * and the model decides on a helper thread while the calls run (the host mostly waits there);
     * tunables the caller sets over the choice need the choice now */
    po.advisor.late = o->tune && !o->format && !o->tune_knobs && want == RVS_DEV_GPU;
    po.consume = 0; /* the hub is the caller's */
    rvs_status st = rvs_plan_make(&op->P, &op->S, &dev, &po, err);
    rvs_mem_trace("op: planned");
    op->P.device_vectors = 1; /* host vectors made by the first host apply, if one comes */
    if (st == RVS_OK)
        st = rvs_spmv_engine_create(&op->E, &op->S, &op->P, err);
    return st;
}

rvs_status rvs_spmv_op_create(rvs_spmv_op **out, const rvs_csr *A, const rvs_spmv_op_options *o, rvs_error *err)
{
    rvs_spmv_op_options def;
    *out = NULL;
    if (!o) {
        rvs_spmv_op_options_default(&def);
        o = &def;
    }
    if (!A->colind)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "%lld columns need 64-bit column indices, which SpMV does not hold", (long long)A->cols);
    rvs_spmv_op *op = calloc(1, sizeof *op);
    if (!op)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    op->S.A = *A; /* borrowed: never freed here */
    rvs_status st = make(op, o, err);
    if (st != RVS_OK) {
        rvs_spmv_op_free(op);
        return st;
    }
    *out = op;
    return RVS_OK;
}

rvs_status rvs_spmv_op_create_device(rvs_spmv_op **out, int64_t rows, int64_t cols, int64_t nnz,
                                     const int64_t *d_rowptr, const int32_t *d_colind, const void *d_values,
                                     rvs_vtype vt, const rvs_spmv_op_options *o, rvs_error *err)
{
    rvs_csr A;
    *out = NULL;
    rvs_status st = rvs_csr_alloc(&A, rows, cols, nnz, vt, err);
    /* the engine plans and builds from a host copy: one transfer of the matrix */
    if (st == RVS_OK)
        st = rvs_gpu_memcpy_d2h(A.rowptr, d_rowptr, (size_t)(rows + 1) * sizeof *A.rowptr, err);
    if (st == RVS_OK && nnz > 0)
        st = rvs_gpu_memcpy_d2h(A.colind, d_colind, (size_t)nnz * sizeof *A.colind, err);
    if (st == RVS_OK && nnz > 0)
        st = rvs_gpu_memcpy_d2h(A.values, d_values, (size_t)nnz * rvs_vtype_size(vt), err);
    if (st == RVS_OK)
        st = rvs_csr_validate(&A, err);
    if (st == RVS_OK)
        st = rvs_spmv_op_create(out, &A, o, err);
    if (st != RVS_OK) {
        rvs_csr_free(&A);
        return st;
    }
    (*out)->own_hub = 1;
    return RVS_OK;
}

rvs_status rvs_spmv_op_apply(rvs_spmv_op *op, const void *x, void *y, rvs_error *err)
{
    rvs_spmv_times t;
    const size_t vs = rvs_vtype_size(op->P.vtype);
    rvs_status st = rvs_spmv_engine_host_ready(op->E, err);
    if (st != RVS_OK)
        return st;
    memcpy(rvs_spmv_engine_x(op->E), x, (size_t)op->S.A.cols * vs);
    st = rvs_spmv_engine_call(op->E, 0, &t, err);
    if (st == RVS_OK) {
        memcpy(y, rvs_spmv_engine_y(op->E), (size_t)op->S.A.rows * vs);
        op->calls++;
    }
    return st;
}

rvs_status rvs_spmv_op_apply_device(rvs_spmv_op *op, const void *dx, void *dy, rvs_error *err)
{
    rvs_spmv_times t;
    rvs_status st = rvs_spmv_engine_call_device(op->E, dx, dy, &t, err);
    if (st == RVS_OK)
        op->calls++;
    return st;
}

void rvs_spmv_op_info(const rvs_spmv_op *op, rvs_spmv_op_stats *s)
{
    const rvs_plan_item *it = &op->P.items[0];
    memset(s, 0, sizeof *s);
    s->device = it->device;
    s->vtype = op->P.vtype;
    s->format = it->format;
    s->knobs = it->knobs;
    s->how = it->how;
    s->pred_ms = it->pred_ms;
    s->decide_ms = op->P.decide_ms;
    rvs_spmv_engine_tuning(op->E, &s->switches, &s->tune_ms);
    s->calls = op->calls;
    s->items = op->P.nitems;
}

const rvs_plan *rvs_spmv_op_plan(const rvs_spmv_op *op)
{
    return &op->P;
}

void rvs_spmv_op_free(rvs_spmv_op *op)
{
    if (!op)
        return;
    rvs_spmv_engine_free(op->E);
    rvs_plan_free(&op->P);
    if (op->own_hub)
        rvs_csr_free(&op->S.A);
    free(op);
}
