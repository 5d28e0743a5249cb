/* fmt_hcc.c - hybrid COO + CSR (HCC, scale-free-hcc.txt §III) with 2-D jagged partitioning.
 *
 * The columns are cut into Np panels holding near-equal numbers of entries. The entries of a
 * panel, in row-major order (rows ascending, columns ascending), are cut into Nb blocks of
 * near-equal counts (block j of a panel of m entries holds its entries floor(m j / Nb) ..
 * floor(m (j+1) / Nb) - 1; a row may be cut between blocks: "jagged"). Each block is stored as
 * whole segments of S = 32 slots (a warp; four AVX-512 vectors of f64), its last segment padded.
 * A row piece is the run of a row's entries inside one block; its last entry carries an
 * end-of-row bit. Only segments holding an end-of-row bit have a bit field and a descriptor,
 * and row indices are stored once per piece, not per entry (the COO/CSR hybrid of the paper).
 *
 * Layout (rows x cols, nnz stored entries, vt = F32 or F64 values):
 *   param[0] = Np      panels, 1 .. 65536 (option hcc_np; default 1)
 *   param[1] = Nb      blocks per panel, 1 .. 2^24 (option hcc_nb; default
 *                      ceil(nnz / (Np * 4096)): blocks of ~4096 entries, 128 segments)
 *   param[2] = S       segment length, always 32
 *   param[3] = nseg    segments in all blocks
 *   param[4] = ncross  segments holding at least one end-of-row bit
 *   param[5] = npiece  row pieces (end-of-row bits in all)
 *   pcol    I32[Np + 1]       panel p holds columns pcol[p] .. pcol[p+1] - 1; pcol[0] = 0,
 *                             pcol[Np] = cols, non-decreasing (a panel may be empty)
 *   bseg    I64[Np*Nb + 1]    block b = p*Nb + j holds segments bseg[b] .. bseg[b+1] - 1;
 *                             bseg[0] = 0, non-decreasing, bseg[Np*Nb] = nseg
 *   col     I32[nseg * S]     column of each slot; slot l of segment s is s*S + l
 *   val     vt[nseg * S]      value of each slot
 *                             Padding: the slots of a block's last segment after its last
 *                             end-of-row bit; value +0, column that of the block's last entry
 *                             (kernels compute them into a carry that is then dropped)
 *   seg_ptr I64[ncross]       the segments holding an end-of-row bit, strictly increasing; the
 *                             last segment of every non-empty block is one of them
 *   eor     U32[ncross]       bit l of eor[k] set iff slot l of segment seg_ptr[k] ends a row
 *                             piece; never 0
 *   eor_rp  I64[ncross + 1]   end-of-row bits before segment seg_ptr[k]: eor_rp[0] = 0,
 *                             eor_rp[k+1] = eor_rp[k] + popcount(eor[k]), eor_rp[ncross] = npiece.
 *                             The paper's "initial values" of a work-group starting anywhere:
 *                             sidx by binary search in seg_ptr, ridx = eor_rp[sidx].
 *   row_idx I32[npiece]       row of each piece, in storage order; the row of any entry is
 *                             row_idx of the first end-of-row bit at or after it. Within a
 *                             block rows strictly increase; across a panel's blocks they do
 *                             not decrease.
 * SpMV (y = A x): y is zeroed, then panels are applied one after the other (the paper keeps a
 * temporary y per panel and merges; adding in place saves Np - 1 vectors). Within a panel,
 * blocks run in parallel; a segment's products go through a segmented inclusive prefix sum
 * whose segment heads are the lanes after end-of-row bits; end-of-row lanes are added to y.
 * The first and last piece of a block (the only ones a neighbouring block may share) are
 * added atomically - our form of the paper's wg_row / wg_val update phase.
 * Stats: padded = nseg * S - nnz. */
#include <stdlib.h>
#include <string.h>
#include "fmt_parts.h"

#define HCC_S 32
#define HCC_MAX_NP 65536
#define HCC_MAX_NB (1 << 24)
#define HCC_BLOCK_NNZ 4096

/* First entry (panel-relative) of block j of a panel of m entries: floor(m j / nb), no overflow. */
static int64_t hcc_block_start(int64_t m, int64_t j, int64_t nb)
{
    return (m / nb) * j + (m % nb) * j / nb;
}

/* Cut the columns of A into np panels of near-equal entry counts: pcol[0..np], m[0..np-1]. */
static rvs_status hcc_panels(const rvs_csr *A, int64_t np, int32_t *pcol, int64_t *m, rvs_error *err)
{
    int64_t *cc = calloc((size_t)A->cols + 1, sizeof *cc);
    if (!cc)
        return rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for %lld column counts", (long long)A->cols);
    for (int64_t p = 0; p < A->nnz; p++)
        cc[A->colind[p]]++;
    int64_t c = 0, before = 0;
    pcol[0] = 0;
    for (int64_t p = 1; p <= np; p++) {
        int64_t target = p == np ? A->nnz + 1 : hcc_block_start(A->nnz, p, np);
        while (c < A->cols && before + cc[c] <= target) {
            before += cc[c];
            c++;
        }
        pcol[p] = (int32_t)c;
    }
    pcol[np] = (int32_t)A->cols;
    memset(m, 0, (size_t)np * sizeof *m);
    for (int64_t p = 0, q = 0; p < np; p++)
        for (; q < pcol[p + 1]; q++)
            m[p] += cc[q];
    free(cc);
    return RVS_OK;
}

/* Walk A's entries panel by panel in HCC order. Without F's arrays (count pass), only count the
 * pieces into *npiece; with them, fill col, val, eor_all (one word per segment) and row_idx. */
static void hcc_walk(const rvs_csr *A, const int32_t *pcol, const int64_t *m, int64_t np, int64_t nb,
                     const int64_t *bseg, int64_t *cursor, int32_t *col, char *val, uint32_t *eor_all,
                     int32_t *row_idx, int64_t *npiece)
{
    size_t vs = rvs_vtype_size(A->vtype);
    int64_t pieces = 0;
    for (int64_t i = 0; i < A->rows; i++)
        cursor[i] = A->rowptr[i];
    for (int64_t p = 0; p < np; p++) {
        int64_t q = 0, j = 0, bstart = 0, bend = hcc_block_start(m[p], 1, nb);
        for (int64_t i = 0; i < A->rows; i++) {
            int64_t e = cursor[i], end = A->rowptr[i + 1];
            for (; e < end && A->colind[e] < pcol[p + 1]; e++, q++) {
                while (q >= bend) {
                    j++;
                    bstart = bend;
                    bend = hcc_block_start(m[p], j + 1, nb);
                }
                int last = e + 1 == end || A->colind[e + 1] >= pcol[p + 1] || q + 1 == bend;
                if (col) {
                    int64_t s = bseg[p * nb + j] * HCC_S + (q - bstart);
                    col[s] = A->colind[e];
                    memcpy(val + (size_t)s * vs, (const char *)A->values + (size_t)e * vs, vs);
                    if (last) {
                        eor_all[s / HCC_S] |= 1u << (s % HCC_S);
                        row_idx[pieces] = (int32_t)i;
                    }
                    if (q + 1 == bend) /* pad the block's last segment */
                        for (int64_t t = s + 1; t % HCC_S; t++)
                            col[t] = A->colind[e];
                }
                pieces += last;
            }
            cursor[i] = e;
        }
    }
    *npiece = pieces;
}

/* Panels, block segment ranges, and the pieces; then fill and index the crossing segments. */
static rvs_status hcc_build(rvs_fmt *F, const rvs_csr *A, int64_t np, int64_t nb, rvs_error *err)
{
    int64_t *m = malloc((size_t)np * sizeof *m), *cursor = malloc((size_t)(A->rows + 1) * sizeof *cursor);
    int32_t *pcol, *col, *row_idx;
    int64_t *bseg, *seg_ptr, *eor_rp, npiece = 0, ncross = 0;
    uint32_t *eor_all = NULL, *eor;
    void *val;
    rvs_status st;
    if (!m || !cursor) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for panel counts");
        goto done;
    }
    if ((st = rvs_fmt_add_array(F, "pcol", RVS_DT_I32, np + 1, (void **)&pcol, err)) ||
        (st = hcc_panels(A, np, pcol, m, err)) ||
        (st = rvs_fmt_add_array(F, "bseg", RVS_DT_I64, np * nb + 1, (void **)&bseg, err)))
        goto done;
    for (int64_t p = 0; p < np; p++)
        for (int64_t j = 0; j < nb; j++) {
            int64_t len = hcc_block_start(m[p], j + 1, nb) - hcc_block_start(m[p], j, nb);
            bseg[p * nb + j + 1] = bseg[p * nb + j] + (len + HCC_S - 1) / HCC_S;
        }
    int64_t nseg = bseg[np * nb];
    hcc_walk(A, pcol, m, np, nb, bseg, cursor, NULL, NULL, NULL, NULL, &npiece);
    eor_all = calloc((size_t)(nseg > 0 ? nseg : 1), sizeof *eor_all);
    if (!eor_all) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for %lld segment bit fields", (long long)nseg);
        goto done;
    }
    if ((st = rvs_fmt_add_array(F, "col", RVS_DT_I32, nseg * HCC_S, (void **)&col, err)) ||
        (st = rvs_fmt_add_array(F, "val", rvs_part_vdtype(A->vtype), nseg * HCC_S, &val, err)) ||
        (st = rvs_fmt_add_array(F, "row_idx", RVS_DT_I32, npiece, (void **)&row_idx, err)))
        goto done;
    hcc_walk(A, pcol, m, np, nb, bseg, cursor, col, val, eor_all, row_idx, &npiece);
    for (int64_t s = 0; s < nseg; s++)
        ncross += eor_all[s] != 0;
    if ((st = rvs_fmt_add_array(F, "seg_ptr", RVS_DT_I64, ncross, (void **)&seg_ptr, err)) ||
        (st = rvs_fmt_add_array(F, "eor", RVS_DT_U32, ncross, (void **)&eor, err)) ||
        (st = rvs_fmt_add_array(F, "eor_rp", RVS_DT_I64, ncross + 1, (void **)&eor_rp, err)))
        goto done;
    for (int64_t s = 0, k = 0; s < nseg; s++)
        if (eor_all[s]) {
            seg_ptr[k] = s;
            eor[k] = eor_all[s];
            eor_rp[k + 1] = eor_rp[k] + __builtin_popcount(eor_all[s]);
            k++;
        }
    F->param[3] = nseg;
    F->param[4] = ncross;
    F->param[5] = npiece;
done:
    free(m);
    free(cursor);
    free(eor_all);
    return st;
}

/* F = A in HCC with Np, Nb from o (defaults in the layout comment). */
static rvs_status hcc_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    int64_t np = o && o->hcc_np > 0 ? o->hcc_np : 1, nb = o && o->hcc_nb > 0 ? o->hcc_nb : 0;
    rvs_status st;
    if (!A->colind || A->rows > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "hcc: %lld x %lld does not fit 32-bit indices",
                        (long long)A->rows, (long long)A->cols);
    if (nb == 0)
        nb = (A->nnz + np * HCC_BLOCK_NNZ - 1) / (np * HCC_BLOCK_NNZ);
    nb = nb < 1 ? 1 : nb;
    if (np > HCC_MAX_NP || nb > HCC_MAX_NB)
        return rvs_fail(err, RVS_ERR_ARG, "hcc: %lld panels x %lld blocks exceed the limits %d x %d",
                        (long long)np, (long long)nb, HCC_MAX_NP, HCC_MAX_NB);
    F->id = RVS_FMT_HCC;
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    F->param[0] = np;
    F->param[1] = nb;
    F->param[2] = HCC_S;
    if ((st = hcc_build(F, A, np, nb, err)))
        rvs_fmt_free(F);
    return st;
}

/* Calls fn(ctx, slot, row, panel) for every stored entry of a validated-shape F in storage order;
 * stops and returns the first non-OK status of fn. */
typedef rvs_status (*hcc_visit)(void *ctx, int64_t slot, int32_t row, int64_t panel, int64_t block);
static rvs_status hcc_each(const rvs_fmt *F, hcc_visit fn, void *ctx)
{
    int64_t np = F->param[0], nb = F->param[1], ncross = F->param[4], sidx = 0, ridx = 0;
    const int64_t *bseg = rvs_fmt_array(F, "bseg")->data, *seg_ptr = rvs_fmt_array(F, "seg_ptr")->data;
    const uint32_t *eor = rvs_fmt_array(F, "eor")->data;
    const int32_t *row_idx = rvs_fmt_array(F, "row_idx")->data;
    rvs_status st;
    for (int64_t b = 0; b < np * nb; b++)
        for (int64_t s = bseg[b]; s < bseg[b + 1]; s++) {
            uint32_t w = sidx < ncross && seg_ptr[sidx] == s ? eor[sidx++] : 0;
            int lanes = s + 1 == bseg[b + 1] ? 32 - __builtin_clz(w) : HCC_S;
            for (int l = 0; l < lanes; l++) {
                if ((st = fn(ctx, s * HCC_S + l, row_idx[ridx], b / nb, b)))
                    return st;
                ridx += (w >> l) & 1;
            }
        }
    return RVS_OK;
}

typedef struct {
    const rvs_fmt *F;
    rvs_csr *A;
    int64_t *next; /* counting pass: NULL; fill pass: next free position per row */
    int64_t count, last_row, last_block, last_col;
    const int32_t *col, *pcol;
    rvs_error *err;
} hcc_ctx;

/* Count pass of to_csr / validate: entries per row; check rows, columns, panels and order. */
static rvs_status hcc_check_entry(void *vc, int64_t slot, int32_t row, int64_t panel, int64_t block)
{
    hcc_ctx *c = vc;
    int32_t col = c->col[slot];
    int same_panel = c->last_block >= 0 && c->last_block / c->F->param[1] == panel;
    c->count++;
    if (col < c->pcol[panel] || col >= c->pcol[panel + 1])
        return rvs_fail(c->err, RVS_ERR_RANGE, "hcc: slot %lld: column %d outside panel %lld", (long long)slot,
                        col, (long long)panel);
    if (same_panel && (row < c->last_row || (row == c->last_row && col <= c->last_col)))
        return rvs_fail(c->err, RVS_ERR_FORMAT, "hcc: slot %lld: row %d column %d out of order", (long long)slot,
                        row, col);
    c->last_row = row;
    c->last_col = col;
    c->last_block = block;
    if (c->A)
        c->A->rowptr[row + 1]++;
    return RVS_OK;
}

/* Fill pass of to_csr. */
static rvs_status hcc_place_entry(void *vc, int64_t slot, int32_t row, int64_t panel, int64_t block)
{
    hcc_ctx *c = vc;
    size_t vs = rvs_vtype_size(c->F->vtype);
    int64_t q = c->next[row]++;
    (void)panel;
    (void)block;
    c->A->colind[q] = c->col[slot];
    memcpy((char *)c->A->values + (size_t)q * vs, (const char *)rvs_fmt_array(c->F, "val")->data + (size_t)slot * vs,
           vs);
    return RVS_OK;
}

/* A = F as CSR: panels in order give each row's entries in ascending columns. */
static rvs_status hcc_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    hcc_ctx c = {F, A, NULL, 0, -1, -1, -1, rvs_fmt_array(F, "col")->data, rvs_fmt_array(F, "pcol")->data, err};
    rvs_status st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err);
    if (st != RVS_OK)
        return st;
    if ((st = hcc_each(F, hcc_check_entry, &c)))
        goto done;
    for (int64_t i = 0; i < F->rows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
    c.next = malloc((size_t)(F->rows + 1) * sizeof *c.next);
    if (!c.next) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for row cursors");
        goto done;
    }
    memcpy(c.next, A->rowptr, (size_t)(F->rows + 1) * sizeof *c.next);
    st = hcc_each(F, hcc_place_entry, &c);
done:
    free(c.next);
    if (st != RVS_OK)
        rvs_csr_free(A);
    return st;
}

/* Check params and the shapes and ranges of pcol, bseg, seg_ptr, eor, eor_rp, row_idx, col. */
static rvs_status hcc_validate_arrays(const rvs_fmt *F, rvs_error *err)
{
    int64_t np = F->param[0], nb = F->param[1], nseg = F->param[3], ncross = F->param[4], npiece = F->param[5];
    const rvs_array *pa, *ba, *ca, *sa, *ea, *ra, *ia;
    rvs_status st;
    if (np < 1 || np > HCC_MAX_NP || nb < 1 || nb > HCC_MAX_NB || F->param[2] != HCC_S || nseg < 0 ||
        nseg > INT64_MAX / 64 || nseg > (F->nnz + HCC_S - 1) / HCC_S + np * nb || ncross < 0 || ncross > nseg || npiece < 0 || npiece > F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: bad params Np %lld Nb %lld S %lld nseg %lld ncross %lld "
                        "npiece %lld", (long long)np, (long long)nb, (long long)F->param[2], (long long)nseg,
                        (long long)ncross, (long long)npiece);
    if ((st = rvs_fmt_require(F, "pcol", RVS_DT_I32, np + 1, &pa, err)) ||
        (st = rvs_fmt_require(F, "bseg", RVS_DT_I64, np * nb + 1, &ba, err)) ||
        (st = rvs_fmt_require(F, "col", RVS_DT_I32, nseg * HCC_S, &ca, err)) ||
        (st = rvs_fmt_require(F, "val", rvs_part_vdtype(F->vtype), nseg * HCC_S, NULL, err)) ||
        (st = rvs_fmt_require(F, "seg_ptr", RVS_DT_I64, ncross, &sa, err)) ||
        (st = rvs_fmt_require(F, "eor", RVS_DT_U32, ncross, &ea, err)) ||
        (st = rvs_fmt_require(F, "eor_rp", RVS_DT_I64, ncross + 1, &ra, err)) ||
        (st = rvs_fmt_require(F, "row_idx", RVS_DT_I32, npiece, &ia, err)))
        return st;
    const int32_t *pcol = pa->data, *col = ca->data, *row_idx = ia->data;
    const int64_t *bseg = ba->data, *seg_ptr = sa->data, *eor_rp = ra->data;
    const uint32_t *eor = ea->data;
    if (pcol[0] != 0 || pcol[np] != F->cols || bseg[0] != 0 || bseg[np * nb] != nseg || eor_rp[0] != 0 ||
        eor_rp[ncross] != npiece)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: pcol, bseg or eor_rp do not span the matrix");
    for (int64_t p = 0; p < np; p++)
        if (pcol[p + 1] < pcol[p])
            return rvs_fail(err, RVS_ERR_FORMAT, "hcc: panel %lld ends before it starts", (long long)p);
    for (int64_t b = 0; b < np * nb; b++)
        if (bseg[b + 1] < bseg[b])
            return rvs_fail(err, RVS_ERR_FORMAT, "hcc: block %lld ends before it starts", (long long)b);
    for (int64_t k = 0; k < ncross; k++)
        if (seg_ptr[k] < 0 || seg_ptr[k] >= nseg || (k > 0 && seg_ptr[k] <= seg_ptr[k - 1]) || eor[k] == 0 ||
            eor_rp[k + 1] != eor_rp[k] + __builtin_popcount(eor[k]))
            return rvs_fail(err, RVS_ERR_FORMAT, "hcc: segment descriptor %lld (segment %lld) inconsistent",
                            (long long)k, (long long)seg_ptr[k]);
    int64_t bad = -1;
#pragma omp parallel for reduction(max : bad)
    for (int64_t s = 0; s < nseg * HCC_S; s++)
        if (col[s] < 0 || col[s] >= F->cols)
            bad = s > bad ? s : bad;
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE, "hcc: slot %lld column %d out of range", (long long)bad, col[bad]);
#pragma omp parallel for reduction(max : bad)
    for (int64_t r = 0; r < npiece; r++)
        if (row_idx[r] < 0 || row_idx[r] >= F->rows)
            bad = r > bad ? r : bad;
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE, "hcc: piece %lld row %d out of range", (long long)bad, row_idx[bad]);
    /* Every non-empty block ends in a segment with an end-of-row bit, and the rows of its
     * pieces strictly increase (kernels rely on one piece per row and block). */
    for (int64_t b = 0, k = 0; b < np * nb; b++) {
        if (bseg[b + 1] == bseg[b])
            continue;
        int64_t k0 = k;
        while (k < ncross && seg_ptr[k] < bseg[b + 1] - 1)
            k++;
        if (k >= ncross || seg_ptr[k] != bseg[b + 1] - 1)
            return rvs_fail(err, RVS_ERR_FORMAT, "hcc: block %lld does not end a row piece", (long long)b);
        k++;
        for (int64_t r = eor_rp[k0] + 1; r < eor_rp[k]; r++)
            if (row_idx[r] <= row_idx[r - 1])
                return rvs_fail(err, RVS_ERR_FORMAT, "hcc: block %lld: piece %lld row %d not after row %d",
                                (long long)b, (long long)r, row_idx[r], row_idx[r - 1]);
    }
    return RVS_OK;
}

/* Check arrays, then walk every entry: columns inside their panel, rows and columns in order,
 * and exactly nnz entries. */
static rvs_status hcc_validate(const rvs_fmt *F, rvs_error *err)
{
    rvs_status st;
    if (F->rows < 0 || F->rows > RVS_COL32_MAX || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0 ||
        (F->vtype != RVS_F32 && F->vtype != RVS_F64))
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: bad size %lld x %lld, nnz %lld", (long long)F->rows,
                        (long long)F->cols, (long long)F->nnz);
    if ((st = hcc_validate_arrays(F, err)))
        return st;
    hcc_ctx c = {F, NULL, NULL, 0, -1, -1, -1, rvs_fmt_array(F, "col")->data, rvs_fmt_array(F, "pcol")->data, err};
    if ((st = hcc_each(F, hcc_check_entry, &c)))
        return st;
    if (c.count != F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: %lld entries stored, nnz says %lld", (long long)c.count,
                        (long long)F->nnz);
    return RVS_OK;
}

/* Bytes of all arrays; padding = slots beyond nnz. */
static void hcc_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    int64_t np = F->param[0], nb = F->param[1], nseg = F->param[3], ncross = F->param[4], npiece = F->param[5];
    s->bytes = (np + 1) * 4 + (np * nb + 1) * 8 + nseg * HCC_S * (4 + (int64_t)rvs_vtype_size(F->vtype)) +
               ncross * (8 + 4) + (ncross + 1) * 8 + npiece * 4;
    s->padded = nseg * HCC_S - F->nnz;
    s->n_iter = -1;
    s->n_p = -1;
}

const rvs_format_ops rvs_format_hcc = {RVS_FMT_HCC, "hcc", hcc_from_csr, hcc_to_csr, hcc_validate, hcc_stats};
