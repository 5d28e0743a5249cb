/* spgemm_device.cu - C = A*B on the GPU, row-wise (the bins of spgemm_bins.cuh), from host CSR
 * to host CSR or to a sink.
 *
 * 0. The device is started once per process (context, streams, the kernels loaded), on a
 *    thread of its own when rvs_spgemm_gpu_start was called early; the call waits for it.
 * 1. A and B are packed into pinned memory by all threads and uploaded in one copy (once in
 *    all when B is A). One kernel gives every row's products, the span of columns its rows of
 *    B reach, a bound of its entries (min of the two) and its bin; a scan of the bounds places
 *    every row in a scratch. The host waits once for the bin counts and the bounds' total.
 * 2. One pass, when the scratch and C fit the budget: every bin's kernel writes its rows into
 *    the scratch and counts them, a scan of the counts gives C's row offsets, a compaction
 *    moves the rows into C on the device; the host waits a second time, for C's row offsets,
 *    then C comes back in pieces of rows, each copied into pinned staging while the host hands
 *    the previous one to C (all threads) or to the file.
 * 3. Otherwise, two passes: the symbolic kernels give nnz of every row of C and a device scan
 *    C's row offsets; rows the device cannot do (a long row when no dense scratch fits, a row
 *    of C larger than a block) are computed by the fallback on the host; the numeric pass runs
 *    in blocks of consecutive rows holding at most `cap` entries of C, cap sized to the work
 *    (about 8 blocks, 1M to 32M entries each, so that copying back overlaps computing) and to
 *    the budget (two device slots of cap entries). Three stages overlap: the device computes
 *    block k into slot k mod 2 while the copy engine brings block k-1 into pinned staging
 *    k-1 mod 3 and the host hands block k-2 to the sink or copies it into C.
 * Device memory comes from the stream-ordered pool, kept between calls; the pinned staging,
 * the dense scratch and the block hash's sums (zeroed once, left zero by the kernels) are kept
 * too, grown to the largest need, so that a warm call pays no set-up, as a created library
 * handle does; one call runs at a time. The report's stages are laps of one stopwatch
 * (sgd_lap), so that they add up to the whole. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <omp.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_reduce.cuh>
#include "spgemm_device.cuh"

dev_ctx g_ctx;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* The start-up thread: 0 none, 1 started (joined by rvs_spgemm_gpu_start_wait); what it
 * found: -1 not yet, 0 no GPU, 1 a GPU. */
static int g_start_state, g_start_found = -1;
static pthread_t g_start_thread;
static double g_start_t0, g_start_took;

/* ---- context, memory ------------------------------------------------------------------------ */

/* CUB's scan and reduction kernels run once on a few elements, so that they are loaded. */
static cudaError_t cub_warm(cudaStream_t s)
{
    int64_t *d = NULL;
    void *t = NULL;
    size_t need = 0;
    cudaError_t e = cudaMallocAsync((void **)&d, 4 * sizeof *d, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(d, 0, 4 * sizeof *d, s);
    for (int pass = 0; pass < 2 && e == cudaSuccess; pass++) { /* the sizes, then the runs */
        size_t b[3] = {need, need, need};
        e = cub::DeviceScan::InclusiveSum(t, b[0], d, d + 2, 2, s);
        if (e == cudaSuccess)
            e = cub::DeviceScan::ExclusiveSum(t, b[1], d, d + 2, 2, s);
        if (e == cudaSuccess)
            e = cub::DeviceReduce::Sum(t, b[2], d, (long long *)d + 3, 2, s);
        for (int q = 0; q < 3; q++)
            need = b[q] > need ? b[q] : need;
        if (pass == 0 && e == cudaSuccess)
            e = cudaMallocAsync(&t, need ? need : 1, s);
    }
    cudaFreeAsync(t, s);
    cudaFreeAsync(d, s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s);
    return e;
}

/* The context, streams, events, the pool's release threshold (memory kept between calls),
 * every kernel loaded. */
static rvs_status ctx_init(rvs_error *err)
{
    rvs_status st = RVS_OK;
    dev_ctx *c = &g_ctx;
    int dev = 0;
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    if (c->ready)
        return RVS_OK;
    RVS_CUDA_GO(cudaFree(0)); /* the context */
    RVS_CUDA_GO(cudaGetDevice(&dev));
    RVS_CUDA_GO(cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, dev));
    RVS_CUDA_GO(cudaDeviceGetDefaultMemPool(&pool, dev));
    RVS_CUDA_GO(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    RVS_CUDA_GO(cudaStreamCreateWithFlags(&c->comp, cudaStreamNonBlocking));
    RVS_CUDA_GO(cudaStreamCreateWithFlags(&c->copy, cudaStreamNonBlocking));
    RVS_CUDA_GO(cudaHostAlloc((void **)&c->hbins, SG_BIN_WORDS * 8, cudaHostAllocDefault));
    {
        cudaEvent_t *ev[] = {&c->up0, &c->up1, &c->sym0, &c->sym1};
        for (int q = 0; q < 4; q++)
            RVS_CUDA_GO(cudaEventCreate(ev[q]));
        for (int q = 0; q < 7; q++)
            RVS_CUDA_GO(cudaEventCreate(&c->tev[q]));
        for (int q = 0; q < DEV_STAGES; q++) {
            RVS_CUDA_GO(cudaEventCreate(&c->n0[q]));
            RVS_CUDA_GO(cudaEventCreate(&c->n1[q]));
            RVS_CUDA_GO(cudaEventCreate(&c->d0[q]));
            RVS_CUDA_GO(cudaEventCreate(&c->d1[q]));
        }
    }
    RVS_CUDA_GO(sg_preload());
    RVS_CUDA_GO(cub_warm(c->comp));
    c->ready = 1;
done:
    return st;
}

/* The start-up thread: the context and the rest, under the lock (a call waits for it). */
static void *start_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&g_lock);
    const int found = rvs_gpu_count() > 0;
    __atomic_store_n(&g_start_found, found, __ATOMIC_RELEASE);
    if (found)
        g_ctx.start_status = ctx_init(&g_ctx.start_err);
    g_start_took = omp_get_wtime() - g_start_t0;
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

extern "C" void rvs_spgemm_gpu_start(void)
{
    if (g_start_state || __atomic_load_n(&g_ctx.ready, __ATOMIC_ACQUIRE))
        return;
    g_start_t0 = omp_get_wtime();
    if (pthread_create(&g_start_thread, NULL, start_main, NULL) == 0)
        g_start_state = 1;
}

extern "C" double rvs_spgemm_gpu_start_left(double expected_s)
{
    if (__atomic_load_n(&g_ctx.ready, __ATOMIC_ACQUIRE))
        return 0;
    if (!g_start_state)
        return expected_s;
    const double left = expected_s - (omp_get_wtime() - g_start_t0);
    return left > 0 ? left : 0;
}

extern "C" int rvs_spgemm_gpu_present(void)
{
    if (__atomic_load_n(&g_ctx.ready, __ATOMIC_ACQUIRE))
        return 1;
    if (g_start_state == 1)
        return __atomic_load_n(&g_start_found, __ATOMIC_ACQUIRE) != 0;
    /* the driver's device node says so without starting the driver (0.1 s); else ask it */
    return access("/dev/nvidiactl", F_OK) == 0 || rvs_gpu_count() > 0;
}

extern "C" double rvs_spgemm_gpu_start_wait(void)
{
    if (g_start_state != 1)
        return 0;
    pthread_join(g_start_thread, NULL);
    g_start_state = 0;
    return g_start_took;
}

extern "C" void rvs_spgemm_gpu_release(void)
{
    dev_ctx *c = &g_ctx;
    rvs_spgemm_gpu_start_wait();
    pthread_mutex_lock(&g_lock);
    if (c->ready) {
        int dev = 0;
        cudaMemPool_t pool;
        cudaStreamSynchronize(c->comp);
        cudaStreamSynchronize(c->copy);
        cudaFreeHost(c->stage);
        cudaFreeHost(c->hbins);
        cudaFree(c->dense);
        cudaFree(c->hsum);
        cudaEvent_t ev[] = {c->up0, c->up1, c->sym0, c->sym1};
        for (int q = 0; q < 4; q++)
            cudaEventDestroy(ev[q]);
        for (int q = 0; q < 7; q++)
            cudaEventDestroy(c->tev[q]);
        for (int q = 0; q < DEV_STAGES; q++) {
            cudaEventDestroy(c->n0[q]);
            cudaEventDestroy(c->n1[q]);
            cudaEventDestroy(c->d0[q]);
            cudaEventDestroy(c->d1[q]);
        }
        cudaStreamDestroy(c->comp);
        cudaStreamDestroy(c->copy);
        if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess)
            cudaMemPoolTrimTo(pool, 0);
        memset(c, 0, sizeof *c);
    }
    pthread_mutex_unlock(&g_lock);
}

/* count * each bytes, or 0 with *ok cleared on overflow. */
static size_t bytes_of(int64_t count, size_t each, int *ok)
{
    size_t b;
    if (count < 0 || __builtin_mul_overflow((size_t)count, each, &b)) {
        *ok = 0;
        return 0;
    }
    return b;
}

/* A device array of bytes (at least 256) from the pool, freed with the call. */
rvs_status sgd_alloc(run_t *r, void *pp, size_t bytes)
{
    rvs_status st = RVS_OK;
    void **p = (void **)pp;
    if (r->dm.n == MAX_ALLOCS)
        return rvs_fail(r->err, RVS_ERR_INTERNAL, "too many device arrays");
    RUN_CUDA(cudaMallocAsync(p, bytes < 256 ? 256 : bytes, g_ctx.comp));
    r->dm.p[r->dm.n++] = *p;
    r->dm.bytes += bytes < 256 ? 256 : bytes;
done:
    return st;
}

/* The time since the last lap to *stage, less the one-time set-up inside it (to t_setup). */
void sgd_lap(run_t *r, double *stage)
{
    const double now = omp_get_wtime(), d = now - r->t_last;
    const double s = r->setup_pending < d ? r->setup_pending : d;
    r->t_last = now;
    r->stats->t_setup += s;
    *stage += d - s;
    r->setup_pending -= s;
}

/* An array of count elements of each bytes, copied from host (when src is not NULL). */
rvs_status sgd_array(run_t *r, void *pp, const void *src, int64_t count, size_t each)
{
    int ok = 1;
    size_t b = bytes_of(count, each, &ok);
    rvs_status st;
    if (!ok)
        return rvs_fail(r->err, RVS_ERR_OVERFLOW, "device array of %lld elements is too large", (long long)count);
    if ((st = sgd_alloc(r, pp, b)) == RVS_OK && src && b > 0) {
        cudaError_t e = cudaMemcpyAsync(*(void **)pp, src, b, cudaMemcpyHostToDevice, g_ctx.comp);
        if (e != cudaSuccess)
            st = rvs_fail(r->err, RVS_ERR_DEVICE, "copy to the device: %s", cudaGetErrorString(e));
    }
    return st;
}

/* Device memory the pool can give: free memory plus what it holds unused. */
static size_t dev_available(void)
{
    size_t fr = 0, tot = 0;
    uint64_t reserved = 0, used = 0;
    int dev = 0;
    cudaMemPool_t pool;
    if (cudaMemGetInfo(&fr, &tot) != cudaSuccess)
        return 0;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && reserved > used)
        fr += (size_t)(reserved - used);
    return fr;
}

/* Pinned staging of at least bytes, kept between calls. */
rvs_status sgd_stage_reserve(run_t *r, size_t bytes)
{
    rvs_status st = RVS_OK;
    dev_ctx *c = &g_ctx;
    const double t0 = omp_get_wtime();
    if (bytes <= c->stage_bytes)
        return RVS_OK;
    cudaFreeHost(c->stage);
    c->stage = NULL;
    c->stage_bytes = 0;
    RUN_CUDA(cudaHostAlloc(&c->stage, bytes, cudaHostAllocDefault));
    c->stage_bytes = bytes;
done:
    r->setup_pending += omp_get_wtime() - t0;
    return st;
}

/* Elapsed seconds between two completed events. */
double sgd_event_s(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    return cudaEventElapsedTime(&ms, a, b) == cudaSuccess ? ms * 1e-3 : 0;
}

/* ---- tracing ------------------------------------------------------------------------------- */

/* Trace: wait for the device, add the time since the last mark to step q. */
void sgd_trace_step(run_t *r, int q)
{
    if (!r->trace)
        return;
    cudaStreamSynchronize(g_ctx.comp);
    cudaStreamSynchronize(g_ctx.copy);
    const double now = omp_get_wtime();
    r->stats->t_trace[q] += now - r->t_mark;
    r->t_mark = now;
}

/* Trace: the kernels between tev[0..n] into steps q0.. */
void sgd_trace_kernels(run_t *r, int q0, int n)
{
    if (!r->trace)
        return;
    cudaStreamSynchronize(g_ctx.comp);
    for (int k = 0; k < n; k++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, r->tev[k], r->tev[k + 1]) == cudaSuccess)
            r->stats->t_trace[q0 + k] += ms * 1e-3;
    }
    r->t_mark = omp_get_wtime();
}

/* ---- phase 1: upload, products, symbolic ---------------------------------------------------- */

/* n bytes from src to dst, with every thread from 1 MiB on (first touches of fresh pages
 * fault in parallel too; below, waking the threads costs more than it saves). */
void sgd_copy_parallel(void *dst, const void *src, size_t n)
{
    const size_t piece = (size_t)1 << 18;
    if (n < 4 * piece) {
        memcpy(dst, src, n);
        return;
    }
    const int64_t np = (int64_t)((n + piece - 1) / piece);
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < np; q++) {
        const size_t off = (size_t)q * piece;
        memcpy((char *)dst + off, (const char *)src + off, n - off < piece ? n - off : piece);
    }
}

/* A and B packed into pinned staging (one device array, offsets 256-aligned) and uploaded in
 * one copy; the per-row arrays, the CUB scratch. Waits for the copy. */
static rvs_status upload(run_t *r)
{
    rvs_status st = RVS_OK;
    const rvs_csr *A = r->A, *B = r->B;
    sg_job *j = &r->j;
    const int64_t m = A->rows;
    const int nparts = B == A ? 3 : 6;
    const void *src[6] = {A->rowptr, A->colind, A->values, B->rowptr, B->colind, B->values};
    size_t len[6], off[7] = {0}, t1 = 0, t2 = 0, t3 = 0;
    char *dev = NULL;
    int ok = 1;
    len[0] = bytes_of(m + 1, 8, &ok);
    len[1] = bytes_of(A->nnz, 4, &ok);
    len[2] = bytes_of(A->nnz, r->vs, &ok);
    len[3] = bytes_of(B->rows + 1, 8, &ok);
    len[4] = bytes_of(B->nnz, 4, &ok);
    len[5] = bytes_of(B->nnz, r->vs, &ok);
    if (!ok)
        return rvs_fail(r->err, RVS_ERR_OVERFLOW, "A and B are too large for the device");
    for (int q = 0; q < nparts; q++)
        off[q + 1] = off[q] + ((len[q] + 255) & ~(size_t)255);
    j->m = m;
    j->cols = B->cols;
    j->b_rows = B->rows;
    j->b_nnz = B->nnz;
    j->vt = A->vtype;
    j->sms = g_ctx.sms;
    /* the staging also takes C's row offsets back after the symbolic pass */
    RVS_GO(sgd_stage_reserve(r, off[nparts] > len[0] ? off[nparts] : len[0]));
    RVS_GO(sgd_alloc(r, &dev, off[nparts]));
    for (int q = 0; q < nparts; q++)
        sgd_copy_parallel((char *)g_ctx.stage + off[q], src[q], len[q]);
    RUN_CUDA(cudaEventRecord(g_ctx.up0, g_ctx.comp));
    RUN_CUDA(cudaMemcpyAsync(dev, g_ctx.stage, off[nparts], cudaMemcpyHostToDevice, g_ctx.comp));
    RUN_CUDA(cudaEventRecord(g_ctx.up1, g_ctx.comp));
    j->arp = (const int64_t *)(dev + off[0]);
    j->acol = (const int32_t *)(dev + off[1]);
    j->aval = dev + off[2];
    j->brp = B == A ? j->arp : (const int64_t *)(dev + off[3]);
    j->bcol = B == A ? j->acol : (const int32_t *)(dev + off[4]);
    j->bval = B == A ? j->aval : dev + off[5];
    /* the per-row arrays and the CUB scratch in one allocation: one pool call, not a dozen */
    RUN_CUDA(cub::DeviceScan::InclusiveSum(NULL, t1, (int64_t *)NULL, (int64_t *)NULL, m, g_ctx.comp));
    RUN_CUDA(cub::DeviceReduce::Sum(NULL, t2, (int64_t *)NULL, (long long *)NULL, m, g_ctx.comp));
    RUN_CUDA(cub::DeviceScan::ExclusiveSum(NULL, t3, (int64_t *)NULL, (int64_t *)NULL, m + 1, g_ctx.comp));
    r->cub_bytes = t1 > t2 ? t1 : t2;
    r->cub_bytes = r->cub_bytes > t3 ? r->cub_bytes : t3;
    {
        const size_t per[11] = {(size_t)m * 8,       (size_t)m * 4,       (size_t)m * 4, (size_t)m * 8,
                                (size_t)(m + 1) * 8, (size_t)m,           (size_t)m * 8, SG_BIN_WORDS * 8,
                                (size_t)(m + 1) * 8, (size_t)(m + 1) * 8, r->cub_bytes};
        void **at[11] = {(void **)&j->prod, (void **)&j->lo,       (void **)&j->hi,   (void **)&j->cnt,
                         (void **)&j->crow, (void **)&j->bin,      (void **)&j->list, (void **)&j->bins,
                         (void **)&j->bnd,  (void **)&r->boff_dev, &r->cub_temp};
        size_t total = 0;
        char *base = NULL;
        for (int q = 0; q < 11; q++)
            total += (per[q] + 255) & ~(size_t)255;
        RVS_GO(sgd_alloc(r, &base, total));
        size_t o = 0;
        for (int q = 0; q < 11; q++) {
            *at[q] = base + o;
            o += (per[q] + 255) & ~(size_t)255;
        }
    }
    RUN_CUDA(cudaMemsetAsync(j->bins, 0, SG_BIN_WORDS * 8, g_ctx.comp));
    RUN_CUDA(cudaMemsetAsync(j->cnt, 0, (size_t)m * 8, g_ctx.comp)); /* rows left to the host */
    RUN_CUDA(cudaMemsetAsync(j->bnd + m, 0, 8, g_ctx.comp));
    RUN_CUDA(cudaStreamSynchronize(g_ctx.comp));
done:
    return st;
}

/* The work budget: C's slots and the dense scratch. */
static void work_budget(run_t *r)
{
    r->work = r->o && r->o->gpu_mem_bytes ? r->o->gpu_mem_bytes : (size_t)(0.9 * (double)dev_available());
}

/* Dense scratch for `rows` long rows: up to two slices per multiprocessor, within a quarter
 * of the budget, kept between calls (zeroed when it grows). j->dense_blocks gets the slices
 * available, 0 when not even one fits (the rows then go to the host). */
static rvs_status dense_reserve(run_t *r, int64_t rows)
{
    rvs_status st = RVS_OK;
    sg_job *j = &r->j;
    const size_t stride = sg_dense_stride(j->cols, j->vt);
    size_t n = stride ? r->work / 4 / stride : 0;
    if (rows <= (int64_t)j->dense_blocks)
        return RVS_OK;
    if (n > (size_t)(2 * j->sms))
        n = (size_t)(2 * j->sms);
    if (n > (size_t)rows)
        n = (size_t)rows;
    j->dense_stride = stride;
    if (n <= (size_t)j->dense_blocks)
        return RVS_OK;
    if (n * stride > g_ctx.dense_bytes) {
        const double t0 = omp_get_wtime();
        cudaFree(g_ctx.dense);
        g_ctx.dense = NULL;
        g_ctx.dense_bytes = 0;
        RUN_CUDA(cudaMalloc(&g_ctx.dense, n * stride));
        RUN_CUDA(cudaMemsetAsync(g_ctx.dense, 0, n * stride, g_ctx.comp));
        RUN_CUDA(cudaStreamSynchronize(g_ctx.comp));
        g_ctx.dense_bytes = n * stride;
        r->setup_pending += omp_get_wtime() - t0;
    }
    j->dense = g_ctx.dense;
    j->dense_blocks = (int)n;
done:
    return st;
}

/* Products, binning, (the dense scratch), the symbolic pass, C's row offsets into C->rowptr,
 * bins and the product total into r->hbins. Waits for the device twice. */
static rvs_status symbolic(run_t *r)
{
    rvs_status st = RVS_OK;
    sg_job *j = &r->j;
    const int64_t m = j->m;
    size_t tb = r->cub_bytes;
    RUN_CUDA(cudaEventRecord(g_ctx.sym0, g_ctx.comp));
    RUN_CUDA(sg_launch_products(j, r->A->nnz, g_ctx.comp));
    RUN_CUDA(cub::DeviceReduce::Sum(r->cub_temp, tb, j->prod, (long long *)(j->bins + SG_PRODUCTS), m, g_ctx.comp));
    RUN_CUDA(sg_launch_bins(j, 0, 0, m, g_ctx.comp));
    RUN_CUDA(cudaMemcpyAsync(r->hbins, j->bins, SG_BIN_WORDS * 8, cudaMemcpyDeviceToHost, g_ctx.comp));
    RUN_CUDA(cudaStreamSynchronize(g_ctx.comp));
    sgd_trace_step(r, 2);
    for (int b = 0; b < SG_BINS; b++)
        r->sym_n[b] = (int64_t)r->hbins[b];
    if (r->sym_n[SG_DENSE] > 0) /* long rows: without scratch they go to the host */
        RVS_GO(dense_reserve(r, r->sym_n[SG_DENSE]));
    if (r->trace)
        RUN_CUDA(cudaEventRecord(r->tev[0], g_ctx.comp));
    RUN_CUDA(sg_launch_symbolic(j, r->sym_n, r->trace ? r->tev : NULL, g_ctx.comp));
    sgd_trace_kernels(r, 3, 4);
    tb = r->cub_bytes;
    RUN_CUDA(cub::DeviceScan::InclusiveSum(r->cub_temp, tb, j->cnt, j->crow + 1, m, g_ctx.comp));
    RUN_CUDA(cudaMemsetAsync(j->crow, 0, 8, g_ctx.comp));
    RUN_CUDA(sg_launch_bins(j, 2, 0, m, g_ctx.comp)); /* which numeric kernels any block needs */
    RUN_CUDA(cudaEventRecord(g_ctx.sym1, g_ctx.comp));
    RUN_CUDA(cudaMemcpyAsync(g_ctx.stage, j->crow, (size_t)(m + 1) * 8, cudaMemcpyDeviceToHost, g_ctx.comp));
    RUN_CUDA(cudaMemcpyAsync(r->hbins, j->bins, SG_BIN_WORDS * 8, cudaMemcpyDeviceToHost, g_ctx.comp));
    RUN_CUDA(cudaStreamSynchronize(g_ctx.comp));
    sgd_copy_parallel(r->C->rowptr, g_ctx.stage, (size_t)(m + 1) * 8);
    for (int b = 0; b < SG_BINS; b++)
        r->num_n[b] = (int64_t)r->hbins[b];
    sgd_trace_step(r, 7);
done:
    return st;
}

/* ---- phase 2: rows for the host, blocks ----------------------------------------------------- */

/* Entries of C per block: about BLOCKS_WANTED blocks of BLOCK_MIN..MAX entries (all of C, up
 * to 16 BLOCK_MAX, with kernel_only), at least the longest row, within two device slots of the budget left by the
 * dense scratch. */
static int64_t block_cap(const run_t *r, int64_t nnz, int64_t longest)
{
    const size_t per = 4 + r->vs, dense = r->j.dense_stride * (size_t)r->j.dense_blocks;
    const int64_t room = r->work > dense ? (int64_t)((r->work - dense) / (DEV_SLOTS * per)) : 0;
    int64_t want = nnz <= 2 * BLOCK_MIN_ENTRIES ? nnz : (nnz + BLOCKS_WANTED - 1) / BLOCKS_WANTED;
    if (nnz > 2 * BLOCK_MIN_ENTRIES && want < BLOCK_MIN_ENTRIES)
        want = BLOCK_MIN_ENTRIES;
    if (want > BLOCK_MAX_ENTRIES)
        want = BLOCK_MAX_ENTRIES;
    if (r->o && r->o->kernel_only) /* nothing to overlap: C in one piece where it fits */
        want = nnz < 16 * BLOCK_MAX_ENTRIES ? nnz : 16 * BLOCK_MAX_ENTRIES;
    if (want < longest)
        want = longest;
    if (want > room)
        want = room;
    return want < 1 ? 1 : want;
}

/* 1 when row i of C (c entries) cannot be done on the device: longer than a block, or long
 * enough for the dense kernel while there is no dense scratch. */
static int for_host(const run_t *r, int64_t i, int64_t c)
{
    const int64_t alen = r->A->rowptr[i + 1] - r->A->rowptr[i];
    return c > r->cap || (r->j.dense_blocks == 0 && c > SG_NUM_BLOCK_MAX && alen != 1);
}

/* Rows the device leaves to the host: long rows of the symbolic pass when no dense scratch
 * fitted, and the rows for_host names. They are computed now; C->rowptr gets their counts
 * and goes back to the device with their flags. */
static rvs_status host_rows(run_t *r)
{
    rvs_status st = RVS_OK;
    const rvs_csr *A = r->A;
    const int64_t m = A->rows;
    const int64_t nsym = r->j.dense_blocks == 0 ? r->sym_n[SG_DENSE] : 0;
    int64_t *rp = r->C->rowptr, longest = 0, nlong = 0, nflag = 0, *sym = NULL;
    uint8_t *dflag = NULL;
#pragma omp parallel for schedule(static) reduction(max : longest) reduction(+ : nlong)
    for (int64_t i = 0; i < m; i++) {
        const int64_t c = rp[i + 1] - rp[i];
        longest = c > longest ? c : longest;
        nlong += c > SG_NUM_BLOCK_MAX && A->rowptr[i + 1] - A->rowptr[i] != 1;
    }
    if (nlong > 0)
        RVS_GO(dense_reserve(r, nlong));
    r->cap = block_cap(r, rp[m], longest);
#pragma omp parallel for schedule(static) reduction(+ : nflag)
    for (int64_t i = 0; i < m; i++)
        nflag += for_host(r, i, rp[i + 1] - rp[i]);
    if (nflag == 0 && nsym == 0)
        goto done;
    if (!(r->cpu_flag = (uint8_t *)calloc((size_t)m, 1)))
        goto nomem;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++)
        r->cpu_flag[i] = (uint8_t)for_host(r, i, rp[i + 1] - rp[i]);
    if (nsym > 0) {
        int64_t off = 0; /* the symbolic pass's list of long rows is still there */
        for (int q = 0; q < SG_DENSE; q++)
            off += r->sym_n[q];
        if (!(sym = (int64_t *)malloc((size_t)nsym * 8)))
            goto nomem;
        RUN_CUDA(cudaMemcpy(sym, r->j.list + off, (size_t)nsym * 8, cudaMemcpyDeviceToHost));
        for (int64_t q = 0; q < nsym; q++)
            r->cpu_flag[sym[q]] = 1;
    }
    for (int64_t i = 0; i < m; i++)
        r->ncpu += r->cpu_flag[i];
    if (!(r->cpu_rows = (int64_t *)malloc((size_t)r->ncpu * 8)))
        goto nomem;
    for (int64_t i = 0, n = 0; i < m; i++)
        if (r->cpu_flag[i])
            r->cpu_rows[n++] = i;
    if (!r->fallback) {
        st = rvs_fail(r->err, RVS_ERR_NOMEM, "%lld rows of C do not fit the device", (long long)r->ncpu);
        goto done;
    }
    {
        rvs_spgemm_stats fs;
        memset(&fs, 0, sizeof fs);
        sgd_lap(r, &r->stats->t_compress);
        st = r->fallback(&r->R, A, r->B, r->cpu_rows, r->ncpu, &fs, r->err);
        sgd_lap(r, &r->stats->t_multiply); /* the host's rows are multiplied, not planned */
        if (st != RVS_OK)
            goto done;
        r->stats->rows_esc += fs.rows_esc;
        r->stats->rows_dense += fs.rows_dense;
        r->stats->rows_hash += fs.rows_hash;
    }
    for (int64_t i = 0, q = 0, acc = 0; i < m; i++) { /* counts of host rows replace the device's */
        const int64_t c = r->cpu_flag[i] ? r->R.rowptr[q + 1] - r->R.rowptr[q] : rp[i + 1] - acc;
        q += r->cpu_flag[i];
        acc = rp[i + 1];
        rp[i + 1] = rp[i] + c;
    }
    RVS_GO(sgd_array(r, &dflag, r->cpu_flag, m, 1));
    r->j.cpu = dflag;
    RUN_CUDA(cudaMemcpyAsync(r->j.crow, rp, (size_t)(m + 1) * 8, cudaMemcpyHostToDevice, g_ctx.comp));
    goto done;
nomem:
    st = rvs_fail(r->err, RVS_ERR_NOMEM, "out of memory for host rows");
done:
    free(sym);
    return st;
}

/* ---- the call ---------------------------------------------------------------------------------- */

/* C with no entries (nothing to multiply): rowptr zero, handed to the sink when there is one. */
static rvs_status empty_result(rvs_csr *C, const rvs_csr *A, const rvs_csr *B, rvs_spgemm_sink *sink,
                               rvs_error *err)
{
    rvs_status st = rvs_csr_alloc(C, A->rows, B->cols, 0, A->vtype, err);
    if (st != RVS_OK || !sink)
        return st;
    free(C->colind);
    free(C->values);
    C->colind = NULL;
    C->values = NULL;
    if ((st = sink->begin(sink, C, err)) == RVS_OK && A->rows > 0)
        st = sink->rows(sink, C, 0, A->rows, NULL, NULL, err);
    return st;
}

/* ---- the one pass ------------------------------------------------------------------------------ */

/* Bytes the one pass needs on the device: the scratch and C, each of the bounds' total. */
static size_t onepass_bytes(const run_t *r, int64_t bounds, int *ok)
{
    size_t b = bytes_of(bounds, 2 * (4 + r->vs), ok);
    return *ok ? b : SIZE_MAX;
}

/* Products, span, bound and bin of every row, the scan of the bounds, counts back: waits for
 * the device once. r->onepass is set when the scratch and C fit the budget (and a dense
 * scratch for the long rows that need one); otherwise the two-pass method takes over. */
static rvs_status onepass_front(run_t *r)
{
    rvs_status st = RVS_OK;
    sg_job *j = &r->j;
    const int64_t m = j->m;
    const int passes = r->o ? r->o->passes : 0;
    size_t tb = r->cub_bytes, need;
    int ok = 1;
    RUN_CUDA(cudaEventRecord(g_ctx.sym0, g_ctx.comp));
    RUN_CUDA(sg1_launch_front(j, r->A->nnz, g_ctx.comp));
    RUN_CUDA(cub::DeviceScan::ExclusiveSum(r->cub_temp, tb, j->bnd, r->boff_dev, m + 1, g_ctx.comp));
    RUN_CUDA(cudaMemcpyAsync(j->bins + SG_BOUNDS, r->boff_dev + m, 8, cudaMemcpyDeviceToDevice, g_ctx.comp));
    RUN_CUDA(cudaMemcpyAsync(r->hbins, j->bins, SG_BIN_WORDS * 8, cudaMemcpyDeviceToHost, g_ctx.comp));
    RUN_CUDA(cudaStreamSynchronize(g_ctx.comp));
    sgd_trace_step(r, 2);
    for (int b = 0; b < SG_BINS; b++)
        r->one_n[b] = (int64_t)r->hbins[b];
    r->stats->products = (int64_t)r->hbins[SG_PRODUCTS];
    r->bound_total = (int64_t)r->hbins[SG_BOUNDS];
    need = onepass_bytes(r, r->bound_total, &ok);
    if (passes == 2 || !ok || need > r->work / 2 || (passes != 1 && need > ONEPASS_MAX_BYTES))
        goto done;
    if (r->one_n[SG_DENSE] > 0) { /* long rows without a dense scratch: two passes, host rows */
        RVS_GO(dense_reserve(r, r->one_n[SG_DENSE]));
        if (j->dense_blocks == 0)
            goto done;
    }
    r->onepass = 1;
    j->boff = r->boff_dev;
done:
    return st;
}

/* The numeric kernels into the scratch, C's row offsets, the compaction; C's row offsets into
 * C->rowptr. Waits for the device once. *ccol, *cval: C on the device. */
static rvs_status onepass_numeric(run_t *r, int32_t **ccol, void **cval)
{
    rvs_status st = RVS_OK;
    sg_job *j = &r->j;
    const int64_t m = j->m, n = r->bound_total;
    int32_t *scol = NULL;
    void *sval = NULL;
    size_t tb = r->cub_bytes;
    { /* the scratch and C in one allocation */
        int ok = 1;
        const size_t cb = (bytes_of(n, 4, &ok) + 255) & ~(size_t)255,
                     vb = (bytes_of(n, r->vs, &ok) + 255) & ~(size_t)255;
        char *base = NULL;
        if (!ok)
            return rvs_fail(r->err, RVS_ERR_OVERFLOW, "a scratch of %lld entries is too large", (long long)n);
        RVS_GO(sgd_alloc(r, &base, 2 * (cb + vb)));
        scol = (int32_t *)base;
        sval = base + cb;
        *ccol = (int32_t *)(base + cb + vb);
        *cval = base + 2 * cb + vb;
    }
    if (r->o && r->o->poison) { /* tests: whatever the kernels leave unwritten shows */
        RUN_CUDA(cudaMemsetAsync(scol, 0xff, (size_t)n * 4, g_ctx.comp));
        RUN_CUDA(cudaMemsetAsync(sval, 0xff, (size_t)n * r->vs, g_ctx.comp));
        RUN_CUDA(cudaMemsetAsync(*ccol, 0xff, (size_t)n * 4, g_ctx.comp));
        RUN_CUDA(cudaMemsetAsync(*cval, 0xff, (size_t)n * r->vs, g_ctx.comp));
    }
    sgd_trace_step(r, 10);
    if (r->trace)
        RUN_CUDA(cudaEventRecord(r->tev[0], g_ctx.comp));
    RUN_CUDA(sg1_launch_numeric(j, r->one_n, scol, sval, r->trace ? r->tev : NULL, g_ctx.comp));
    if (r->trace) {
        float ms = 0;
        sgd_trace_kernels(r, 11, 5);
        if (cudaEventElapsedTime(&ms, r->tev[5], r->tev[6]) == cudaSuccess)
            r->stats->t_trace[14] += ms * 1e-3; /* the shared-memory bins with the block hash */
    }
    RUN_CUDA(cub::DeviceScan::InclusiveSum(r->cub_temp, tb, j->cnt, j->crow + 1, m, g_ctx.comp));
    RUN_CUDA(cudaMemsetAsync(j->crow, 0, 8, g_ctx.comp));
    RUN_CUDA(sg1_launch_compact(j, n, scol, sval, *ccol, *cval, g_ctx.comp));
    RUN_CUDA(cudaEventRecord(g_ctx.sym1, g_ctx.comp));
    if (r->o && r->o->kernel_only) { /* C is on the device: the kernel's clock stops */
        RUN_CUDA(cudaEventSynchronize(g_ctx.sym1));
        r->stats->t_kernel = omp_get_wtime() - r->t_dev0;
    }
    RUN_CUDA(cudaMemcpyAsync(g_ctx.stage, j->crow, (size_t)(m + 1) * 8, cudaMemcpyDeviceToHost, g_ctx.comp));
    RUN_CUDA(cudaStreamSynchronize(g_ctx.comp));
    sgd_copy_parallel(r->C->rowptr, g_ctx.stage, (size_t)(m + 1) * 8);
    r->dev_s += sgd_event_s(g_ctx.sym0, g_ctx.sym1);
    sgd_trace_step(r, 7);
done:
    return st;
}

/* C's entry arrays (or the sink told C's shape; none with kernel_only), poisoned for tests. */
static rvs_status alloc_c(run_t *r)
{
    rvs_csr *C = r->C;
    rvs_status st = RVS_OK;
    C->nnz = C->rowptr[C->rows];
    if (r->sink || (r->o && r->o->kernel_only)) {
        free(C->colind);
        free(C->values);
        C->colind = NULL;
        C->values = NULL;
        if (r->sink)
            st = r->sink->begin(r->sink, C, r->err);
    } else if ((st = rvs_spgemm_alloc_entries(C, C->nnz, r->err)) == RVS_OK && r->o && r->o->poison) {
        memset(C->colind, 0xff, (size_t)C->nnz * 4);
        memset(C->values, 0xff, (size_t)C->nnz * r->vs);
    }
    sgd_trace_step(r, 9);
    return st;
}

/* C in one pass: numeric kernels, compaction, C back. */
static rvs_status onepass(run_t *r)
{
    rvs_status st = RVS_OK;
    rvs_spgemm_stats *s = r->stats;
    int32_t *ccol = NULL;
    void *cval = NULL;
    RVS_GO(onepass_numeric(r, &ccol, &cval));
    sgd_lap(r, &s->t_multiply);
    RVS_GO(alloc_c(r));
    sgd_lap(r, &s->t_compress);
    if (!(r->o && r->o->kernel_only))
        RVS_GO(sgd_copy_back(r, ccol, cval));
    s->rows_esc += r->one_n[SG_ESC] + r->one_n[SG_COPY];
    s->rows_hash += r->one_n[SG_WARP] + r->one_n[SG_H1] + r->one_n[SG_H2] + r->one_n[SG_H3];
    s->rows_dense += r->one_n[SG_DS1] + r->one_n[SG_DS2] + r->one_n[SG_DENSE];
    r->nblocks = 1;
    sgd_trace_step(r, 18);
done:
    return st;
}

/* C in two passes: symbolic pass, rows for the host, blocks of the numeric pass. */
static rvs_status twopass(run_t *r)
{
    rvs_status st = RVS_OK;
    rvs_spgemm_stats *s = r->stats;
    RVS_GO(symbolic(r));
    s->products = (int64_t)r->hbins[SG_PRODUCTS];
    r->dev_s += sgd_event_s(g_ctx.sym0, g_ctx.sym1);
    sgd_lap(r, &s->t_pre);
    RVS_GO(host_rows(r));
    sgd_trace_step(r, 8);
    RVS_GO(alloc_c(r));
    sgd_lap(r, &s->t_compress);
    RVS_GO(sgd_numeric(r));
    RUN_CUDA(cudaStreamSynchronize(g_ctx.comp));
    RUN_CUDA(cudaStreamSynchronize(g_ctx.copy));
    if (r->o && r->o->kernel_only)
        s->t_kernel = omp_get_wtime() - r->t_dev0;
    RUN_CUDA(cudaMemcpy(r->hbins, r->j.bins, SG_BIN_WORDS * 8, cudaMemcpyDeviceToHost));
    {
        const unsigned long long *t = r->hbins + 2 * SG_BINS;
        s->rows_esc += (int64_t)(t[SG_ESC] + t[SG_COPY]);
        s->rows_hash += (int64_t)(t[SG_WARP] + t[SG_BLOCK]);
        s->rows_dense += (int64_t)t[SG_DENSE];
    }
    sgd_trace_step(r, 18);
done:
    return st;
}

/* The run, with the lock held and the context ready. The last stage (transfer in one pass,
 * multiply in two) is left open for the clean-up. */
static rvs_status run(run_t *r, double **last)
{
    rvs_status st = RVS_OK;
    rvs_spgemm_stats *s = r->stats;
    r->hbins = g_ctx.hbins;
    *last = &s->t_compress;
    RVS_GO(rvs_csr_alloc(r->C, r->A->rows, r->B->cols, 0, r->A->vtype, r->err));
    sgd_lap(r, &s->t_compress);
    sgd_trace_step(r, 0);
    RVS_GO(upload(r));
    work_budget(r);
    sgd_trace_step(r, 1);
    r->t_dev0 = omp_get_wtime(); /* kernel_only: A and B are on the device */
    sgd_lap(r, &s->t_transfer);
    RVS_GO(onepass_front(r));
    sgd_lap(r, &s->t_pre);
    if (r->onepass) {
        *last = &s->t_transfer;
        RVS_GO(onepass(r));
    } else {
        *last = &s->t_multiply;
        r->j.boff = NULL; /* the kernels write C's blocks at crow */
        RVS_GO(twopass(r));
    }
done:
    return st;
}

extern "C" rvs_status rvs_spgemm_gpu_rowwise(rvs_csr *C, const rvs_csr *A, const rvs_csr *B,
                                             const rvs_spgemm_options *o, rvs_spgemm_sink *sink,
                                             rvs_spgemm_rows_fn fallback, rvs_spgemm_stats *stats, rvs_error *err)
{
    const double t0 = omp_get_wtime();
    rvs_spgemm_stats local;
    run_t r;
    rvs_status st = rvs_spgemm_check_args(A, B, err);
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    memset(C, 0, sizeof *C);
    memset(&r, 0, sizeof r);
    if (st != RVS_OK)
        return st;
    if (A->nnz > 0 && !A->colind)
        return rvs_fail(err, RVS_ERR_UNSUPPORTED, "A has more than 2^31-1 columns");
    if (rvs_gpu_count() == 0)
        return rvs_fail(err, RVS_ERR_NODEV, "no usable CUDA device");
    if (A->rows == 0 || A->nnz == 0 || B->nnz == 0) {
        st = empty_result(C, A, B, sink, err);
        stats->gpu_rows = A->rows;
        stats->t_total = stats->t_compress = omp_get_wtime() - t0;
        if (st != RVS_OK)
            rvs_csr_free(C);
        return st;
    }
    r.A = A;
    r.B = B;
    r.C = C;
    r.o = o;
    r.sink = sink;
    r.fallback = fallback;
    r.stats = stats;
    r.err = err;
    r.vs = rvs_vtype_size(A->vtype);
    r.trace = o && o->trace;
    r.t_mark = t0;
    r.t_last = t0;
    double *last = &stats->t_setup;
    pthread_mutex_lock(&g_lock);
    if ((st = ctx_init(err)) == RVS_OK) {
        r.tev = g_ctx.tev;
        sgd_lap(&r, &stats->t_setup);
        st = run(&r, &last);
        /* on failure the streams may still hold work that uses these buffers */
        cudaStreamSynchronize(g_ctx.comp);
        cudaStreamSynchronize(g_ctx.copy);
        for (int q = r.dm.n - 1; q >= 0; q--)
            cudaFreeAsync(r.dm.p[q], g_ctx.comp);
        cudaStreamSynchronize(g_ctx.comp);
        if (st != RVS_OK) { /* a kernel may have stopped half way: scratch not zero */
            cudaFree(g_ctx.dense);
            cudaFree(g_ctx.hsum);
            g_ctx.dense = g_ctx.hsum = NULL;
            g_ctx.dense_bytes = 0;
        }
    }
    pthread_mutex_unlock(&g_lock);
    stats->nnz_c = C->nnz;
    stats->blocks = r.nblocks;
    stats->cpu_rows = r.ncpu;
    stats->gpu_rows = A->rows - r.ncpu;
    stats->gpu_budget_bytes = r.work;
    stats->gpu_peak_bytes = r.dm.bytes + r.j.dense_stride * (size_t)r.j.dense_blocks +
                            (size_t)r.j.hsum_blocks * SG_NUM_BLOCK_T * sizeof(double);
    if (!(o && o->kernel_only))
        stats->t_kernel = r.dev_s;
    free(r.cpu_flag);
    free(r.cpu_rows);
    free(r.blocks);
    rvs_csr_free(&r.R);
    if (st != RVS_OK)
        rvs_csr_free(C);
    sgd_lap(&r, last); /* the clean-up closes the last stage */
    stats->t_total = r.t_last - t0;
    return st;
}
