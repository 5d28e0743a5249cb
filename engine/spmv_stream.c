/* spmv_stream.c - GPU items the device budget does not hold: each is kept on the host as chunks
 * (row blocks of about the plan's chunk_nnz entries, each packed once into page-locked memory)
 * and streamed through two device slots on every call: chunk c is copied into slot c % 2 on
 * the copy stream while the kernel of chunk c - 1 runs on the compute stream; a slot is
 * refilled only once the kernel that read it has run (double buffering, events). The host
 * only queues: it is free for the CPU items while the chunks go through. */
#include <string.h>
#include "rvs_cpu.h"
#include "spmv_internal.h"

#define ALIGN 256 /* device arrays start where cudaMalloc would put them */

/* Bytes of F's arrays packed, each at an ALIGN boundary. */
static size_t packed_bytes(const rvs_fmt *F)
{
    size_t b = 0;
    for (int i = 0; i < F->narrays; i++)
        b = (b + (size_t)F->array[i].count * rvs_dtype_size(F->array[i].dtype) + ALIGN - 1) / ALIGN * ALIGN;
    return b;
}

static void pack(void *buf, const rvs_fmt *F);

/* K's arrays packed into page-locked memory (K->host), where every call copies them from at
 * full speed; K->F keeps their shapes, not their data (its own arrays are freed). */
static rvs_status pin(rvs_chunk *K, rvs_error *err)
{
    rvs_status st = rvs_gpu_host_alloc(&K->host, K->bytes, err);
    if (st != RVS_OK)
        return st;
    pack(K->host, &K->F);
    for (int i = 0; i < K->F.narrays; i++) {
        if (!(K->F.borrowed >> i & 1u))
            free(K->F.array[i].data);
        K->F.array[i].data = NULL;
    }
    K->F.borrowed = 0;
    return RVS_OK;
}

/* Chunk rows [r, end) of C into K, its first row within the item first; CSR of the hub's own
 * rows (borrow) takes the hub's arrays, C being the hub. */
static rvs_status build_chunk(rvs_chunk *K, const rvs_eitem *e, const rvs_csr *C, int borrow, int64_t r,
                              int64_t end, int64_t first, rvs_error *err)
{
    rvs_status st;
    memset(K, 0, sizeof *K);
    K->first = first;
    if (borrow) {
        st = rvs_fmt_csr_borrow(&K->F, C, r, end, err);
    } else {
        rvs_csr V;
        if ((st = rvs_csr_view_rows(&V, C, r, end, err)) != RVS_OK)
            return st;
        st = rvs_fmt_from_csr(&K->F, e->it->format, &V, &e->it->knobs.fo, err);
        rvs_csr_view_free(&V);
    }
    K->bytes = packed_bytes(&K->F);
    return st;
}

/* The end of the chunk of R's rows from r: at most chunk entries by the hub's row lengths (a
 * filtered row holds fewer), whole rows, one at least. */
static int64_t pick_within(const rvs_row_pick *R, int64_t r, int64_t chunk)
{
    const int64_t *rp = R->A->rowptr;
    int64_t n = 0, end = r;
    for (; end < R->n; end++) {
        const int64_t row = R->rows ? R->rows[end] : R->first + end, len = rp[row + 1] - rp[row];
        if (end > r && n + len > chunk)
            break;
        n += len;
    }
    return end;
}

/* Chunk rows [r, end) of R into K, gathered from the hub in windows straight into the format. */
static rvs_status gather_chunk(rvs_chunk *K, const rvs_eitem *e, const rvs_row_pick *R, int64_t r, int64_t end,
                               rvs_error *err)
{
    rvs_row_pick Q = *R;
    memset(K, 0, sizeof *K);
    K->first = r;
    Q.rows = R->rows ? R->rows + r : NULL;
    Q.first = R->rows ? 0 : R->first + r;
    Q.n = end - r;
    rvs_status st = rvs_fmt_from_rows(&K->F, e->it->format, &Q, &e->it->knobs.fo, RVS_ROW_BLOCK_NNZ, err);
    K->bytes = packed_bytes(&K->F);
    return st;
}

/* Room for one more chunk in e->chunks. */
static rvs_status grow_chunks(rvs_eitem *e, int *cap, rvs_error *err)
{
    if (e->nchunks < *cap)
        return RVS_OK;
    int n = *cap ? 2 * *cap : 16;
    rvs_chunk *g = realloc(e->chunks, (size_t)n * sizeof *g);
    if (!g)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for the chunks of a streamed item");
    e->chunks = g;
    *cap = n;
    return RVS_OK;
}

rvs_status rvs_chunks_build(rvs_eitem *e, const rvs_stream *S, rvs_vtype vt, int consume, rvs_hub_count *taken,
                            rvs_error *err)
{
    const rvs_plan_item *it = e->it;
    const rvs_item_src src = rvs_item_source(S, it, vt);
    const double per_entry = it->nnz > 0 && it->dev_bytes > 0 ? it->dev_bytes / (double)it->nnz : 16;
    const int64_t chunk = it->chunk_nnz > 0 ? it->chunk_nnz : 1;
    const double limit = 1.25 * per_entry * (double)chunk + 4096; /* the slot the plan allowed */
    const int borrow = src == RVS_SRC_BORROWED;
    int64_t lo = 0, hi = 0;
    const int run = rvs_item_run(S, it, &lo, &hi);
    rvs_csr C = {0};
    const rvs_csr *A = &S->A; /* borrowed chunks: hub rows lo..hi */
    int view = 0, cap = 0;
    rvs_row_pick R;
    rvs_status st = RVS_OK;
    const int64_t x = S->A.cols * (int64_t)rvs_vtype_size(vt); /* what each chunk's bytes count of x */
    e->bytes = S->A.rows ? (int64_t)((double)x * (double)it->rows / (double)S->A.rows) : 0;
    if (src == RVS_SRC_BLOCK && consume) /* the stream's block of the part is not the one run */
        rvs_fmt_release((rvs_fmt *)rvs_stream_block(S, it->parts[0]));
    /* rows scattered, filtered or in another type: gathered chunk by chunk from the hub, so that
     * no copy of the item stands beside the hub and the chunks (else a view, or the hub itself) */
    const int gather = !borrow && rvs_item_gathered(&R, e, S, vt);
    if (gather) {
        lo = 0;
        hi = R.n;
    } else if (!borrow) {
        if ((st = rvs_item_csr(&C, &A, &view, e, S, vt, err)) != RVS_OK)
            return st;
        lo = 0;
        hi = A->rows;
    }
    for (int64_t r = lo; st == RVS_OK && (r < hi || e->nchunks == 0);) { /* an empty item: one empty chunk */
        int64_t end = r >= hi ? hi : gather ? pick_within(&R, r, chunk) : rvs_rows_within(A, r, hi, chunk);
        if ((st = grow_chunks(e, &cap, err)) != RVS_OK)
            break;
        rvs_chunk *K = &e->chunks[e->nchunks];
        /* uneven padding may make a chunk larger than the model said: halve it until it fits */
        while ((st = gather ? gather_chunk(K, e, &R, r, end, err)
                            : build_chunk(K, e, A, borrow, r, end, r - lo, err)) == RVS_OK &&
               (double)K->bytes > limit && end - r > 1) {
            rvs_fmt_free(&K->F);
            end = r + (end - r) / 2;
        }
        if (st == RVS_OK)
            e->bytes += rvs_spmv_bytes(&K->F) - x;
        if (st == RVS_OK && (st = pin(K, err)) != RVS_OK)
            rvs_fmt_free(&K->F);
        if (st != RVS_OK)
            break;
        e->nchunks++;
        if (consume && run && end > r) { /* these hub rows are in the chunk now (borrowed ones too) */
            const int64_t a = borrow ? r : e->base + r, b = borrow ? end : e->base + end;
            rvs_csr_release_entries((rvs_csr *)&S->A, S->A.rowptr[a], S->A.rowptr[b]);
        }
        for (int64_t i = r; consume && taken && gather && R.rows && R.filter == 0 && i < end; i++)
            rvs_hub_count_take(taken, R.rows[i]); /* scattered rows: their pages once all are in chunks */
        r = end;
    }
    rvs_item_csr_free(&C, view);
    return st;
}

rvs_status rvs_chunks_prepare(rvs_spmv_engine *E, rvs_error *err)
{
    rvs_status st = RVS_OK;
    E->slot_bytes = 0;
    for (int i = 0; i < E->n; i++)
        for (int k = 0; k < E->items[i].nchunks; k++)
            if (E->items[i].chunks[k].bytes > E->slot_bytes)
                E->slot_bytes = E->items[i].chunks[k].bytes;
    E->slot_bytes = E->slot_bytes ? E->slot_bytes : ALIGN;
    for (int s = 0; s < 2 && st == RVS_OK; s++)
        if ((st = rvs_gpu_malloc(&E->slot[s], E->slot_bytes, err)) == RVS_OK &&
            (st = rvs_gpu_event_create(&E->copied[s], err)) == RVS_OK)
            st = rvs_gpu_event_create(&E->freed[s], err);
    if (st == RVS_OK && (st = rvs_gpu_stream_create(&E->copy_s, err)) == RVS_OK &&
        (st = rvs_gpu_stream_create(&E->comp_s, err)) == RVS_OK &&
        (st = rvs_gpu_event_create(&E->after, err)) == RVS_OK)
        st = rvs_gpu_event_create(&E->sdone, err);
    for (int i = 0; i < E->n && st == RVS_OK; i++) { /* each streamed item's row map, for all its chunks */
        rvs_eitem *e = &E->items[i];
        if (!e->chunks)
            continue;
        e->G.rows = e->it->rows;
        e->G.vtype = E->vt;
        if (e->rows)
            st = rvs_gpu_set_rows(&e->G, e->rows, e->it->phase, err);
        else
            e->G.ymap.base = e->base, e->G.ymap.accumulate = e->it->phase;
    }
    return st;
}

/* Copy the arrays of F into buf, each at an ALIGN boundary (threads share the large ones). */
static void pack(void *buf, const rvs_fmt *F)
{
    size_t at = 0;
    for (int i = 0; i < F->narrays; i++) {
        const size_t n = (size_t)F->array[i].count * rvs_dtype_size(F->array[i].dtype), piece = (size_t)1 << 20;
        const char *src = F->array[i].data;
        char *dst = (char *)buf + at;
#pragma omp parallel for schedule(static) if (n > 4 * piece)
        for (size_t p = 0; p < n; p += piece)
            memcpy(dst + p, src + p, n - p < piece ? n - p : piece);
        at = (at + n + ALIGN - 1) / ALIGN * ALIGN;
    }
}

/* G = chunk K of item e as it lies in device slot d, with e's row map moved to its first row. */
static void place(rvs_gpu_fmt *G, const rvs_eitem *e, const rvs_chunk *K, void *d)
{
    size_t at = 0;
    memset(G, 0, sizeof *G);
    G->id = K->F.id;
    G->rows = K->F.rows;
    G->cols = K->F.cols;
    G->nnz = K->F.nnz;
    G->vtype = K->F.vtype;
    memcpy(G->param, K->F.param, sizeof G->param);
    G->narrays = K->F.narrays;
    for (int i = 0; i < K->F.narrays; i++) {
        const size_t n = (size_t)K->F.array[i].count * rvs_dtype_size(K->F.array[i].dtype);
        G->array[i] = K->F.array[i];
        G->array[i].data = n ? (char *)d + at : NULL;
        at = (at + n + ALIGN - 1) / ALIGN * ALIGN;
    }
    G->ymap = e->G.ymap;
    if (G->ymap.map)
        G->ymap.map = (const char *)G->ymap.map + (size_t)K->first * (G->ymap.map64 ? 8 : 4);
    else
        G->ymap.base += K->first;
}

/* Queue chunk K of e through slot s: copied from its page-locked pack, multiplied. */
static rvs_status queue_chunk(rvs_spmv_engine *E, const rvs_eitem *e, const rvs_chunk *K, int s, rvs_error *err)
{
    rvs_gpu_fmt G;
    rvs_status st;
    place(&G, e, K, E->slot[s]);
    if ((st = rvs_gpu_stream_wait(E->copy_s, E->freed[s], err)) || /* slot s: its last kernel ran */
        (st = rvs_gpu_memcpy_h2d_async(E->slot[s], K->host, K->bytes, E->copy_s, err)) ||
        (st = rvs_gpu_event_record(E->copied[s], E->copy_s, err)) ||
        (st = rvs_gpu_stream_wait(E->comp_s, E->copied[s], err)) ||
        (st = rvs_gpu_spmv(&G, E->dx, E->dy, &e->it->knobs.tune, E->comp_s, err)))
        return st;
    return rvs_gpu_event_record(E->freed[s], E->comp_s, err);
}

rvs_status rvs_chunks_run(rvs_spmv_engine *E, int only, void *after, rvs_error *err)
{
    rvs_status st = rvs_gpu_stream_wait(E->comp_s, after, err); /* x is there, resident items ran */
    int c = 0;
    for (int phase = 0; phase < 2 && st == RVS_OK; phase++) /* stores before additions */
        for (int i = 0; i < E->n && st == RVS_OK; i++) {
            const rvs_eitem *e = &E->items[i];
            if (!e->chunks || e->it->phase != phase || (only >= 0 && i != only))
                continue;
            for (int k = 0; k < e->nchunks && st == RVS_OK; k++, c++)
                st = queue_chunk(E, e, &e->chunks[k], c & 1, err);
        }
    if (st == RVS_OK && (st = rvs_gpu_event_record(E->sdone, E->comp_s, err)) == RVS_OK)
        st = rvs_gpu_stream_wait(E->s0, E->sdone, err);
    return st;
}

void rvs_chunks_free(rvs_spmv_engine *E)
{
    for (int i = 0; i < E->n; i++) {
        for (int k = 0; k < E->items[i].nchunks; k++) {
            rvs_gpu_host_free(E->items[i].chunks[k].host);
            rvs_fmt_free(&E->items[i].chunks[k].F);
        }
        free(E->items[i].chunks);
    }
    for (int s = 0; s < 2; s++) {
        rvs_gpu_free(E->slot[s]);
        rvs_gpu_event_destroy(E->copied[s]);
        rvs_gpu_event_destroy(E->freed[s]);
    }
    rvs_gpu_stream_destroy(E->copy_s);
    rvs_gpu_stream_destroy(E->comp_s);
    rvs_gpu_event_destroy(E->after);
    rvs_gpu_event_destroy(E->sdone);
}
