/* fmt_hcc.c - HCC, hybrid COO + CSR (scale-free-hcc.txt §III-IV), rebuilt for GPUs whose x does
 * not fit in cache: equal-nnz row blocks whose light entries are stored in column order (the limit
 * of the paper's column panels: a block walks x once from left to right, and a warp's gathers of
 * x share cache sectors where columns repeat), with packed 32-bit row/column offsets.
 *
 * Blocks. The rows are cut, in order, into blocks of whole rows holding at most E entries and at
 * most HCC_RMAX rows (CSR-like: a block is a row range). A row longer than E is split into pieces
 * of at most E entries, each piece a block of its own (a "split row", listed in srow; kernels
 * add pieces up atomically). Within a block, a row with more than H = max(64, E/32) entries is
 * heavy: heavy rows are stored after the light part, row by row, in ascending columns (their
 * sums stay in registers). The light rows' entries are stored ordered by (panel, row, column)
 * with panels of ceil(cols / Np) columns, and by (column, row) when Np = 0, the default
 * (kernels add their products into a per-block y in shared memory: the paper's intra-block
 * tiling with atomics, §IV-B4; the 2-D partition's partial row sums never leave the chip).
 *
 * Segments. Each part of a block is packed into segments of 32 slots (a warp). A segment has
 * a base column sbase; slot word = (row offset in the block << 20) | (column - sbase), so a
 * segment is closed early when the next entry's column is below its base or 2^20 or more above
 * it. Unused slots hold word 0xFFFFFFFF (row offset 4095, never a row: HCC_RMAX = 4095) and value
 * 0; kernels skip them and never read x for them. Index bytes: 4 per slot plus 4 per segment,
 * against CSR's 4 per entry plus 8 per row; the row pointers become 12 bytes per block.
 *
 * Layout (rows x cols, nnz entries, vt = F32 or F64):
 *   param[0] = Np      panels ordering the light part; 0: column order
 *   param[1] = nblk    blocks
 *   param[2] = S       32
 *   param[3] = nseg    segments
 *   param[4] = nsplit  split rows
 *   param[5] = E       most entries of a block (option hcc_nb = wanted blocks; default
 *                      nnz / 4096 clamped to 2048 .. 16384, a multiple of 32)
 *   param[6] = rmax    most rows of a block (<= HCC_RMAX)
 *   brow  I64[nblk]      first row of block b
 *   bnr   I32[nblk]      rows of block b (0..rmax), or -1: one piece of split row brow[b]
 *   bseg  I64[nblk + 1]  block b holds segments bseg[b] .. bseg[b+1] - 1
 *   bhvy  I64[nblk]      its heavy part starts at segment bhvy[b] (bseg[b] <= bhvy[b] <= bseg[b+1])
 *   sbase I32[nseg]      base column of each segment
 *   word  U32[nseg * 32] packed slot, as above
 *   val   vt[nseg * 32]  slot values
 *   srow  I64[nsplit]    the split rows, ascending
 * Blocks cover rows 0 .. rows-1 in order: a block of r rows starts where the previous one
 * ended, the pieces of a split row are consecutive blocks at that row. Every row's entries, in
 * storage order, have strictly ascending columns (to_csr needs no sort; the validator checks). */
#include <stdlib.h>
#include <string.h>
#include "fmt_parts.h"

#define HCC_S 32
#define HCC_CB 20
#define HCC_CMASK ((1u << HCC_CB) - 1u)
#define HCC_RMAX 4095
#define HCC_PAD 0xFFFFFFFFu
#define HCC_MAX_E (1 << 20)

/* One entry of a block while it is being packed: sort key and position in A. */
typedef struct {
    uint64_t key;
    int64_t p;
    int32_t roff, col;
} hcc_ent;

static int hcc_key_cmp(const void *a, const void *b)
{
    uint64_t x = ((const hcc_ent *)a)->key, y = ((const hcc_ent *)b)->key;
    return (x > y) - (x < y);
}

/* Default entries per block: blocks of about nnz / 4096 entries, 2048 .. 16384, multiple of 32. */
static int64_t hcc_default_e(int64_t nnz)
{
    int64_t e = nnz / 4096;
    e = e < 2048 ? 2048 : e > 16384 ? 16384 : e;
    return (e + 31) / 32 * 32;
}

/* Heavy-row threshold of a block size. */
static int64_t hcc_heavy(int64_t e) { return e / 32 > 64 ? e / 32 : 64; }

/* Block list of A: growable brow / bnr arrays. */
typedef struct {
    int64_t *brow;
    int32_t *bnr;
    int64_t n, cap, nsplit;
} hcc_blocks;

static int hcc_push(hcc_blocks *B, int64_t row, int32_t nr)
{
    if (B->n == B->cap) {
        int64_t cap = B->cap ? 2 * B->cap : 1024;
        int64_t *r = realloc(B->brow, (size_t)cap * sizeof *r);
        if (r)
            B->brow = r;
        int32_t *n = r ? realloc(B->bnr, (size_t)cap * sizeof *n) : NULL;
        if (!r || !n)
            return 0;
        B->bnr = n;
        B->cap = cap;
    }
    B->brow[B->n] = row;
    B->bnr[B->n++] = nr;
    return 1;
}

/* Cut A's rows into blocks of at most e entries and rmax rows; rows over e become split pieces. */
static rvs_status hcc_cut(hcc_blocks *B, const rvs_csr *A, int64_t e, rvs_error *err)
{
    int64_t r0 = 0, cnt = 0;
    int ok = 1;
    for (int64_t i = 0; i < A->rows && ok; i++) {
        int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (len > e) {
            if (i > r0)
                ok = hcc_push(B, r0, (int32_t)(i - r0));
            for (int64_t k = 0; k < len && ok; k += e)
                ok = hcc_push(B, i, -1);
            B->nsplit++;
            r0 = i + 1;
            cnt = 0;
            continue;
        }
        if (cnt + len > e || i - r0 + 1 > HCC_RMAX) {
            ok = hcc_push(B, r0, (int32_t)(i - r0));
            r0 = i;
            cnt = 0;
        }
        cnt += len;
    }
    if (ok && (A->rows > r0 || B->n == 0))
        ok = hcc_push(B, r0, (int32_t)(A->rows - r0));
    return ok ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for the block list");
}

/* Entries of block b (piece k of a split row: its k-th run of e entries) in storage order into
 * ent; *nlight gets the count of the light part. */
static int64_t hcc_block_entries(const rvs_csr *A, const hcc_blocks *B, int64_t b, int64_t piece, int64_t e,
                                 int64_t np, hcc_ent *ent, int64_t *nlight)
{
    int64_t n = 0, r0 = B->brow[b], h = hcc_heavy(e);
    int64_t pw = np > 0 ? (A->cols + np - 1) / np : 1;
    if (B->bnr[b] < 0) {
        int64_t p0 = A->rowptr[r0] + piece * e, p1 = p0 + e < A->rowptr[r0 + 1] ? p0 + e : A->rowptr[r0 + 1];
        for (int64_t p = p0; p < p1; p++, n++)
            ent[n] = (hcc_ent){0, p, 0, A->colind[p]};
        *nlight = 0;
        return n;
    }
    for (int64_t i = r0; i < r0 + B->bnr[b]; i++) {
        if (A->rowptr[i + 1] - A->rowptr[i] > h)
            continue;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++, n++) {
            uint64_t c = (uint64_t)A->colind[p], ro = (uint64_t)(i - r0);
            uint64_t key = np > 0 ? ((c / (uint64_t)pw) << 43) | (ro << 31) | c : (c << 12) | ro;
            ent[n] = (hcc_ent){key, p, (int32_t)(i - r0), A->colind[p]};
        }
    }
    qsort(ent, (size_t)n, sizeof *ent, hcc_key_cmp);
    *nlight = n;
    for (int64_t i = r0; i < r0 + B->bnr[b]; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > h)
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++, n++)
                ent[n] = (hcc_ent){0, p, (int32_t)(i - r0), A->colind[p]};
    return n;
}

/* Pack ent[0..n) into segments from segment s (word/sbase/val NULL: count only). Returns the
 * segments used. */
static int64_t hcc_pack(const rvs_csr *A, const hcc_ent *ent, int64_t n, int64_t s, uint32_t *word, int32_t *sbase,
                        char *val)
{
    size_t vs = rvs_vtype_size(A->vtype);
    int64_t used = 0, lane = HCC_S, base = 0;
    for (int64_t k = 0; k < n; k++) {
        int64_t c = ent[k].col;
        if (lane == HCC_S || c < base || c - base > (int64_t)HCC_CMASK) {
            lane = 0;
            base = c;
            used++;
            if (sbase)
                sbase[s + used - 1] = (int32_t)c;
        }
        if (word) {
            int64_t slot = (s + used - 1) * HCC_S + lane;
            word[slot] = ((uint32_t)ent[k].roff << HCC_CB) | (uint32_t)(c - base);
            memcpy(val + (size_t)slot * vs, (const char *)A->values + (size_t)ent[k].p * vs, vs);
        }
        lane++;
    }
    return used;
}

/* Segments of block b, light and heavy part (fill: arrays not NULL, bseg/bhvy of b set). */
static int64_t hcc_block(const rvs_csr *A, const hcc_blocks *B, int64_t b, int64_t piece, int64_t e, int64_t np,
                         hcc_ent *ent, int64_t s0, int64_t *bhvy, uint32_t *word, int32_t *sbase, char *val)
{
    int64_t nl, n = hcc_block_entries(A, B, b, piece, e, np, ent, &nl);
    int64_t sl = hcc_pack(A, ent, nl, s0, word, sbase, val);
    if (bhvy)
        bhvy[b] = s0 + sl;
    return sl + hcc_pack(A, ent + nl, n - nl, s0 + sl, word, sbase, val);
}

/* F = A in HCC (options: hcc_np panels, hcc_nb wanted blocks). */
static rvs_status hcc_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    hcc_blocks B = {0};
    int64_t np = o && o->hcc_np > 0 ? o->hcc_np : 0, e, *piece = NULL, *bseg, *bhvy, *brow, *srow;
    int32_t *bnr, *sbase;
    uint32_t *word;
    void *val;
    rvs_status st;
    if (!A->colind || A->rows > RVS_COL32_MAX || A->cols > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "hcc: %lld x %lld does not fit 32-bit indices",
                        (long long)A->rows, (long long)A->cols);
    if (np > (1 << 20))
        return rvs_fail(err, RVS_ERR_ARG, "hcc: %lld panels, at most %d", (long long)np, 1 << 20);
    e = o && o->hcc_nb > 0 ? (A->nnz + o->hcc_nb - 1) / o->hcc_nb : hcc_default_e(A->nnz);
    e = (e + 31) / 32 * 32;
    e = e < 32 ? 32 : e > HCC_MAX_E ? HCC_MAX_E : e;
    F->id = RVS_FMT_HCC;
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    if ((st = hcc_cut(&B, A, e, err)))
        goto done;
    /* piece number of each block (0 except for the later pieces of a split row) and its segments */
    piece = calloc((size_t)B.n + 1, sizeof *piece);
    if (!piece) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for %lld blocks", (long long)B.n);
        goto done;
    }
    for (int64_t b = 1; b < B.n; b++)
        if (B.bnr[b] < 0 && B.bnr[b - 1] < 0 && B.brow[b] == B.brow[b - 1])
            piece[b] = piece[b - 1] + 1;
    if ((st = rvs_fmt_add_array(F, "brow", RVS_DT_I64, B.n, (void **)&brow, err)) ||
        (st = rvs_fmt_add_array(F, "bnr", RVS_DT_I32, B.n, (void **)&bnr, err)) ||
        (st = rvs_fmt_add_array(F, "bseg", RVS_DT_I64, B.n + 1, (void **)&bseg, err)) ||
        (st = rvs_fmt_add_array(F, "bhvy", RVS_DT_I64, B.n, (void **)&bhvy, err)))
        goto done;
    memcpy(brow, B.brow, (size_t)B.n * sizeof *brow);
    memcpy(bnr, B.bnr, (size_t)B.n * sizeof *bnr);
    int ok = 1;
#pragma omp parallel reduction(&& : ok)
    {
        hcc_ent *ent = malloc((size_t)(e > HCC_RMAX ? e : HCC_RMAX) * sizeof *ent);
        ok = ent != NULL;
#pragma omp for schedule(dynamic, 16)
        for (int64_t b = 0; b < B.n; b++)
            if (ent)
                bseg[b + 1] = hcc_block(A, &B, b, piece[b], e, np, ent, 0, NULL, NULL, NULL, NULL);
        free(ent);
    }
    if (!ok) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for a block of %lld entries", (long long)e);
        goto done;
    }
    for (int64_t b = 0; b < B.n; b++)
        bseg[b + 1] += bseg[b];
    int64_t nseg = bseg[B.n];
    if (nseg > INT64_MAX / 64) {
        st = rvs_fail(err, RVS_ERR_OVERFLOW, "hcc: %lld segments", (long long)nseg);
        goto done;
    }
    if ((st = rvs_fmt_add_array(F, "sbase", RVS_DT_I32, nseg, (void **)&sbase, err)) ||
        (st = rvs_fmt_add_array(F, "word", RVS_DT_U32, nseg * HCC_S, (void **)&word, err)) ||
        (st = rvs_fmt_add_array(F, "val", rvs_part_vdtype(A->vtype), nseg * HCC_S, &val, err)) ||
        (st = rvs_fmt_add_array(F, "srow", RVS_DT_I64, B.nsplit, (void **)&srow, err)))
        goto done;
    memset(word, 0xff, (size_t)nseg * HCC_S * sizeof *word);
#pragma omp parallel reduction(&& : ok)
    {
        hcc_ent *ent = malloc((size_t)(e > HCC_RMAX ? e : HCC_RMAX) * sizeof *ent);
        ok = ent != NULL;
#pragma omp for schedule(dynamic, 16)
        for (int64_t b = 0; b < B.n; b++)
            if (ent)
                hcc_block(A, &B, b, piece[b], e, np, ent, bseg[b], bhvy, word, sbase, val);
        free(ent);
    }
    if (!ok) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for a block of %lld entries", (long long)e);
        goto done;
    }
    int32_t rmax = 0;
    for (int64_t b = 0, k = 0; b < B.n; b++) {
        rmax = B.bnr[b] > rmax ? B.bnr[b] : rmax;
        if (B.bnr[b] < 0 && piece[b] == 0)
            srow[k++] = B.brow[b];
    }
    F->param[0] = np;
    F->param[1] = B.n;
    F->param[2] = HCC_S;
    F->param[3] = nseg;
    F->param[4] = B.nsplit;
    F->param[5] = e;
    F->param[6] = rmax > 0 ? rmax : 1;
done:
    free(B.brow);
    free(B.bnr);
    free(piece);
    if (st != RVS_OK)
        rvs_fmt_free(F);
    return st;
}

/* Calls fn(ctx, slot, row, col) for every stored entry of F (arrays checked) in storage order;
 * returns the first non-OK status of fn. */
typedef rvs_status (*hcc_visit)(void *ctx, int64_t slot, int64_t row, int32_t col);
static rvs_status hcc_each(const rvs_fmt *F, hcc_visit fn, void *ctx)
{
    const int64_t *brow = rvs_fmt_array(F, "brow")->data, *bseg = rvs_fmt_array(F, "bseg")->data;
    const int32_t *sbase = rvs_fmt_array(F, "sbase")->data;
    const uint32_t *word = rvs_fmt_array(F, "word")->data;
    rvs_status st;
    for (int64_t b = 0; b < F->param[1]; b++)
        for (int64_t s = bseg[b]; s < bseg[b + 1]; s++)
            for (int64_t slot = s * HCC_S; slot < (s + 1) * HCC_S; slot++)
                if (word[slot] != HCC_PAD &&
                    (st = fn(ctx, slot, brow[b] + (word[slot] >> HCC_CB), sbase[s] + (int32_t)(word[slot] & HCC_CMASK))))
                    return st;
    return RVS_OK;
}

typedef struct {
    rvs_csr *A;
    int64_t *next;   /* fill pass: next free position per row */
    int32_t *last;   /* check pass: last column seen per row, -1 before the first */
    int64_t count;
    const void *val;
    size_t vs;
    rvs_error *err;
} hcc_ctx;

/* Check pass: columns strictly ascend within each row; count entries per row. */
static rvs_status hcc_check_entry(void *vc, int64_t slot, int64_t row, int32_t col)
{
    hcc_ctx *c = vc;
    if (col <= c->last[row])
        return rvs_fail(c->err, RVS_ERR_FORMAT, "hcc: slot %lld: row %lld column %d not after column %d",
                        (long long)slot, (long long)row, col, c->last[row]);
    c->last[row] = col;
    c->count++;
    if (c->A)
        c->A->rowptr[row + 1]++;
    return RVS_OK;
}

/* Fill pass of to_csr. */
static rvs_status hcc_place_entry(void *vc, int64_t slot, int64_t row, int32_t col)
{
    hcc_ctx *c = vc;
    int64_t q = c->next[row]++;
    c->A->colind[q] = col;
    memcpy((char *)c->A->values + (size_t)q * c->vs, (const char *)c->val + (size_t)slot * c->vs, c->vs);
    return RVS_OK;
}

/* Count (and with A, the row lengths of) F's entries, checking the column order of each row. */
static rvs_status hcc_scan(const rvs_fmt *F, rvs_csr *A, int64_t *count, rvs_error *err)
{
    hcc_ctx c = {A, NULL, malloc((size_t)(F->rows + 1) * sizeof(int32_t)), 0, NULL, 0, err};
    if (!c.last)
        return rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for %lld row cursors", (long long)F->rows);
    for (int64_t i = 0; i < F->rows; i++)
        c.last[i] = -1;
    rvs_status st = hcc_each(F, hcc_check_entry, &c);
    free(c.last);
    *count = c.count;
    return st;
}

/* A = F as CSR: storage order gives each row's entries in ascending columns. */
static rvs_status hcc_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err)
{
    int64_t count;
    hcc_ctx c = {A, NULL, NULL, 0, rvs_fmt_array(F, "val")->data, rvs_vtype_size(F->vtype), err};
    rvs_status st = rvs_csr_alloc(A, F->rows, F->cols, F->nnz, F->vtype, err);
    if (st != RVS_OK)
        return st;
    if ((st = hcc_scan(F, A, &count, err)))
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

/* Params and the shapes of the arrays. */
static rvs_status hcc_validate_shape(const rvs_fmt *F, rvs_error *err)
{
    int64_t np = F->param[0], nblk = F->param[1], nseg = F->param[3], nsplit = F->param[4], e = F->param[5],
            rmax = F->param[6];
    rvs_status st;
    if (F->rows < 0 || F->rows > RVS_COL32_MAX || F->cols < 0 || F->cols > RVS_COL32_MAX || F->nnz < 0 ||
        (F->vtype != RVS_F32 && F->vtype != RVS_F64))
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: bad size %lld x %lld, nnz %lld", (long long)F->rows,
                        (long long)F->cols, (long long)F->nnz);
    if (np < 0 || np > (1 << 20) || nblk < 1 || nblk > F->rows + F->nnz + 1 || F->param[2] != HCC_S ||
        nseg < 0 || nseg > INT64_MAX / 64 || nsplit < 0 || nsplit > F->rows || e < 32 || e > HCC_MAX_E ||
        e % 32 || rmax < 1 || rmax > HCC_RMAX)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: bad params Np %lld blocks %lld S %lld segments %lld split %lld "
                        "E %lld rmax %lld", (long long)np, (long long)nblk, (long long)F->param[2], (long long)nseg,
                        (long long)nsplit, (long long)e, (long long)rmax);
    if ((st = rvs_fmt_require(F, "brow", RVS_DT_I64, nblk, NULL, err)) ||
        (st = rvs_fmt_require(F, "bnr", RVS_DT_I32, nblk, NULL, err)) ||
        (st = rvs_fmt_require(F, "bseg", RVS_DT_I64, nblk + 1, NULL, err)) ||
        (st = rvs_fmt_require(F, "bhvy", RVS_DT_I64, nblk, NULL, err)) ||
        (st = rvs_fmt_require(F, "sbase", RVS_DT_I32, nseg, NULL, err)) ||
        (st = rvs_fmt_require(F, "word", RVS_DT_U32, nseg * HCC_S, NULL, err)) ||
        (st = rvs_fmt_require(F, "val", rvs_part_vdtype(F->vtype), nseg * HCC_S, NULL, err)) ||
        (st = rvs_fmt_require(F, "srow", RVS_DT_I64, nsplit, NULL, err)))
        return st;
    return RVS_OK;
}

/* Blocks: rows covered in order, segment ranges, split rows listed; slots: row offsets inside
 * their block, columns inside the matrix, padding zero. */
static rvs_status hcc_validate_blocks(const rvs_fmt *F, rvs_error *err)
{
    int64_t nblk = F->param[1], nseg = F->param[3], nsplit = F->param[4], rmax = F->param[6], row = 0, k = 0;
    const int64_t *brow = rvs_fmt_array(F, "brow")->data, *bseg = rvs_fmt_array(F, "bseg")->data,
                  *bhvy = rvs_fmt_array(F, "bhvy")->data, *srow = rvs_fmt_array(F, "srow")->data;
    const int32_t *bnr = rvs_fmt_array(F, "bnr")->data, *sbase = rvs_fmt_array(F, "sbase")->data;
    const uint32_t *word = rvs_fmt_array(F, "word")->data;
    const rvs_array *va = rvs_fmt_array(F, "val");
    if (bseg[0] != 0 || bseg[nblk] != nseg)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: bseg does not span the %lld segments", (long long)nseg);
    for (int64_t b = 0; b < nblk; b++) {
        int split = bnr[b] < 0, cont = split && b > 0 && bnr[b - 1] < 0 && brow[b - 1] == brow[b];
        if (bnr[b] < -1 || bnr[b] > rmax || brow[b] != (cont ? row - 1 : row) || bseg[b + 1] < bseg[b] ||
            bhvy[b] < bseg[b] || bhvy[b] > bseg[b + 1] || (split && bhvy[b] != bseg[b]) ||
            (!split && bnr[b] + row > F->rows))
            return rvs_fail(err, RVS_ERR_FORMAT, "hcc: block %lld (row %lld, %d rows) inconsistent", (long long)b,
                            (long long)brow[b], bnr[b]);
        if (split && !cont && (k >= nsplit || srow[k++] != row))
            return rvs_fail(err, RVS_ERR_FORMAT, "hcc: split row %lld of block %lld not listed", (long long)row,
                            (long long)b);
        row += split ? !cont : bnr[b];
    }
    if (row != F->rows || k != nsplit)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: blocks cover %lld of %lld rows, %lld of %lld split rows",
                        (long long)row, (long long)F->rows, (long long)k, (long long)nsplit);
    int64_t bad = -1;
#pragma omp parallel for schedule(dynamic, 64) reduction(max : bad)
    for (int64_t b = 0; b < nblk; b++) {
        uint32_t nr = bnr[b] < 0 ? 1u : (uint32_t)bnr[b];
        for (int64_t s = bseg[b]; s < bseg[b + 1]; s++) {
            if (sbase[s] < 0 || sbase[s] >= F->cols)
                bad = s * HCC_S > bad ? s * HCC_S : bad;
            for (int64_t slot = s * HCC_S; slot < (s + 1) * HCC_S; slot++) {
                uint32_t w = word[slot];
                int pad_ok = w != HCC_PAD ||
                             (F->vtype == RVS_F64 ? ((const double *)va->data)[slot] == 0
                                                  : ((const float *)va->data)[slot] == 0);
                if (!pad_ok ||
                    (w != HCC_PAD && ((w >> HCC_CB) >= nr || (int64_t)sbase[s] + (w & HCC_CMASK) >= F->cols)))
                    bad = slot > bad ? slot : bad;
            }
        }
    }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE, "hcc: slot %lld: row or column out of range, or padding not zero",
                        (long long)bad);
    return RVS_OK;
}

/* Check params, arrays, blocks and slots, then every row's column order and the entry count. */
static rvs_status hcc_validate(const rvs_fmt *F, rvs_error *err)
{
    int64_t count;
    rvs_status st;
    if ((st = hcc_validate_shape(F, err)) || (st = hcc_validate_blocks(F, err)) || (st = hcc_scan(F, NULL, &count, err)))
        return st;
    if (count != F->nnz)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: %lld entries stored, nnz says %lld", (long long)count,
                        (long long)F->nnz);
    return RVS_OK;
}

/* Bytes of all arrays; padding = slots beyond nnz. */
static void hcc_stats(const rvs_fmt *F, rvs_fmt_stats *s)
{
    int64_t nblk = F->param[1], nseg = F->param[3];
    s->bytes = nblk * (8 + 4 + 8 + 8) + 8 + nseg * 4 + nseg * HCC_S * (4 + (int64_t)rvs_vtype_size(F->vtype)) +
               F->param[4] * 8;
    s->padded = nseg * HCC_S - F->nnz;
    s->n_iter = -1;
    s->n_p = -1;
}

const rvs_format_ops rvs_format_hcc = {RVS_FMT_HCC, "hcc", hcc_from_csr, hcc_to_csr, hcc_validate, hcc_stats};
