/* spgemm_gpu.cu - hySpMM (Wu, "Optimizing Sparse Matrix-Matrix Multiplication on a Heterogeneous
 * CPU-GPU Platform", thesis, Georgia State University, 2015, Sec. 3) on the device, the paper's
 * host-expanded method (spgemm --method hyspmm; the default GPU method is the row-wise one of
 * spgemm_device.cu): the CPU pre-processes a block of rows (repeat_A and the duplicated B, sized
 * exactly from B's row lengths) into pinned buffers; the device does the element-wise
 * multiplication, the per-row (partial) one-key sort and the compression; blocks are sized from a
 * memory budget (Eq. 3-5) and pipelined.
 *
 * Pipeline: S slots (default 3), each with its own CUDA stream, device arena, pinned host arena
 * and scratch. Block b goes to slot b mod S: the host first harvests that slot's previous
 * block (b - S, the oldest in flight), then pre-processes block b while the streams of blocks
 * b-1 and b-2 copy and multiply, then queues block b's copies and kernels. So pre-processing
 * of block i+1, the transfer of block i and the multiplication of block i-1 overlap.
 *
 * Memory (Eq. 3-5 with exact counts): M is the budget (--gpu-mem, else free device memory);
 * 0.9 M is divided among the S slots (Eq. 5 with np = S); a slot holds its block's
 * entries * (12 + v) + products * (12 + 2 v) + (rows + 1) * 32 bytes (v = value size: repeat,
 * offsets, A values; column keys and values double-buffered for the sort, run ids; row
 * offsets and counts, CUB's per-segment scratch) plus CUB scratch, and at least 64 KiB. A row
 * whose products alone exceed a slot goes to the CPU fallback.
 *
 * Stages (laps of one stopwatch, adding up to the whole): set-up is the slots' buffers made
 * and freed; pre the product counts, the plan and the host's pre-processing; multiply the
 * host waiting for a block's device work (and rows on the CPU); transfer copying a block of C
 * back; compress appending it to C. The device's own time is t_kernel. */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include "gpu_internal.cuh"
#include "../cpu/rvs_spgemm.h"

#define ARENA_ALIGN 256
#define DEFAULT_SLOTS 3
#define DEFAULT_BLOCK_PRODUCTS (1LL << 25)
#define MAX_BLOCK_PRODUCTS (1LL << 30) /* run ids are 32-bit */
#define MIN_BLOCK_BYTES (64 << 10)     /* a slot gets at least this much, whatever the budget */

/* ---- kernels ---------------------------------------------------------------------------- */

/* val[k] = a(owner(k)) * val[k]; owner found by binary search in the exclusive scan of
 * repeat_A (entries with repeat 0 are skipped by the search). */
template <typename V>
__global__ void multiply_kernel(const int64_t *__restrict__ aoff, int64_t na, const V *__restrict__ aval, V *val,
                                int64_t products)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < products;
         k += (int64_t)gridDim.x * blockDim.x) {
        int64_t lo = 0, hi = na;
        while (lo < hi) {
            int64_t mid = (lo + hi) >> 1;
            if (aoff[mid] <= k)
                lo = mid + 1;
            else
                hi = mid;
        }
        val[k] = aval[lo - 1] * val[k];
    }
}

/* flag[k] = 1 where a run of equal columns starts (within the sorted keys). */
__global__ void head_flags_kernel(const int32_t *__restrict__ key, int64_t products, int32_t *flag)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < products;
         k += (int64_t)gridDim.x * blockDim.x)
        flag[k] = (k == 0 || key[k] != key[k - 1]) ? 1 : 0;
}

/* A new row always starts a run (its first column may equal the last one of the row before). */
__global__ void row_heads_kernel(const int64_t *__restrict__ rowoff, int64_t rows, int32_t *flag)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x)
        if (rowoff[i] < rowoff[i + 1])
            flag[rowoff[i]] = 1;
}

/* Column of each run of C: col[id[k] - 1] = key[k] at run heads (id = inclusive scan). */
__global__ void run_cols_kernel(const int32_t *__restrict__ id, const int32_t *__restrict__ key, int64_t products,
                                int32_t *col)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < products;
         k += (int64_t)gridDim.x * blockDim.x)
        if (k == 0 || id[k] != id[k - 1])
            col[id[k] - 1] = key[k];
}

/* Entries of C per row: runs that end inside the row. */
__global__ void row_counts_kernel(const int64_t *__restrict__ rowoff, int64_t rows, const int32_t *__restrict__ id,
                                  int64_t *cnt)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t s = rowoff[i], e = rowoff[i + 1];
        cnt[i] = s == e ? 0 : (int64_t)id[e - 1] - (s > 0 ? (int64_t)id[s - 1] : 0);
    }
}

/* ---- one block's buffers ---------------------------------------------------------------- */

typedef struct { /* device side of a block, carved from a slot's arena */
    int32_t *repeat, *key0, *key1, *id;
    int64_t *aoff, *rowoff, *cnt, *nruns;
    void *aval, *val0, *val1;
} dev_bufs;

typedef struct { /* pinned host side: inputs, then the results come back into col / val */
    int32_t *repeat, *col;
    int64_t *rowoff, *cnt, *nruns;
    void *aval, *val;
} host_bufs;

typedef struct {
    cudaStream_t stream;
    cudaEvent_t ev[8];
    char *dmem, *hmem;
    void *temp;
    size_t temp_bytes;
    dev_bufs d;
    host_bufs h;
    int32_t *out_col; /* where the block's C columns / values ended on the device */
    void *out_val;
    int64_t block; /* block in flight, -1 when idle */
} slot;

static size_t align_up(size_t x)
{
    return (x + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

/* Next piece of an arena of bytes at *off (base NULL: just count). */
static void *take(char *base, size_t *off, size_t bytes)
{
    void *p = base ? base + *off : NULL;
    *off += align_up(bytes ? bytes : 1);
    return p;
}

/* Carve the device buffers of block b; returns the bytes used. */
static size_t carve_dev(dev_bufs *d, char *base, const rvs_spgemm_block *b, size_t vs)
{
    size_t off = 0, na = (size_t)b->entries, np = (size_t)b->products;
    size_t nr = (size_t)(b->r1 - b->r0);
    d->repeat = (int32_t *)take(base, &off, na * 4);
    d->aoff = (int64_t *)take(base, &off, na * 8);
    d->aval = take(base, &off, na * vs);
    d->rowoff = (int64_t *)take(base, &off, (nr + 1) * 8);
    d->cnt = (int64_t *)take(base, &off, nr * 8);
    d->nruns = (int64_t *)take(base, &off, 8);
    d->key0 = (int32_t *)take(base, &off, np * 4);
    d->key1 = (int32_t *)take(base, &off, np * 4);
    d->id = (int32_t *)take(base, &off, np * 4);
    d->val0 = take(base, &off, np * vs);
    d->val1 = take(base, &off, np * vs);
    return off;
}

/* Carve the pinned host buffers of block b; returns the bytes used. */
static size_t carve_host(host_bufs *h, char *base, const rvs_spgemm_block *b, size_t vs)
{
    size_t off = 0, na = (size_t)b->entries, np = (size_t)b->products;
    size_t nr = (size_t)(b->r1 - b->r0);
    h->repeat = (int32_t *)take(base, &off, na * 4);
    h->aval = take(base, &off, na * vs);
    h->rowoff = (int64_t *)take(base, &off, (nr + 1) * 8);
    h->cnt = (int64_t *)take(base, &off, nr * 8);
    h->nruns = (int64_t *)take(base, &off, 8);
    h->col = (int32_t *)take(base, &off, np * 4);
    h->val = take(base, &off, np * vs);
    return off;
}

/* ---- CUB scratch -------------------------------------------------------------------------- */

/* Scratch bytes CUB needs for a block of these sizes (largest of the four calls). */
template <typename V>
static cudaError_t cub_temp_bytes(int64_t products, int64_t entries, int64_t rows, size_t *bytes)
{
    size_t a = 0, b = 0, c = 0, d = 0;
    cub::DoubleBuffer<int32_t> kb(NULL, NULL);
    cub::DoubleBuffer<V> vb(NULL, NULL);
    cudaError_t e = cub::DeviceScan::ExclusiveScan(NULL, a, (const int32_t *)NULL, (int64_t *)NULL,
                                                   cuda::std::plus<int64_t>(), (int64_t)0, entries);
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedSort::SortPairs(NULL, b, kb, vb, products, rows, (const int64_t *)NULL,
                                                (const int64_t *)NULL);
    if (e == cudaSuccess)
        e = cub::DeviceScan::InclusiveSum(NULL, c, (int32_t *)NULL, (int32_t *)NULL, products);
    if (e == cudaSuccess)
        e = cub::DeviceReduce::ReduceByKey(NULL, d, (const int32_t *)NULL, (int32_t *)NULL, (const V *)NULL,
                                           (V *)NULL, (int64_t *)NULL, cuda::std::plus<V>(), products);
    *bytes = a > b ? a : b;
    *bytes = *bytes > c ? *bytes : c;
    *bytes = *bytes > d ? *bytes : d;
    return e;
}

static cudaError_t temp_bytes_for(rvs_vtype vt, int64_t products, int64_t entries, int64_t rows, size_t *bytes)
{
    return vt == RVS_F64 ? cub_temp_bytes<double>(products, entries, rows, bytes)
                         : cub_temp_bytes<float>(products, entries, rows, bytes);
}

/* ---- queueing one block ------------------------------------------------------------------- */

static unsigned grid_for(int64_t n)
{
    unsigned g = rvs_gpu_blocks(n, 256);
    return g > 65536u ? 65536u : g;
}

/* Queue block b of slot s: copies in, multiply, sort, compress, counts back. */
template <typename V>
static rvs_status queue_block(slot *s, const rvs_spgemm_block *b, rvs_error *err)
{
    cudaStream_t q = s->stream;
    const int64_t na = b->entries, np = b->products, nr = b->r1 - b->r0;
    const size_t vs = sizeof(V);
    size_t need = 0;
    rvs_status st = RVS_OK;
    cub::DoubleBuffer<int32_t> kb(s->d.key0, s->d.key1);
    cub::DoubleBuffer<V> vb((V *)s->d.val0, (V *)s->d.val1);
    RVS_CUDA_GO(cub_temp_bytes<V>(np, na, nr, &need));
    if (need > s->temp_bytes) { /* sizes were queried for the largest block; rarely needed */
        RVS_CUDA_GO(cudaStreamSynchronize(q));
        cudaFree(s->temp);
        s->temp = NULL;
        s->temp_bytes = 0;
        RVS_CUDA_GO(cudaMalloc(&s->temp, need));
        s->temp_bytes = need;
    }
    RVS_CUDA_GO(cudaEventRecord(s->ev[0], q));
    RVS_CUDA_GO(cudaMemcpyAsync(s->d.repeat, s->h.repeat, (size_t)na * 4, cudaMemcpyHostToDevice, q));
    RVS_CUDA_GO(cudaMemcpyAsync(s->d.aval, s->h.aval, (size_t)na * vs, cudaMemcpyHostToDevice, q));
    RVS_CUDA_GO(cudaMemcpyAsync(s->d.rowoff, s->h.rowoff, (size_t)(nr + 1) * 8, cudaMemcpyHostToDevice, q));
    RVS_CUDA_GO(cudaMemcpyAsync(s->d.key0, s->h.col, (size_t)np * 4, cudaMemcpyHostToDevice, q));
    RVS_CUDA_GO(cudaMemcpyAsync(s->d.val0, s->h.val, (size_t)np * vs, cudaMemcpyHostToDevice, q));
    RVS_CUDA_GO(cudaEventRecord(s->ev[1], q));
    {
        size_t tb = s->temp_bytes;
        RVS_CUDA_GO(cub::DeviceScan::ExclusiveScan(s->temp, tb, (const int32_t *)s->d.repeat, s->d.aoff,
                                                   cuda::std::plus<int64_t>(), (int64_t)0, na, q));
    }
    multiply_kernel<V><<<grid_for(np), 256, 0, q>>>(s->d.aoff, na, (const V *)s->d.aval, (V *)s->d.val0, np);
    RVS_CUDA_GO(cudaGetLastError());
    RVS_CUDA_GO(cudaEventRecord(s->ev[2], q));
    {
        size_t tb = s->temp_bytes;
        RVS_CUDA_GO(cub::DeviceSegmentedSort::SortPairs(s->temp, tb, kb, vb, np, nr, (const int64_t *)s->d.rowoff,
                                                        (const int64_t *)s->d.rowoff + 1, q));
    }
    RVS_CUDA_GO(cudaEventRecord(s->ev[3], q));
    {
        int32_t *kc = kb.Current(), *ka = kb.Alternate();
        V *vc = vb.Current(), *va = vb.Alternate();
        size_t tb = s->temp_bytes;
        head_flags_kernel<<<grid_for(np), 256, 0, q>>>(kc, np, s->d.id);
        row_heads_kernel<<<grid_for(nr), 256, 0, q>>>(s->d.rowoff, nr, s->d.id);
        RVS_CUDA_GO(cudaGetLastError());
        RVS_CUDA_GO(cub::DeviceScan::InclusiveSum(s->temp, tb, s->d.id, s->d.id, np, q));
        tb = s->temp_bytes;
        RVS_CUDA_GO(cub::DeviceReduce::ReduceByKey(s->temp, tb, (const int32_t *)s->d.id, ka, (const V *)vc, va,
                                                   s->d.nruns, cuda::std::plus<V>(), np, q));
        run_cols_kernel<<<grid_for(np), 256, 0, q>>>(s->d.id, kc, np, ka);
        row_counts_kernel<<<grid_for(nr), 256, 0, q>>>(s->d.rowoff, nr, s->d.id, s->d.cnt);
        RVS_CUDA_GO(cudaGetLastError());
        s->out_col = ka;
        s->out_val = va;
    }
    RVS_CUDA_GO(cudaEventRecord(s->ev[4], q));
    RVS_CUDA_GO(cudaMemcpyAsync(s->h.cnt, s->d.cnt, (size_t)nr * 8, cudaMemcpyDeviceToHost, q));
    RVS_CUDA_GO(cudaMemcpyAsync(s->h.nruns, s->d.nruns, 8, cudaMemcpyDeviceToHost, q));
    RVS_CUDA_GO(cudaEventRecord(s->ev[5], q));
done:
    return st;
}

/* ---- assembling C ------------------------------------------------------------------------- */

typedef struct { /* C grows block by block, in row order */
    rvs_csr *C;
    int64_t cap;
    size_t vs;
} c_builder;

/* Room for nnz entries in C. */
static rvs_status c_reserve(c_builder *cb, int64_t nnz, rvs_error *err)
{
    if (nnz <= cb->cap)
        return RVS_OK;
    int64_t nc = cb->cap > 0 ? cb->cap : 1024;
    while (nc < nnz)
        nc *= 2;
    int32_t *col = (int32_t *)realloc(cb->C->colind, (size_t)nc * 4);
    if (col)
        cb->C->colind = col;
    void *val = col ? realloc(cb->C->values, (size_t)nc * cb->vs) : NULL;
    if (!val)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory for C (%lld entries)", (long long)nnz);
    cb->C->values = val;
    cb->cap = nc;
    return RVS_OK;
}

/* Append rows [r0, r1) with counts cnt (NULL: all empty) and their entries col / val. */
static rvs_status c_append(c_builder *cb, int64_t r0, int64_t r1, const int64_t *cnt, const int32_t *col,
                           const void *val, int64_t n, rvs_error *err)
{
    int64_t *rp = cb->C->rowptr;
    for (int64_t i = r0; i < r1; i++)
        rp[i + 1] = rp[i] + (cnt ? cnt[i - r0] : 0);
    if (rp[r1] - rp[r0] != n)
        return rvs_fail(err, RVS_ERR_INTERNAL, "rows %lld..%lld: row counts add up to %lld, not %lld",
                        (long long)r0 + 1, (long long)r1, (long long)(rp[r1] - rp[r0]), (long long)n);
    rvs_status st = c_reserve(cb, rp[r1], err);
    if (st == RVS_OK && n > 0) {
        memcpy(cb->C->colind + rp[r0], col, (size_t)n * 4);
        memcpy((char *)cb->C->values + (size_t)rp[r0] * cb->vs, val, (size_t)n * cb->vs);
    }
    return st;
}

/* Elapsed milliseconds between two events, as seconds (0 if unavailable). */
static double event_s(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms * 1e-3 : 0;
}

/* The time since *last added to *stage. */
static void lap(double *last, double *stage)
{
    const double now = omp_get_wtime();
    *stage += now - *last;
    *last = now;
}

/* Wait for slot s's block, bring its part of C back and append it. */
static rvs_status harvest(slot *s, const rvs_spgemm_block *blocks, c_builder *cb, rvs_spgemm_stats *stats,
                          double *last, rvs_error *err)
{
    rvs_status st = RVS_OK;
    if (s->block < 0)
        return RVS_OK;
    const rvs_spgemm_block *b = &blocks[s->block];
    int64_t u = 0;
    if (b->products > 0) {
        RVS_CUDA_GO(cudaStreamSynchronize(s->stream));
        lap(last, &stats->t_multiply);
        u = *s->h.nruns;
        RVS_CUDA_GO(cudaMemcpyAsync(s->h.col, s->out_col, (size_t)u * 4, cudaMemcpyDeviceToHost, s->stream));
        RVS_CUDA_GO(cudaMemcpyAsync(s->h.val, s->out_val, (size_t)u * cb->vs, cudaMemcpyDeviceToHost, s->stream));
        RVS_CUDA_GO(cudaStreamSynchronize(s->stream));
        lap(last, &stats->t_transfer);
        stats->t_kernel += event_s(s->ev[1], s->ev[4]); /* multiply, sort, compress */
    }
    RVS_GO(c_append(cb, b->r0, b->r1, b->products > 0 ? s->h.cnt : NULL, s->h.col, s->h.val, u, err));
    lap(last, &stats->t_compress);
    s->block = -1;
done:
    return st;
}

/* Harvest every slot in flight, oldest block first. */
static rvs_status drain(slot *slots, int nslots, const rvs_spgemm_block *blocks, c_builder *cb,
                        rvs_spgemm_stats *stats, double *last, rvs_error *err)
{
    rvs_status st = RVS_OK;
    for (;;) {
        slot *oldest = NULL;
        for (int j = 0; j < nslots; j++)
            if (slots[j].block >= 0 && (!oldest || slots[j].block < oldest->block))
                oldest = &slots[j];
        if (!oldest)
            return RVS_OK;
        if ((st = harvest(oldest, blocks, cb, stats, last, err)) != RVS_OK)
            return st;
    }
}

/* Pre-process block b into slot s's pinned buffers (Alg. 2 plus A's values and row offsets). */
static void preprocess(slot *s, const rvs_spgemm_block *b, const rvs_csr *A, const rvs_csr *B,
                       const int64_t *prodptr)
{
    const size_t vs = rvs_vtype_size(A->vtype);
    rvs_spgemm_expand(A, B, prodptr, b->r0, b->r1, s->h.repeat, s->h.col, s->h.val);
    memcpy(s->h.aval, (const char *)A->values + (size_t)A->rowptr[b->r0] * vs, (size_t)b->entries * vs);
    for (int64_t i = b->r0; i <= b->r1; i++)
        s->h.rowoff[i - b->r0] = prodptr[i] - prodptr[b->r0];
}

/* A row too big for a slot: drain the pipeline (C is built in row order), compute it on the CPU. */
static rvs_status cpu_row(const rvs_spgemm_block *b, const rvs_csr *A, const rvs_csr *B,
                          rvs_spgemm_rows_fn fallback, c_builder *cb, rvs_spgemm_stats *stats, rvs_error *err)
{
    rvs_csr R;
    rvs_spgemm_stats rs;
    int64_t row = b->r0;
    memset(&rs, 0, sizeof rs);
    rvs_status st = fallback(&R, A, B, &row, 1, &rs, err);
    if (st == RVS_OK)
        st = c_append(cb, b->r0, b->r1, R.rowptr + 1, R.colind, R.values, R.nnz, err);
    stats->cpu_rows += 1;
    stats->rows_esc += rs.rows_esc;
    stats->rows_dense += rs.rows_dense;
    stats->rows_hash += rs.rows_hash;
    rvs_csr_free(&R);
    return st;
}

/* ---- set-up ------------------------------------------------------------------------------- */

/* Slot budget (Eq. 3-5) and the row blocks. */
static rvs_status plan_blocks(const rvs_csr *A, const int64_t *prodptr, const rvs_spgemm_options *o, int nslots,
                              rvs_spgemm_block **blocks, int64_t *nblocks, size_t *slot_bytes, rvs_error *err)
{
    rvs_status st = RVS_OK;
    size_t free_b = 0, total_b = 0, temp = 0, vs = rvs_vtype_size(A->vtype);
    rvs_spgemm_budget bud;
    RVS_CUDA_GO(cudaMemGetInfo(&free_b, &total_b));
    {
        size_t m = (o && o->gpu_mem_bytes) ? o->gpu_mem_bytes : free_b;
        if (m > free_b)
            m = free_b;
        *slot_bytes = (size_t)(0.9 * (double)m) / (size_t)nslots; /* Eq. 3 and 5 */
    }
    bud.bytes_per_entry = 12 + vs;
    bud.bytes_per_product = 12 + 2 * vs;
    bud.bytes_per_row = 16 + 16; /* row offsets and counts, and CUB's per-segment scratch */
    bud.max_products = (o && o->max_block_products > 0) ? o->max_block_products : DEFAULT_BLOCK_PRODUCTS;
    if (bud.max_products > MAX_BLOCK_PRODUCTS)
        bud.max_products = MAX_BLOCK_PRODUCTS;
    for (int pass = 0; pass < 2; pass++) { /* scratch depends on the block size: settle it */
        int64_t cap = (int64_t)(*slot_bytes / bud.bytes_per_product);
        if (cap > bud.max_products)
            cap = bud.max_products;
        RVS_CUDA_GO(temp_bytes_for(A->vtype, cap, cap, A->rows < cap ? A->rows : cap, &temp));
        temp = align_up(temp);
        size_t fixed = temp + 16 * ARENA_ALIGN;
        bud.budget_bytes = *slot_bytes > fixed + MIN_BLOCK_BYTES ? *slot_bytes - fixed : MIN_BLOCK_BYTES;
        if ((int64_t)(bud.budget_bytes / bud.bytes_per_product) < bud.max_products)
            bud.max_products = (int64_t)(bud.budget_bytes / bud.bytes_per_product);
        if (bud.max_products < 1)
            bud.max_products = 1;
    }
    st = rvs_spgemm_plan(A, prodptr, &bud, blocks, nblocks, err);
done:
    return st;
}

/* Streams, events and arenas for every slot, sized for the largest block. */
static rvs_status open_slots(slot *slots, int nslots, const rvs_spgemm_block *blocks, int64_t nblocks, rvs_vtype vt,
                             rvs_error *err)
{
    rvs_status st = RVS_OK;
    size_t dmax = 0, hmax = 0, tmax = 0, vs = rvs_vtype_size(vt);
    for (int64_t b = 0; b < nblocks; b++) {
        dev_bufs d;
        host_bufs h;
        size_t t = 0;
        if (blocks[b].too_big)
            continue;
        size_t db = carve_dev(&d, NULL, &blocks[b], vs), hb = carve_host(&h, NULL, &blocks[b], vs);
        RVS_CUDA_GO(temp_bytes_for(vt, blocks[b].products, blocks[b].entries, blocks[b].r1 - blocks[b].r0, &t));
        dmax = db > dmax ? db : dmax;
        hmax = hb > hmax ? hb : hmax;
        tmax = t > tmax ? t : tmax;
    }
    for (int j = 0; j < nslots; j++) {
        slot *s = &slots[j];
        RVS_CUDA_GO(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
        for (int e = 0; e < 8; e++)
            RVS_CUDA_GO(cudaEventCreate(&s->ev[e]));
        if (dmax == 0)
            continue;
        RVS_CUDA_GO(cudaMalloc((void **)&s->dmem, dmax));
        RVS_CUDA_GO(cudaMallocHost((void **)&s->hmem, hmax));
        RVS_CUDA_GO(cudaMalloc(&s->temp, tmax ? tmax : 1));
        s->temp_bytes = tmax ? tmax : 1;
    }
done:
    return st;
}

/* Release a slot's resources (safe on a zeroed slot). */
static void close_slot(slot *s)
{
    if (s->stream)
        cudaStreamSynchronize(s->stream);
    for (int e = 0; e < 8; e++)
        if (s->ev[e])
            cudaEventDestroy(s->ev[e]);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    cudaFree(s->dmem);
    cudaFree(s->temp);
    cudaFreeHost(s->hmem);
    memset(s, 0, sizeof *s);
}

/* ---- the pipeline ------------------------------------------------------------------------- */

/* C = A*B with hySpMM, pipelined over row blocks; too-big rows go to fallback. */
extern "C" rvs_status rvs_spgemm_gpu_pipeline(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                              const rvs_spgemm_options *o, rvs_spgemm_rows_fn fallback,
                                              rvs_spgemm_stats *stats, rvs_error *err)
{
    const double t0 = omp_get_wtime();
    const int nslots = (o && o->slots > 0) ? o->slots : DEFAULT_SLOTS;
    int64_t *prodptr = NULL, nblocks = 0;
    rvs_spgemm_block *blocks = NULL;
    slot *slots = NULL;
    rvs_spgemm_stats local;
    c_builder cb;
    size_t slot_bytes = 0, free0 = 0, free1 = 0, total_b = 0;
    double last = t0;
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    memset(C, 0, sizeof *C);
    if (st != RVS_OK)
        return st;
    rvs_spgemm_gpu_start_wait(); /* a start-up under way is set-up */
    if (rvs_gpu_count() == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable CUDA device");
    lap(&last, &stats->t_setup);
    prodptr = (int64_t *)malloc((size_t)(A->rows + 1) * sizeof *prodptr);
    slots = (slot *)calloc((size_t)nslots, sizeof *slots);
    if (!prodptr || !slots) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory in the GPU SpGEMM");
        goto done;
    }
    RVS_GO(rvs_spgemm_row_products(prodptr, A, B, err));
    RVS_GO(plan_blocks(A, prodptr, o, nslots, &blocks, &nblocks, &slot_bytes, err));
    lap(&last, &stats->t_pre);
    stats->products = prodptr[A->rows];
    stats->blocks = nblocks;
    stats->gpu_budget_bytes = slot_bytes;
    RVS_CUDA_GO(cudaMemGetInfo(&free0, &total_b));
    RVS_GO(open_slots(slots, nslots, blocks, nblocks, A->vtype, err));
    RVS_CUDA_GO(cudaMemGetInfo(&free1, &total_b));
    stats->gpu_peak_bytes = free0 > free1 ? free0 - free1 : 0;
    for (int j = 0; j < nslots; j++)
        slots[j].block = -1;
    lap(&last, &stats->t_setup);
    RVS_GO(rvs_csr_alloc(C, A->rows, B->cols, 0, A->vtype, err));
    cb.C = C;
    cb.cap = 0;
    cb.vs = rvs_vtype_size(A->vtype);
    lap(&last, &stats->t_compress);
    for (int64_t b = 0; b < nblocks; b++) {
        const rvs_spgemm_block *blk = &blocks[b];
        if (blk->too_big) {
            RVS_GO(drain(slots, nslots, blocks, &cb, stats, &last, err));
            RVS_GO(cpu_row(blk, A, B, fallback, &cb, stats, err));
            lap(&last, &stats->t_multiply);
            continue;
        }
        slot *s = &slots[b % nslots];
        RVS_GO(harvest(s, blocks, &cb, stats, &last, err));
        carve_dev(&s->d, s->dmem, blk, cb.vs);
        carve_host(&s->h, s->hmem, blk, cb.vs);
        preprocess(s, blk, A, B, prodptr);
        if (blk->products > 0)
            RVS_GO(A->vtype == RVS_F64 ? queue_block<double>(s, blk, err) : queue_block<float>(s, blk, err));
        s->block = b;
        lap(&last, &stats->t_pre);
    }
    RVS_GO(drain(slots, nslots, blocks, &cb, stats, &last, err));
    C->nnz = C->rowptr[A->rows];
    stats->nnz_c = C->nnz;
    stats->gpu_rows = A->rows - stats->cpu_rows;
done:
    for (int j = 0; slots && j < nslots; j++)
        close_slot(&slots[j]);
    if (st != RVS_OK)
        rvs_csr_free(C);
    free(slots);
    free(blocks);
    free(prodptr);
    lap(&last, &stats->t_setup); /* the slots' buffers freed */
    stats->t_total = last - t0;
    return st;
}
