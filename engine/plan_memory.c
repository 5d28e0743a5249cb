/* plan_memory.c - the planner's memory pass: large items built from the hub become row blocks
 * (the runner gives the hub's pages back as it builds them), and the GPU items are fitted into
 * the device budget: an item the budget does not hold is streamed to the device in chunks on
 * every call, or moved to the CPU where the calibration's rates say the CPU runs it sooner
 * than the link brings it */
#include <string.h>
#include "engine_internal.h"

#define MIB (1024.0 * 1024.0)
#define SLOT_MAX ((size_t)256 << 20) /* a chunk: large enough that copies run at full speed */

int rvs_item_run(const rvs_stream *S, const rvs_plan_item *it, int64_t *lo, int64_t *hi)
{
    if (it->row_hi > it->row_lo || it->parts[0] < 0) {
        *lo = it->row_hi > it->row_lo ? it->row_lo : 0;
        *hi = it->row_hi > it->row_lo ? it->row_hi : S->A.rows;
        return 1;
    }
    int64_t next = -1, first;
    for (int k = 0; k < it->nparts; k++) {
        const rvs_part *q = &S->partition.parts[it->parts[k]];
        if (q->entries != RVS_ENTRIES_ALL || !rvs_rows_consecutive(q->rows, q->nrows, &first))
            return 0;
        if (k == 0)
            *lo = next = first;
        if (q->nrows > 0 && first != next)
            return 0;
        next += q->nrows;
    }
    *hi = next;
    return *hi <= S->A.rows;
}

rvs_item_src rvs_item_source(const rvs_stream *S, const rvs_plan_item *it, rvs_vtype vt)
{
    int64_t lo, hi;
    if (it->nparts == 1 && it->row_hi <= it->row_lo) {
        const rvs_fmt *B = rvs_stream_block(S, it->parts[0]);
        if (B && B->id == it->format && B->vtype == vt)
            return RVS_SRC_BLOCK;
    }
    if (it->format == RVS_FMT_CSR && S->A.vtype == vt && S->A.colind && rvs_item_run(S, it, &lo, &hi))
        return RVS_SRC_BORROWED;
    return RVS_SRC_BUILT;
}

/* Bytes of F's arrays. */
static double fmt_bytes(const rvs_fmt *F)
{
    double b = 0;
    for (int i = 0; i < F->narrays; i++)
        b += (double)F->array[i].count * (double)rvs_dtype_size(F->array[i].dtype);
    return b;
}

/* Entries of matrix row r that part q holds. */
static int64_t held_entries(const rvs_stream *S, const rvs_part *q, int64_t r)
{
    const rvs_csr *A = &S->A;
    const int64_t bs = S->partition.block_size > 0 ? S->partition.block_size : 32;
    if (q->entries == RVS_ENTRIES_ALL)
        return A->rowptr[r + 1] - A->rowptr[r];
    int64_t n = 0;
    for (int64_t p = A->rowptr[r]; p < A->rowptr[r + 1]; p++)
        n += (rvs_csr_col(A, p) / bs == r / bs) == (q->entries == RVS_ENTRIES_DIAG);
    return n;
}

/* The device bytes of a block built in it's format from rows the model reads through L. */
static double model_arrays(const rvs_plan_item *it, const rvs_csr *L, rvs_vtype vt)
{
    const double vs = (double)rvs_vtype_size(vt);
    double b = rvs_model_bytes(it->format, L, vt);
    if (b < 0) /* no rule: COO's bytes, twice over */
        return 2.0 * (double)L->nnz * (8 + vs);
    return b - (double)(L->rows + L->cols) * vs;
}

/* it->dev_bytes: exact for the stream's block and CSR, else the byte model over the item's rows
 * (their lengths; DIA and HYB-DIA also read their columns). */
static rvs_status item_bytes(rvs_plan_item *it, const rvs_stream *S, rvs_vtype vt, rvs_error *err)
{
    const rvs_csr *A = &S->A;
    const double vs = (double)rvs_vtype_size(vt);
    const rvs_item_src src = rvs_item_source(S, it, vt);
    int64_t lo, hi;
    rvs_status st = RVS_OK;
    if (src == RVS_SRC_BLOCK) {
        it->dev_bytes = fmt_bytes(rvs_stream_block(S, it->parts[0]));
        return RVS_OK;
    }
    if (it->format == RVS_FMT_CSR) {
        it->dev_bytes = 8.0 * (double)(it->rows + 1) + (double)it->nnz * (4 + vs);
        return RVS_OK;
    }
    rvs_csr L = {0};
    int view = 0;
    const int columns = it->format == RVS_FMT_DIA || it->format == RVS_FMT_HYBDIA;
    if (rvs_item_run(S, it, &lo, &hi)) {
        if (lo == 0 && hi == A->rows) {
            it->dev_bytes = model_arrays(it, A, vt);
            return RVS_OK;
        }
        st = rvs_csr_view_rows(&L, A, lo, hi, err);
        view = 1;
    } else if (columns && it->nparts == 1) {
        st = rvs_partition_part_csr(&L, &view, &S->partition, it->parts[0], A, err);
    } else { /* row lengths alone, in the item's order */
        L.rows = it->rows;
        L.cols = A->cols;
        L.vtype = vt;
        if (!(L.rowptr = malloc(((size_t)it->rows + 1) * sizeof *L.rowptr)))
            return rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory for %lld row lengths", (long long)it->rows);
        int64_t i = 0;
        L.rowptr[0] = 0;
        for (int k = 0; k < it->nparts; k++) {
            const rvs_part *q = &S->partition.parts[it->parts[k]];
            for (int64_t j = 0; j < q->nrows; j++, i++)
                L.rowptr[i + 1] = L.rowptr[i] + held_entries(S, q, q->rows[j]);
        }
        L.nnz = L.rowptr[i];
        it->dev_bytes = columns ? 2.0 * (double)L.nnz * (8 + vs) : model_arrays(it, &L, vt);
        free(L.rowptr);
        return RVS_OK;
    }
    if (st == RVS_OK)
        it->dev_bytes = model_arrays(it, &L, vt);
    if (view)
        rvs_csr_view_free(&L);
    else
        rvs_csr_free(&L);
    return st;
}

/* Entries per row block of it (0: it stays whole): large items the runner builds from a run
 * of hub rows when the hub may be given back (a GPU block's host copy goes once uploaded);
 * otherwise the hub stays whole anyway and one block runs as one kernel. */
static int64_t block_nnz(const rvs_stream *S, const rvs_plan_item *it, const rvs_plan_options *o, rvs_vtype vt)
{
    int64_t lo, hi;
    if (o->row_block_nnz < 0 || !o->consume || rvs_item_source(S, it, vt) != RVS_SRC_BUILT ||
        !rvs_item_run(S, it, &lo, &hi))
        return 0;
    if (o->row_block_nnz > 0)
        return it->nnz > o->row_block_nnz ? o->row_block_nnz : 0;
    /* a GPU block is a kernel of its own, and a small one loses its tail wave, so only an item
     * of twice RVS_GPU_ROW_BLOCK_NNZ (16M) entries or more is split on the GPU
     * (bench/notes-memory.md) */
    const int64_t least = it->device == RVS_DEV_GPU ? RVS_GPU_ROW_BLOCK_NNZ : RVS_ROW_BLOCK_NNZ;
    if (it->nnz < 2 * least)
        return 0;
    /* such an item goes in blocks of half that: each block's host build stands beside the hub
     * until it is uploaded, and smaller blocks lower the peak at no cost to the kernels. A CPU
     * block costs a fork and join of every thread on each call: half as many there */
    const int64_t unit = it->device == RVS_DEV_GPU ? least / 2 : least;
    const int64_t most = it->device == RVS_DEV_CPU ? RVS_ROW_BLOCKS / 2 : RVS_ROW_BLOCKS;
    const int64_t nb = it->nnz / unit < most ? it->nnz / unit : most;
    return (it->nnz + nb - 1) / nb;
}

/* Items of P too large for one build become row blocks of about block_nnz entries each. */
static rvs_status split_rows(rvs_plan *P, const rvs_stream *S, const rvs_plan_options *o, rvs_error *err)
{
    const rvs_csr *A = &S->A;
    int64_t total = 0;
    for (int i = 0; i < P->nitems; i++) {
        const int64_t b = block_nnz(S, &P->items[i], o, P->vtype);
        const int64_t most = b ? 2 * ((P->items[i].nnz + b - 1) / b) + 2 : 1; /* two blocks hold > b */
        total += most < P->items[i].rows ? most : P->items[i].rows > 0 ? P->items[i].rows : 1;
    }
    if (total == P->nitems)
        return RVS_OK;
    rvs_plan_item *out = calloc((size_t)total, sizeof *out);
    if (!out)
        return rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
    int n = 0;
    rvs_status st = RVS_OK;
    for (int i = 0; i < P->nitems; i++) { /* out owns every parts array once, also after a failure */
        rvs_plan_item *it = &P->items[i];
        const int64_t b = st == RVS_OK ? block_nnz(S, it, o, P->vtype) : 0;
        int64_t lo, hi;
        if (!b || !rvs_item_run(S, it, &lo, &hi)) {
            out[n++] = *it;
            continue;
        }
        for (int64_t r = lo; r < hi;) {
            int64_t e = rvs_rows_within(A, r, hi, b);
            if (!o->row_block_nnz && A->rowptr[hi] - A->rowptr[e] < b / 4) /* no block of a few rows */
                e = hi;
            rvs_plan_item *q = &out[n];
            *q = *it;
            if (!(q->parts = malloc((size_t)it->nparts * sizeof *q->parts))) {
                st = rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
                break;
            }
            n++;
            memcpy(q->parts, it->parts, (size_t)it->nparts * sizeof *q->parts);
            q->row_lo = r;
            q->row_hi = e;
            q->rows = e - r;
            q->nnz = A->rowptr[e] - A->rowptr[r];
            q->trial_ms = -1;
            P->nsplit++;
            r = e;
        }
        free(it->parts);
    }
    free(P->items);
    P->items = out;
    P->nitems = n;
    return st;
}

/* Chunks of at most chunk entries (whole rows, one at least) over item it's rows. */
static int64_t count_chunks(const rvs_stream *S, const rvs_plan_item *it, int64_t chunk)
{
    int64_t lo, hi, n = 0;
    if (rvs_item_run(S, it, &lo, &hi)) {
        for (int64_t r = lo; r < hi; r = rvs_rows_within(&S->A, r, hi, chunk))
            n++;
        return n;
    }
    return (it->nnz + chunk - 1) / chunk; /* scattered rows: about that many */
}

/* Off-diagonal items add to the rows the diagonal part stores only on its device (part_phase). */
static void fix_phases(rvs_plan *P, const rvs_stream *S)
{
    rvs_device holder = RVS_DEV_CPU;
    int found = 0;
    for (int i = 0; i < P->nitems; i++)
        for (int k = 0; k < P->items[i].nparts; k++)
            if (P->items[i].parts[k] == 0 && S->has_partition && S->partition.parts[0].entries == RVS_ENTRIES_DIAG)
                holder = P->items[i].device, found = 1;
    for (int i = 0; found && i < P->nitems; i++) {
        rvs_plan_item *it = &P->items[i];
        if (it->parts[0] >= 0 && S->partition.parts[it->parts[0]].entries == RVS_ENTRIES_OFFDIAG)
            it->phase = it->device == holder;
    }
}

/* Stream it through two device slots of slot bytes: chunks of the entries that fill one. */
static void stream_item(rvs_plan *P, const rvs_stream *S, rvs_plan_item *it, double slot)
{
    const double per_entry = it->nnz > 0 && it->dev_bytes > 0 ? it->dev_bytes / (double)it->nnz : 1;
    it->streamed = 1;
    it->chunk_nnz = (int64_t)(slot / (1.25 * per_entry)); /* room for uneven padding */
    it->chunk_nnz = it->chunk_nnz < 1 ? 1 : it->chunk_nnz;
    it->nchunks = count_chunks(S, it, it->chunk_nnz);
    P->nstreamed++;
}

/* Fit the GPU items into the budget: resident while they fit (largest first), else streamed
 * or, where the model says the CPU is sooner, moved there. */
static rvs_status fit_device(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev,
                             const rvs_plan_options *o, rvs_error *err)
{
    const double vs = (double)rvs_vtype_size(P->vtype);
    double fixed = ((double)S->A.rows + (double)S->A.cols) * vs, total = 0;
    int gpu = 0;
    char *placed = calloc((size_t)P->nitems + 1, 1);
    if (!placed)
        return rvs_fail(err, RVS_ERR_NOMEM, "plan: out of memory");
    for (int i = 0; i < P->nitems; i++) {
        rvs_plan_item *it = &P->items[i];
        int64_t lo, hi;
        rvs_status st = it->device == RVS_DEV_GPU ? item_bytes(it, S, P->vtype, err) : RVS_OK;
        if (st != RVS_OK) {
            free(placed);
            return st;
        }
        if (it->device == RVS_DEV_GPU && !rvs_item_run(S, it, &lo, &hi))
            fixed += 8.0 * (double)it->rows; /* its row map */
        total += it->device == RVS_DEV_GPU ? it->dev_bytes : 0;
        gpu += it->device == RVS_DEV_GPU;
    }
    const double budget = o->gpu_mem_bytes      ? (double)o->gpu_mem_bytes
                          : dev->gpu_free_bytes ? 0.9 * (double)dev->gpu_free_bytes
                                                : 1e300;
    P->gpu_budget = !gpu ? 0 : budget < 1e300 ? (size_t)budget : SIZE_MAX;
    if (!gpu || fixed + total <= budget) {
        free(placed);
        return RVS_OK;
    }
    const double slot = budget - fixed >= 4.0 * (double)SLOT_MAX ? (double)SLOT_MAX : (budget - fixed) / 4;
    double left = budget - fixed - 2 * slot, resident = 0;
    for (;;) { /* the largest GPU item not yet placed */
        int at = -1;
        for (int i = 0; i < P->nitems; i++)
            if (P->items[i].device == RVS_DEV_GPU && !placed[i] &&
                (at < 0 || P->items[i].dev_bytes > P->items[at].dev_bytes))
                at = i;
        if (at < 0)
            break;
        rvs_plan_item *it = &P->items[at];
        placed[at] = 1;
        if (slot > 0 && it->dev_bytes <= left) {
            left -= it->dev_bytes;
            resident += it->dev_bytes;
            continue;
        }
        const double stream_ms = o->h2d_gbs > 0 ? it->dev_bytes / (o->h2d_gbs * 1e6) : -1;
        const double cpu_ms = o->cpu_gflops > 0 ? 2.0 * (double)it->nnz / (o->cpu_gflops * 1e6) : -1;
        if (slot < 65536 || (stream_ms >= 0 && cpu_ms >= 0 && cpu_ms < stream_ms)) {
            it->device = RVS_DEV_CPU;
            P->nmoved++;
        } else {
            stream_item(P, S, it, slot);
        }
    }
    free(placed);
    fix_phases(P, S);
    /* a resident item adding to rows that a streamed item stores would run first: stream it too */
    int streamed_store = 0;
    for (int i = 0; i < P->nitems; i++)
        streamed_store |= P->items[i].device == RVS_DEV_GPU && P->items[i].streamed && P->items[i].phase == 0;
    for (int i = 0; streamed_store && i < P->nitems; i++)
        if (P->items[i].device == RVS_DEV_GPU && P->items[i].phase == 1 && !P->items[i].streamed) {
            resident -= P->items[i].dev_bytes;
            stream_item(P, S, &P->items[i], slot);
        }
    if (slot < 65536)
        snprintf(P->note, sizeof P->note,
                 "x and y take %.1f MiB of the device budget, no room to stream: every "
                 "GPU item moved to the CPU",
                 fixed / MIB);
    else
        snprintf(P->note, sizeof P->note,
                 "the device budget holds x, y, two chunks of %.1f MiB and %.1f of the "
                 "blocks' %.1f MiB: %d item%s streamed, %d moved to the CPU%s",
                 slot / MIB, resident / MIB, total / MIB, P->nstreamed, P->nstreamed == 1 ? "" : "s", P->nmoved,
                 o->h2d_gbs > 0 && o->cpu_gflops > 0 ? " by the calibrated PCIe and CPU rates"
                                                     : " (no calibration: the CPU is not weighed)");
    return RVS_OK;
}

rvs_status rvs_plan_memory(rvs_plan *P, const rvs_stream *S, const rvs_engine_devices *dev,
                           const rvs_plan_options *o, rvs_error *err)
{
    rvs_status st = split_rows(P, S, o, err);
    if (st == RVS_OK && P->mode != RVS_MODE_CPU)
        st = fit_device(P, S, dev, o, err);
    return st;
}
