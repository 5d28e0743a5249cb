/* format.c - the table of formats and the helpers every format builder shares */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "fmt_gather.h"

extern const rvs_format_ops rvs_format_csr, rvs_format_coo, rvs_format_ell, rvs_format_ellr, rvs_format_pellr,
    rvs_format_biell, rvs_format_jad, rvs_format_hyb, rvs_format_hybdia, rvs_format_dia, rvs_format_hcc;

static const rvs_format_ops *const formats[] = {
    &rvs_format_csr, &rvs_format_coo, &rvs_format_ell,    &rvs_format_ellr, &rvs_format_pellr, &rvs_format_biell,
    &rvs_format_jad, &rvs_format_hyb, &rvs_format_hybdia, &rvs_format_dia,  &rvs_format_hcc,
};
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

/* Bytes per element of an array type (0 if unknown). */
size_t rvs_dtype_size(rvs_dtype t)
{
    switch (t) {
    case RVS_DT_I32:
    case RVS_DT_F32:
    case RVS_DT_U32: return 4;
    case RVS_DT_I64:
    case RVS_DT_F64:
    case RVS_DT_C64: return 8;
    case RVS_DT_U8: return 1;
    case RVS_DT_U16: return 2;
    case RVS_DT_C128: return 16;
    }
    return 0;
}

/* Element type of values of type vt. */
rvs_dtype rvs_value_dtype(rvs_vtype vt)
{
    switch (vt) {
    case RVS_F32: return RVS_DT_F32;
    case RVS_C64: return RVS_DT_C64;
    case RVS_C128: return RVS_DT_C128;
    default: return RVS_DT_F64;
    }
}

/* Defaults for every build option. */
void rvs_fmt_options_default(rvs_fmt_options *o)
{
    memset(o, 0, sizeof *o);
    o->hyb_k = RVS_HYB_K_AUTO;
}

const char *rvs_fmt_gpu_coded(rvs_format_id id, int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param)
{
    if (id == RVS_FMT_CSR)
        return rvs_csr_gpu_codes(rows, nnz, vt, param) ? "values" : NULL;
    if ((id == RVS_FMT_DIA && param[2] == 0) || (id == RVS_FMT_HYBDIA && param[3] == 0))
        return (vt == RVS_F64 || vt == RVS_F32) && rows > 0 && param[0] > 0 ? "dia_val" : NULL;
    return NULL;
}

/* Operations of format id, or NULL. */
const rvs_format_ops *rvs_format_lookup(rvs_format_id id)
{
    for (int i = 0; i < NFORMATS; i++)
        if (formats[i]->id == id)
            return formats[i];
    return NULL;
}

/* Operations of the format called name (case-insensitive), or NULL. */
const rvs_format_ops *rvs_format_by_name(const char *name)
{
    for (int i = 0; i < NFORMATS; i++)
        if (strcasecmp(formats[i]->name, name) == 0)
            return formats[i];
    return NULL;
}

/* "csr,coo,ell,..." */
const char *rvs_format_names(void)
{
    static char buf[256];
    if (!buf[0])
        for (int i = 0; i < NFORMATS; i++) {
            if (i)
                strcat(buf, ",");
            strcat(buf, formats[i]->name);
        }
    return buf;
}

/* Append a zeroed, 64-byte aligned array to F. */
/* The byte rvs_fmt_add_array_unset fills with (tests: a slot a builder forgets shows), -1: none. */
static int unset_poison = -1;

void rvs_fmt_poison_unset(int byte)
{
    unset_poison = byte;
}

/* rvs_fmt_add_array and rvs_fmt_add_array_unset: zeroed or not. */
static rvs_status add_array(rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, void **data, int zero,
                            rvs_error *err)
{
    size_t es = rvs_dtype_size(dt);
    if (F->narrays >= RVS_FMT_MAX_ARRAYS)
        return rvs_fail(err, RVS_ERR_INTERNAL, "too many arrays in one format");
    if (count < 0 || es == 0 || (uint64_t)count > (SIZE_MAX - 64) / es)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "array '%s' of %lld elements is too large", name, (long long)count);
    size_t bytes = ((size_t)count * es + 63) & ~(size_t)63;
    /* A padded format of a skewed matrix can ask for more than the machine has; refuse it
     * here rather than let the zero-fill below run the process out of memory. */
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (phys > 0 && (double)bytes > 0.5 * phys)
        return rvs_fail(err, RVS_ERR_OVERFLOW,
                        "array '%s' would need %.1f GB, more than half of this machine's %.1f GB", name,
                        (double)bytes / 1e9, phys / 1e9);
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for array '%s' (%lld elements)", name, (long long)count);
    if (zero || unset_poison >= 0)
        memset(p, zero ? 0 : unset_poison, bytes ? bytes : 64);
    rvs_array *a = &F->array[F->narrays++];
    memset(a->name, 0, sizeof a->name);
    strncpy(a->name, name, sizeof a->name - 1);
    a->dtype = dt;
    a->count = count;
    a->data = p;
    if (data)
        *data = p;
    return RVS_OK;
}

rvs_status rvs_fmt_add_array(rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, void **data, rvs_error *err)
{
    return add_array(F, name, dt, count, data, 1, err);
}

rvs_status rvs_fmt_add_array_unset(rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, void **data,
                                   rvs_error *err)
{
    return add_array(F, name, dt, count, data, 0, err);
}

/* Append an array that points at someone else's memory (rvs_fmt_free leaves it). */
rvs_status rvs_fmt_add_borrowed(rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, void *data,
                                rvs_error *err)
{
    if (F->narrays >= RVS_FMT_MAX_ARRAYS)
        return rvs_fail(err, RVS_ERR_INTERNAL, "too many arrays in one format");
    rvs_array *a = &F->array[F->narrays];
    memset(a->name, 0, sizeof a->name);
    strncpy(a->name, name, sizeof a->name - 1);
    a->dtype = dt;
    a->count = count;
    a->data = data;
    F->borrowed |= 1u << F->narrays;
    F->narrays++;
    return RVS_OK;
}

/* Array of F called name, or NULL. */
const rvs_array *rvs_fmt_array(const rvs_fmt *F, const char *name)
{
    for (int i = 0; i < F->narrays; i++)
        if (strncmp(F->array[i].name, name, sizeof F->array[i].name) == 0)
            return &F->array[i];
    return NULL;
}

/* The array called name, checked for type and count. */
rvs_status rvs_fmt_require(const rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, const rvs_array **out,
                           rvs_error *err)
{
    const rvs_array *a = rvs_fmt_array(F, name);
    if (!a)
        return rvs_fail(err, RVS_ERR_FORMAT, "format block lacks array '%s'", name);
    if (a->dtype != dt)
        return rvs_fail(err, RVS_ERR_FORMAT, "array '%s' has element type %d, want %d", name, (int)a->dtype,
                        (int)dt);
    if (count >= 0 && a->count != count)
        return rvs_fail(err, RVS_ERR_FORMAT, "array '%s' has %lld elements, want %lld", name, (long long)a->count,
                        (long long)count);
    if (out)
        *out = a;
    return RVS_OK;
}

/* Free F's arrays and zero it. */
void rvs_fmt_free(rvs_fmt *F)
{
    if (!F)
        return;
    for (int i = 0; i < F->narrays; i++)
        if (!(F->borrowed >> i & 1u))
            free(F->array[i].data);
    memset(F, 0, sizeof *F);
}

rvs_fmt_options rvs_fmt_options_unconsumed(const rvs_fmt_options *o)
{
    rvs_fmt_options a;
    if (o)
        a = *o;
    else
        rvs_fmt_options_default(&a);
    a.consume = 0;
    return a;
}

/* Build F in format id from A, then validate it (a builder bug is caught here). */
rvs_status rvs_fmt_admit(rvs_format_id id, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    rvs_fmt_options a = rvs_fmt_options_unconsumed(o);
    rvs_fmt F;
    a.admit_only = 1;
    rvs_status st = rvs_fmt_from_csr(&F, id, A, &a, err);
    rvs_fmt_free(&F);
    return st;
}

rvs_status rvs_fmt_from_csr(rvs_fmt *F, rvs_format_id id, const rvs_csr *A, const rvs_fmt_options *o,
                            rvs_error *err)
{
    rvs_fmt_options def;
    const rvs_format_ops *ops = rvs_format_lookup(id);
    memset(F, 0, sizeof *F);
    if (!ops)
        return rvs_fail(err, RVS_ERR_ARG, "unknown format id %d", (int)id);
    if (A->colind64)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED,
                        "%lld columns need 64-bit column indices, which format %s does not hold",
                        (long long)A->cols, ops->name);
    if (!o) {
        rvs_fmt_options_default(&def);
        o = &def;
    }
    rvs_status st = ops->from_csr(F, A, o, err);
    if (st == RVS_OK && o->admit_only) {
        rvs_fmt_free(F);
        return RVS_OK;
    }
    if (st == RVS_OK) {
        F->id = id;
        st = ops->validate(F, err);
    }
    if (st != RVS_OK)
        rvs_fmt_free(F);
    return st;
}

/* A = F converted back to CSR. */
rvs_status rvs_fmt_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    const rvs_format_ops *ops = rvs_format_lookup(F->id);
    memset(A, 0, sizeof *A);
    if (!ops)
        return rvs_fail(err, RVS_ERR_ARG, "unknown format id %d", (int)F->id);
    return ops->to_csr(A, F, err);
}

/* Eq. (1)-(2) of Wang and Gu, "PELLR: A Permutated ELLPACK-R Format for SpMV on GPUs" (J. Computer
 * and Communications, 2020): N_iter = sum over warps of the longest row; N_p = sum over the warp's
 * slots of (2 b - 1) for b > 0 (a multiply-add per entry, an add between entries; absent or empty
 * rows cost nothing). */
void rvs_warp_work(const int64_t *row_len, int64_t rows, int warp, int64_t *n_iter, int64_t *n_p)
{
    int64_t it = 0, np = 0;
    for (int64_t w = 0; w < rows; w += warp) {
        int64_t m = 0;
        for (int64_t r = w; r < rows && r < w + warp; r++) {
            if (row_len[r] > m)
                m = row_len[r];
            if (row_len[r] > 0)
                np += 2 * row_len[r] - 1;
        }
        it += m;
    }
    *n_iter = it;
    *n_p = np;
}

void rvs_fmt_stats_warp(const rvs_fmt *F, int warp, rvs_fmt_stats *s)
{
    const rvs_format_ops *ops = rvs_format_lookup(F->id);
    if (ops->stats_warp)
        ops->stats_warp(F, warp, s);
    else
        ops->stats(F, s);
}
