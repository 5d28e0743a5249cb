/* fmt_hcc.c - HCC, hybrid COO + CSR (Liang et al., "Scale-Free Sparse Matrix-Vector Multiplication
 * on Many-Core Architectures", IEEE TCAD, 2017, Sec. III-IV), rebuilt for GPUs whose x does not fit
 * in cache: equal-nnz row blocks whose light entries are stored in column order (the limit of the
 * paper's column panels: a block walks x once from left to right, and a warp's gathers of x share
 * cache sectors where columns repeat), with packed 32-bit row/column offsets.
 *
 * Blocks. The rows are cut, in order, into blocks of whole rows holding at most E entries and at
 * most HCC_RMAX rows (CSR-like: a block is a row range). A row longer than E is split into pieces
 * of at most E entries, each piece a block of its own (a "split row", listed in srow; kernels
 * add pieces up atomically). Within a block, a row with more than H = max(64, E/32) entries is
 * heavy: heavy rows are stored after the light part, row by row, in ascending columns (their
 * sums stay in registers). The light rows' entries are stored ordered by (panel, row, column)
 * with panels of ceil(cols / Np) columns, and by (column, row) when Np = 0, the default
 * (kernels add their products into a per-block y in shared memory: the paper's intra-block
 * tiling, Sec. IV-B4; the 2-D partition's partial row sums never leave the chip). The light part is
 * split into G = 8 owner groups by row offset mod 8, and no row appears twice in one light
 * segment: a warp that owns a group adds its products into shared memory with plain stores,
 * without atomics and without races (rows of different groups differ; a segment's lanes hold
 * different rows). Packing takes, for each segment, the next entries in order whose rows are not
 * yet in it, looking at most 256 entries ahead.
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
 *                      nnz / 2500 clamped to 4096 .. 16384, a multiple of 32)
 *   param[6] = rmax    most rows of a block (<= HCC_RMAX)
 *   param[7] = G       owner groups of the light part: 1 (default) or 8 (option hcc_g). With G = 1 the light part is one group in column order,
 *                      rows may repeat within a segment, no demotion, light rows up to H.
 *   brow  I64[nblk]      first row of block b
 *   bnr   I32[nblk]      rows of block b (0..rmax), or -1: one piece of split row brow[b]
 *   bseg  I64[nblk + 1]  block b holds segments bseg[b] .. bseg[b+1] - 1
 *   lseg  I64[nblk*(G+1)] lseg[(G+1)b + g], g < G: first segment of owner group g's light part
 *                        (rows with row offset mod G = g); lseg[(G+1)b + G]: first heavy segment;
 *                        lseg[(G+1)b] = bseg[b], non-decreasing, lseg[(G+1)b + G] <= bseg[b + 1]
 *   sbase I32[nseg]      base column of each segment; in the heavy part, -1 - r marks a
 *                        single-row segment of row offset r whose words are plain columns
 *   word  U32[nseg * 32] packed slot, as above (heavy multi-row segments: rows non-decreasing,
 *                        padding last, base the smallest column; a heavy segment is multi-row
 *                        when at least 24 entries span less than 2^20 columns, else single-row)
 *   val   vt[nseg * 32]  slot values
 *   srow  I64[nsplit]    the split rows, ascending
 * Blocks cover rows 0 .. rows-1 in order: a block of r rows starts where the previous one
 * ended, the pieces of a split row are consecutive blocks at that row. Every row's entries, in
 * storage order, have strictly ascending columns (to_csr needs no sort; the validator checks). */
#include <stdlib.h>
#include <string.h>
#include "fmt_parts.h"
#include "fmt_values.h"
#include "rvs_omp.h"

#define HCC_S 32
#define HCC_CB 20
#define HCC_CMASK ((1u << HCC_CB) - 1u)
#define HCC_RMAX 4095
#define HCC_PAD 0xFFFFFFFFu
#define HCC_MAX_E (1 << 20)
#define HCC_G 8
#define HCC_MAX_NP RVS_HCC_MAX_NP
#define HCC_LOOK 256

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

/* Owner groups of the light part by default: 1 (one group in column order, shared-memory
 * atomics). G = 8 (option hcc_g) avoids f64 shared atomics but moves most rows of skewed blocks
 * to the heavy part, which measured slower on stencils and R-MAT (bench/notes-gpu-kernels.md,
 * item 2), so it is a tunable for auto. */
static int hcc_groups(rvs_vtype vt)
{
    (void)vt;
    return 1;
}

/* Default entries per block: nnz / 2500 (a few thousand blocks, several waves of a large GPU),
 * within 4096 .. 16384 (large enough for columns to repeat within a block), a multiple of 32. */
static int64_t hcc_default_e(int64_t nnz)
{
    int64_t e = nnz / 2500;
    e = e < 4096 ? 4096 : e > 16384 ? 16384 : e;
    return (e + 31) / 32 * 32;
}

/* Heavy-row threshold of a block size. */
static int64_t hcc_heavy(int64_t e)
{
    return e / 32 > 64 ? e / 32 : 64;
}

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
 * ent, from A, which holds the rows from row0 on (entry positions are A's); *nlight gets the
 * count of the light part. */
static int64_t hcc_block_entries(const rvs_csr *A, int64_t row0, const hcc_blocks *B, int64_t b, int64_t piece,
                                 int64_t e, int64_t np, int G, hcc_ent *ent, int64_t *nlight)
{
    int64_t n = 0, r0 = B->brow[b], h = hcc_heavy(e);
    int64_t pw = np > 0 ? (A->cols + np - 1) / np : 1;
    const int64_t *rp = A->rowptr;
    if (B->bnr[b] < 0) {
        int64_t p0 = rp[r0 - row0] + piece * e, p1 = p0 + e < rp[r0 - row0 + 1] ? p0 + e : rp[r0 - row0 + 1];
        for (int64_t p = p0; p < p1; p++, n++)
            ent[n] = (hcc_ent){(uint64_t)A->colind[p], p, 0, A->colind[p]};
        *nlight = 0;
        return n;
    }
    /* light rows: at most h entries, and few enough that 8 owner groups of 32-lane segments
     * with each row once per segment fill up: about a 384th of the light entries */
    int64_t nl0 = 0;
    for (int64_t i = r0 - row0; i < r0 - row0 + B->bnr[b]; i++)
        nl0 += rp[i + 1] - rp[i] <= h ? rp[i + 1] - rp[i] : 0;
    if (G > 1) {
        h = nl0 / (G * HCC_S * 3 / 2) < h ? nl0 / (G * HCC_S * 3 / 2) : h;
        h = h < 2 ? 2 : h;
    }
    r0 -= row0; /* rows of A from here */
    for (int64_t i = r0; i < r0 + B->bnr[b]; i++) {
        if (rp[i + 1] - rp[i] > h)
            continue;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++, n++) {
            uint64_t c = (uint64_t)A->colind[p], ro = (uint64_t)(i - r0), g = ro % (uint64_t)G;
            uint64_t key = (g << 60) | (np > 0 ? ((c / (uint64_t)pw) << 43) | (ro << 31) | c : (c << 12) | ro);
            ent[n] = (hcc_ent){key, p, (int32_t)(i - r0), A->colind[p]};
        }
    }
    qsort(ent, (size_t)n, sizeof *ent, hcc_key_cmp);
    *nlight = n;
    for (int64_t i = r0; i < r0 + B->bnr[b]; i++)
        if (rp[i + 1] - rp[i] > h)
            for (int64_t p = rp[i]; p < rp[i + 1]; p++, n++)
                ent[n] = (hcc_ent){((uint64_t)(i - r0) << 31) | (uint64_t)A->colind[p], p, (int32_t)(i - r0),
                                   A->colind[p]};
    return n;
}

/* Pack the heavy entries ent[0..n) (row by row, ascending columns) from segment s. A segment is
 * either multi-row (sbase >= 0: up to 32 entries in order whose columns span less than 2^20,
 * base their smallest column, words as in the light part, padding at the end) when at least 24
 * entries fit, or else single-row (sbase = -1 - row offset: up to 32 entries of the next
 * entry's row, words the columns themselves). Arrays NULL: count only. Returns the segments. */
static int64_t hcc_pack(const rvs_csr *A, const hcc_ent *ent, int64_t n, int64_t s, uint32_t *word, int32_t *sbase,
                        char *val)
{
    size_t vs = rvs_vtype_size(A->vtype);
    int64_t segs = 0, k = 0;
    while (k < n) {
        int64_t lo = ent[k].col, hi = ent[k].col, m = 0;
        while (k + m < n && m < HCC_S) {
            int64_t c = ent[k + m].col, nlo = c < lo ? c : lo, nhi = c > hi ? c : hi;
            if (nhi - nlo > (int64_t)HCC_CMASK)
                break;
            lo = nlo, hi = nhi, m++;
        }
        const int multi = m >= 24 || k + m == n;
        if (!multi) { /* the head entry's row alone, full columns */
            m = 0;
            while (k + m < n && m < HCC_S && ent[k + m].roff == ent[k].roff)
                m++;
        }
        if (sbase)
            sbase[s + segs] = multi ? (int32_t)lo : -1 - ent[k].roff;
        for (int64_t l = 0; word && l < m; l++) {
            int64_t slot = (s + segs) * HCC_S + l;
            const hcc_ent *q = &ent[k + l];
            word[slot] = multi ? ((uint32_t)q->roff << HCC_CB) | (uint32_t)(q->col - lo) : (uint32_t)q->col;
            memcpy(val + (size_t)slot * vs, (const char *)A->values + (size_t)q->p * vs, vs);
        }
        k += m;
        segs++;
    }
    return segs;
}

/* Pack the light entries ent[0..n) of one owner group from segment s: each segment takes the
 * next unplaced entries (with dedupe: whose rows it does not hold yet) whose columns lie within
 * 2^20 above its base (the first entry it takes), scanning at most HCC_LOOK unplaced entries; a
 * row whose entry is passed over is closed for the rest of the segment, so every row keeps its
 * column order. used: n flags, zeroed here; mark: HCC_RMAX stamps, *stamp a counter, both kept by the
 * caller. Arrays NULL: count only. Returns the segments used. */
static int64_t hcc_pack_light(const rvs_csr *A, const hcc_ent *ent, int64_t n, int64_t s, int dedupe, uint8_t *used,
                              int64_t *mark, int64_t *stamp, uint32_t *word, int32_t *sbase, char *val)
{
    size_t vs = rvs_vtype_size(A->vtype);
    int64_t segs = 0, head = 0;
    memset(used, 0, (size_t)n);
    while (head < n) {
        const int64_t cur = 2 * ++*stamp; /* mark: cur = taken here, cur + 1 = passed over here */
        int32_t base = ent[head].col;
        int lane = 0, look = 0;
        for (int64_t k = head; k < n && lane < HCC_S && look < HCC_LOOK; k++) {
            if (used[k])
                continue;
            look++;
            const int32_t r = ent[k].roff;
            const int fits = ent[k].col >= base && (int64_t)ent[k].col - base <= (int64_t)HCC_CMASK;
            if (mark[r] == cur + 1 || (dedupe && mark[r] == cur) || !fits) {
                mark[r] = cur + 1;
                continue;
            }
            mark[r] = cur;
            used[k] = 1;
            if (word) {
                int64_t slot = (s + segs) * HCC_S + lane;
                word[slot] = ((uint32_t)r << HCC_CB) | (uint32_t)(ent[k].col - base);
                memcpy(val + (size_t)slot * vs, (const char *)A->values + (size_t)ent[k].p * vs, vs);
            }
            lane++;
        }
        if (sbase)
            sbase[s + segs] = base;
        segs++;
        while (head < n && used[head])
            head++;
    }
    return segs;
}

/* Segments of block b from A, which holds the rows from row0 on: the light part by owner group,
 * then the heavy part (fill: arrays not NULL; lseg of b set). An owner group whose packing would
 * fill less than 3/4 of its slots (few distinct rows: a segment cannot hold a row twice) joins
 * the heavy part, row by row. */
static int64_t hcc_block(const rvs_csr *A, int64_t row0, const hcc_blocks *B, int64_t b, int64_t piece, int64_t e,
                         int64_t np, int G, hcc_ent *ent, uint8_t *used, int64_t *mark, int64_t s0, int64_t *lseg,
                         uint32_t *word, int32_t *sbase, char *val)
{
    int64_t stamp = 0;
    for (int r = 0; r < HCC_RMAX; r++)
        mark[r] = 0;
    int64_t nl, n = hcc_block_entries(A, row0, B, b, piece, e, np, G, ent, &nl), s = s0, k = 0, kept = 0;
    int64_t first[HCC_G + 1];
    int demote[HCC_G] = {0}, any = 0;
    for (int g = 0; g < G && G > 1; g++) {
        int64_t k1 = k;
        while (k1 < nl && ent[k1].roff % G == g)
            k1++;
        int64_t segs = hcc_pack_light(A, ent + k, k1 - k, 0, 1, used, mark, &stamp, NULL, NULL, NULL);
        demote[g] = k1 > k && segs * HCC_S * 3 > (k1 - k) * 4;
        any |= demote[g];
        first[g] = k;
        k = k1;
    }
    first[HCC_G] = nl;
    if (any) { /* kept groups to the front, demoted ones to the heavy part, re-sorted by row */
        int64_t h = n;
        hcc_ent *tmp = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *tmp);
        if (!tmp)
            return -1;
        memcpy(tmp, ent, (size_t)nl * sizeof *tmp);
        for (int g = 0, out = 0; g < G; g++) {
            int64_t len = first[g + 1] - first[g];
            if (demote[g]) {
                for (int64_t q = first[g]; q < first[g + 1]; q++, h++) {
                    ent[h] = tmp[q];
                    ent[h].key = ((uint64_t)tmp[q].roff << 31) | (uint64_t)tmp[q].col;
                }
                first[g] = out;
                continue;
            }
            memcpy(ent + out, tmp + first[g], (size_t)len * sizeof *tmp);
            first[g] = out;
            out += (int)len;
            kept = out;
        }
        free(tmp);
        /* the heavy part (after the kept light entries) now spans kept .. kept + (n - kept) */
        memmove(ent + kept, ent + nl, (size_t)(h - nl) * sizeof *ent);
        n = kept + (h - nl);
        qsort(ent + kept, (size_t)(n - kept), sizeof *ent, hcc_key_cmp);
        nl = kept;
    }
    for (int g = 0, kk = 0; g < G; g++) {
        int64_t len = 0;
        if (!demote[g])
            while (kk + len < nl && ent[kk + len].roff % G == g)
                len++;
        if (lseg)
            lseg[b * (G + 1) + g] = s;
        s += hcc_pack_light(A, ent + kk, len, s, G > 1, used, mark, &stamp, word, sbase, val);
        kk += (int)len;
    }
    if (lseg)
        lseg[b * (G + 1) + G] = s;
    return s - s0 + hcc_pack(A, ent + nl, n - nl, s, word, sbase, val);
}

/* What HCC keeps between its steps: the blocks and their pieces, and the sizes they were cut by. */
typedef struct {
    hcc_blocks B;
    int64_t *piece; /* piece number of each block: 0 except for the later pieces of a split row */
    int64_t rows, e, np, G;
} hcc_state;

static void hcc_done(void *state)
{
    hcc_state *h = state;
    if (!h)
        return;
    free(h->B.brow);
    free(h->B.bnr);
    free(h->piece);
    free(h);
}

/* F started as HCC of A's lengths: the blocks cut (brow, bnr), their segments left to count. */
static rvs_status hcc_shape(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void **state, rvs_error *err)
{
    int64_t np = o && o->hcc_np > 0 ? o->hcc_np : 0, e, *brow;
    const int64_t G = o && o->hcc_g > 0 ? o->hcc_g : hcc_groups(A->vtype);
    int32_t *bnr;
    hcc_state *h;
    rvs_status st;
    if (A->colind64 || A->rows > RVS_COL32_MAX || A->cols > RVS_COL32_MAX)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "hcc: %lld x %lld does not fit 32-bit indices",
                        (long long)A->rows, (long long)A->cols);
    if (np > HCC_MAX_NP)
        return rvs_fail(err, RVS_ERR_ARG, "hcc: %lld panels, at most %d", (long long)np, HCC_MAX_NP);
    if (G != 1 && G != HCC_G)
        return rvs_fail(err, RVS_ERR_ARG, "hcc: %lld owner groups, want 1 or %d", (long long)G, HCC_G);
    if (o && o->admit_only)
        return RVS_OK; /* more than 2^31 segments would need more than 2^31 entries */
    e = o && o->hcc_nb > 0 ? (A->nnz + o->hcc_nb - 1) / o->hcc_nb : hcc_default_e(A->nnz);
    e = (e + 31) / 32 * 32;
    e = e < 32 ? 32 : e > HCC_MAX_E ? HCC_MAX_E : e;
    F->id = RVS_FMT_HCC;
    F->rows = A->rows;
    F->cols = A->cols;
    F->nnz = A->nnz;
    F->vtype = A->vtype;
    if (!(*state = h = calloc(1, sizeof *h)))
        return rvs_fail(err, RVS_ERR_NOMEM, "hcc: out of memory");
    h->rows = A->rows;
    h->e = e;
    h->np = np;
    h->G = G;
    if ((st = hcc_cut(&h->B, A, e, err)))
        return st;
    const hcc_blocks *B = &h->B;
    if (!(h->piece = calloc((size_t)B->n + 1, sizeof *h->piece)))
        return rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for %lld blocks", (long long)B->n);
    for (int64_t b = 1; b < B->n; b++)
        if (B->bnr[b] < 0 && B->bnr[b - 1] < 0 && B->brow[b] == B->brow[b - 1])
            h->piece[b] = h->piece[b - 1] + 1;
    if ((st = rvs_fmt_add_array(F, "brow", RVS_DT_I64, B->n, (void **)&brow, err)) ||
        (st = rvs_fmt_add_array(F, "bnr", RVS_DT_I32, B->n, (void **)&bnr, err)) ||
        (st = rvs_fmt_add_array(F, "bseg", RVS_DT_I64, B->n + 1, NULL, err)) ||
        (st = rvs_fmt_add_array(F, "lseg", RVS_DT_I64, B->n * (G + 1), NULL, err)))
        return st;
    memcpy(brow, B->brow, (size_t)B->n * sizeof *brow);
    memcpy(bnr, B->bnr, (size_t)B->n * sizeof *bnr);
    return RVS_OK;
}

/* A window may end where a block starts (a split row's pieces stay together). */
static int64_t hcc_cut_at(const void *state, int64_t r)
{
    const hcc_state *h = state;
    const int64_t b = rvs_lower_bound_i64(h->B.brow, h->B.n, r);
    return b < h->B.n ? h->B.brow[b] : h->rows;
}

/* Segments of the window's blocks (fill: arrays not NULL, each block from its bseg): each thread
 * packs whole blocks with scratch of its own. */
static rvs_status hcc_window_blocks(rvs_fmt *F, const rvs_window *w, int fill, rvs_error *err)
{
    const hcc_state *h = w->state;
    const hcc_blocks *B = &h->B;
    const int64_t e = h->e, end = w->first + w->W->rows;
    const int64_t b0 = rvs_lower_bound_i64(B->brow, B->n, w->first);
    const int64_t b1 = end >= h->rows ? B->n : rvs_lower_bound_i64(B->brow, B->n, end);
    int64_t *bseg = rvs_fmt_array(F, "bseg")->data, *lseg = fill ? rvs_fmt_array(F, "lseg")->data : NULL;
    uint32_t *word = fill ? rvs_fmt_array(F, "word")->data : NULL;
    int32_t *sbase = fill ? rvs_fmt_array(F, "sbase")->data : NULL;
    char *val = fill ? rvs_fmt_array(F, "val")->data : NULL;
    const size_t vs = rvs_vtype_size(F->vtype);
    int ok = 1;
#pragma omp parallel reduction(&& : ok) if (w->W->nnz + w->W->rows > RVS_OMP_MIN_WORK)
    {
        hcc_ent *ent = malloc((size_t)e * 2 * sizeof *ent); /* room to move light groups after the heavy part */
        uint8_t *used = malloc((size_t)e);
        int64_t *mark = malloc(HCC_RMAX * sizeof *mark);
        ok = ent && used && mark;
#pragma omp for schedule(dynamic, 16)
        for (int64_t b = b0; b < b1; b++) {
            if (fill) { /* its slots empty: word HCC_PAD, value 0 */
                memset(word + bseg[b] * HCC_S, 0xff, (size_t)(bseg[b + 1] - bseg[b]) * HCC_S * sizeof *word);
                memset(val + (size_t)bseg[b] * HCC_S * vs, 0, (size_t)(bseg[b + 1] - bseg[b]) * HCC_S * vs);
            }
            int64_t segs = ok ? hcc_block(w->W, w->first, B, b, h->piece[b], e, h->np, (int)h->G, ent, used, mark,
                                          fill ? bseg[b] : 0, lseg, word, sbase, val)
                              : -1;
            ok = ok && segs >= 0;
            if (!fill)
                bseg[b + 1] = segs > 0 ? segs : 0;
        }
        free(ent);
        free(used);
        free(mark);
    }
    return ok ? RVS_OK : rvs_fail(err, RVS_ERR_NOMEM, "hcc: no memory for a block of %lld entries", (long long)e);
}

/* Count the segments of the window's blocks. */
static rvs_status hcc_count(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    return hcc_window_blocks(F, w, 0, err);
}

/* Segments counted: their arrays, the split rows and the params. */
static rvs_status hcc_sized(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, void *state, rvs_error *err)
{
    const hcc_state *h = state;
    const hcc_blocks *B = &h->B;
    int64_t *bseg = rvs_fmt_array(F, "bseg")->data, *srow;
    int32_t *sbase;
    uint32_t *word;
    void *val;
    rvs_status st;
    (void)o;
    for (int64_t b = 0; b < B->n; b++)
        bseg[b + 1] += bseg[b];
    int64_t nseg = bseg[B->n];
    if (nseg > INT64_MAX / 64)
        return rvs_fail(err, RVS_ERR_OVERFLOW, "hcc: %lld segments", (long long)nseg);
    /* the segments' arrays unset: the fill sets each block's slots empty before it packs them */
    if ((st = rvs_fmt_add_array_unset(F, "sbase", RVS_DT_I32, nseg, (void **)&sbase, err)) ||
        (st = rvs_fmt_add_array_unset(F, "word", RVS_DT_U32, nseg * HCC_S, (void **)&word, err)) ||
        (st = rvs_fmt_add_array_unset(F, "val", rvs_part_vdtype(A->vtype), nseg * HCC_S, &val, err)) ||
        (st = rvs_fmt_add_array(F, "srow", RVS_DT_I64, B->nsplit, (void **)&srow, err)))
        return st;
    int32_t rmax = 0;
    for (int64_t b = 0, k = 0; b < B->n; b++) {
        rmax = B->bnr[b] > rmax ? B->bnr[b] : rmax;
        if (B->bnr[b] < 0 && h->piece[b] == 0)
            srow[k++] = B->brow[b];
    }
    F->param[0] = h->np;
    F->param[1] = B->n;
    F->param[2] = HCC_S;
    F->param[3] = nseg;
    F->param[4] = B->nsplit;
    F->param[5] = h->e;
    F->param[6] = rmax > 0 ? rmax : 1;
    F->param[7] = h->G;
    return RVS_OK;
}

/* Pack the window's blocks into their segments. */
static rvs_status hcc_fill(rvs_fmt *F, const rvs_window *w, rvs_error *err)
{
    return hcc_window_blocks(F, w, 1, err);
}

const rvs_fmt_gather rvs_gather_hcc = {RVS_FMT_HCC, 0,         hcc_cut_at, hcc_shape, hcc_count,
                                       0,           hcc_sized, hcc_fill,   hcc_done};

/* F = A in HCC (options: hcc_np panels, hcc_nb wanted blocks). */
static rvs_status hcc_from_csr(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err)
{
    return rvs_gather_whole(&rvs_gather_hcc, F, A, o, err);
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
            for (int64_t slot = s * HCC_S; slot < (s + 1) * HCC_S; slot++) {
                const uint32_t w = word[slot];
                if (w == HCC_PAD)
                    continue;
                st = sbase[s] >= 0 ? fn(ctx, slot, brow[b] + (w >> HCC_CB), sbase[s] + (int32_t)(w & HCC_CMASK))
                                   : fn(ctx, slot, brow[b] - 1 - sbase[s], (int32_t)w);
                if (st)
                    return st;
            }
    return RVS_OK;
}

typedef struct {
    rvs_csr *A;
    int64_t *next; /* fill pass: next free position per row */
    int32_t *last; /* check pass: last column seen per row, -1 before the first */
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
        !rvs_vtype_valid(F->vtype))
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: bad size %lld x %lld, nnz %lld", (long long)F->rows,
                        (long long)F->cols, (long long)F->nnz);
    if (np < 0 || np > HCC_MAX_NP || (F->param[7] != 1 && F->param[7] != HCC_G) || nblk < 1 ||
        nblk > F->rows + F->nnz + 1 || F->param[2] != HCC_S || nseg < 0 || nseg > INT64_MAX / 64 || nsplit < 0 ||
        nsplit > F->rows || e < 32 || e > HCC_MAX_E || e % 32 || rmax < 1 || rmax > HCC_RMAX)
        return rvs_fail(err, RVS_ERR_FORMAT,
                        "hcc: bad params Np %lld blocks %lld S %lld segments %lld split %lld "
                        "E %lld rmax %lld G %lld",
                        (long long)np, (long long)nblk, (long long)F->param[2], (long long)nseg, (long long)nsplit,
                        (long long)e, (long long)rmax, (long long)F->param[7]);
    if ((st = rvs_fmt_require(F, "brow", RVS_DT_I64, nblk, NULL, err)) ||
        (st = rvs_fmt_require(F, "bnr", RVS_DT_I32, nblk, NULL, err)) ||
        (st = rvs_fmt_require(F, "bseg", RVS_DT_I64, nblk + 1, NULL, err)) ||
        (st = rvs_fmt_require(F, "lseg", RVS_DT_I64, nblk * (F->param[7] + 1), NULL, err)) ||
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
    const int G = (int)F->param[7];
    const int64_t *brow = rvs_fmt_array(F, "brow")->data, *bseg = rvs_fmt_array(F, "bseg")->data,
                  *lseg = rvs_fmt_array(F, "lseg")->data, *srow = rvs_fmt_array(F, "srow")->data;
    const int32_t *bnr = rvs_fmt_array(F, "bnr")->data, *sbase = rvs_fmt_array(F, "sbase")->data;
    const uint32_t *word = rvs_fmt_array(F, "word")->data;
    const rvs_array *va = rvs_fmt_array(F, "val");
    if (bseg[0] != 0 || bseg[nblk] != nseg)
        return rvs_fail(err, RVS_ERR_FORMAT, "hcc: bseg does not span the %lld segments", (long long)nseg);
    for (int64_t b = 0; b < nblk; b++) {
        int split = bnr[b] < 0, cont = split && b > 0 && bnr[b - 1] < 0 && brow[b - 1] == brow[b];
        const int64_t *l = lseg + b * (G + 1);
        int lbad = l[0] != bseg[b] || l[G] > bseg[b + 1] || (split && l[G] != bseg[b]);
        for (int g = 0; g < G; g++)
            lbad |= l[g + 1] < l[g];
        if (bnr[b] < -1 || bnr[b] > rmax || brow[b] != (cont ? row - 1 : row) || bseg[b + 1] < bseg[b] || lbad ||
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
#pragma omp parallel for schedule(dynamic, 64) reduction(max : bad) if (F->nnz + F->rows > RVS_OMP_MIN_WORK)
    for (int64_t b = 0; b < nblk; b++) {
        uint32_t nr = bnr[b] < 0 ? 1u : (uint32_t)bnr[b];
        const int64_t *l = lseg + b * (G + 1);
        for (int g = 0; g < G && G > 1; g++)
            for (int64_t s = l[g]; s < l[g + 1]; s++) /* light: owner g's rows, each at most once */
                for (int64_t slot = s * HCC_S; slot < (s + 1) * HCC_S; slot++) {
                    uint32_t w = word[slot];
                    int dup = 0;
                    for (int64_t q = s * HCC_S; q < slot; q++)
                        dup |= w != HCC_PAD && word[q] != HCC_PAD && word[q] >> HCC_CB == w >> HCC_CB;
                    if (dup || (w != HCC_PAD && (w >> HCC_CB) % (uint32_t)G != (uint32_t)g))
                        bad = slot > bad ? slot : bad;
                }
        for (int64_t s = bseg[b]; s < bseg[b + 1]; s++) {
            /* sbase >= 0: packed words from base sbase; < 0 (heavy part only): one row, plain columns.
             * A heavy multi-row segment has its rows non-decreasing and its padding at the end. */
            const int single = sbase[s] < 0, heavy = s >= l[G];
            if (single ? !heavy || -1 - (int64_t)sbase[s] >= nr : sbase[s] >= F->cols)
                bad = s * HCC_S > bad ? s * HCC_S : bad;
            int64_t last = -1;
            for (int64_t slot = s * HCC_S; slot < (s + 1) * HCC_S; slot++) {
                uint32_t w = word[slot];
                int pad_ok = w != HCC_PAD || rvs_val_is_zero(va->data, slot, F->vtype);
                int in = single ? (int64_t)w < F->cols
                                : (w >> HCC_CB) < nr && (int64_t)sbase[s] + (w & HCC_CMASK) < F->cols;
                int order_ok = single || !heavy ||
                               (w == HCC_PAD ? (last = INT64_MAX, 1)
                                             : last <= (int64_t)(w >> HCC_CB) && (last = w >> HCC_CB, 1));
                if (!pad_ok || !order_ok || (w != HCC_PAD && !in))
                    bad = slot > bad ? slot : bad;
            }
        }
    }
    if (bad >= 0)
        return rvs_fail(err, RVS_ERR_RANGE,
                        "hcc: slot %lld: row or column out of range, light row outside its owner group or twice "
                        "in a segment, or padding not zero",
                        (long long)bad);
    return RVS_OK;
}

/* Check params, arrays, blocks and slots, then every row's column order and the entry count. */
static rvs_status hcc_validate(const rvs_fmt *F, rvs_error *err)
{
    int64_t count;
    rvs_status st;
    if ((st = hcc_validate_shape(F, err)) || (st = hcc_validate_blocks(F, err)) ||
        (st = hcc_scan(F, NULL, &count, err)))
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
    s->bytes = nblk * (8 + 4 + 8 + 8 * (F->param[7] + 1)) + 8 + nseg * 4 +
               nseg * HCC_S * (4 + (int64_t)rvs_vtype_size(F->vtype)) + F->param[4] * 8;
    s->padded = nseg * HCC_S - F->nnz;
    s->n_iter = -1;
    s->n_p = -1;
}

const rvs_format_ops rvs_format_hcc = {RVS_FMT_HCC, "hcc", hcc_from_csr, hcc_to_csr, hcc_validate, hcc_stats, NULL};
