/* csr_panels.cu - CSR on the GPU in column panels: the 2-D partition of Liang et al., "Scale-Free
 * Sparse Matrix-Vector Multiplication on Many-Core Architectures" (IEEE TCAD, 2017), Sec. III-A
 * (panels of columns, each cut into blocks of equal entries) for matrices whose x does not
 * fit in the L2 cache. Panel p holds the entries of columns [p * w, (p + 1) * w); a SpMV runs the
 * panels one after the other, so while the GPU works on a panel its gathers touch only that
 * panel's slice of x, which stays in L2. That cuts DRAM traffic but not time, since the kernel is
 * bound by its L2 requests and instructions (bench/notes-gpu-csr.md); what panels do buy is
 * sorted chunks where a chunk's columns would span 2^20 or more (see rvs_gpu_csr_panel_count).
 * Each panel is a CSR
 * block of its own, uploaded as any other (row-block partition, chunks sorted by column, values
 * coded where the whole block's were), so it runs the row-block kernel: blocks of equal rows
 * plus entries, sums staged in shared memory. Panel 0 keeps every row of the block and stores
 * them (or adds, in accumulate mode); the others keep only the rows with entries in their
 * columns (array "prow", int32 part rows) and add into y, so the partial sums of a row across
 * panels meet in y itself, not in a temporary array per panel as in the paper's merge phase:
 * the cost is a read and a write of y per panel and row that has entries there.
 *
 * The cut runs on the device, panel by panel, from the block uploaded whole (a warp per row
 * counts, then copies, the row's entries in the panel's columns, in their order); G keeps its
 * sizes and params and gives its own arrays back once every panel is made, so device memory
 * peaks at about twice the block while it is cut. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include "gpu_internal.cuh"

/* len[r] = entries of row r in columns [lo, hi); a warp per row. */
__global__ void pan_count(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci, int32_t lo,
                          int32_t hi, int32_t *__restrict__ len)
{
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (r >= rows)
        return;
    int n = 0;
    for (int64_t k = rp[r] + lane; k < rp[r + 1]; k += 32) {
        const int32_t c = __ldg(ci + k);
        n += c >= lo && c < hi;
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        n += __shfl_xor_sync(0xffffffffu, n, d);
    if (lane == 0)
        len[r] = n;
}

/* f[r] = 1 where row r has entries in the panel. */
__global__ void pan_flags(int64_t rows, const int32_t *__restrict__ len, int32_t *__restrict__ f)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        f[r] = len[r] > 0;
}

/* Rows kept by panel p > 0 (len > 0) at their place idx[r] (an exclusive scan of the flags):
 * prow = the part row, nrp = where its entries start (off, an exclusive scan of len). */
__global__ void pan_rows(int64_t rows, const int32_t *__restrict__ len, const int32_t *__restrict__ idx,
                         const int64_t *__restrict__ off, int32_t *__restrict__ prow, int64_t *__restrict__ nrp)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && len[r] > 0) {
        prow[idx[r]] = (int32_t)r;
        nrp[idx[r]] = off[r];
    }
}

/* Copy row r's entries in columns [lo, hi) to position off[r] on, in their order (a warp per row:
 * a ballot gives each lane its place). V: the value type, or uint8_t codes; va NULL: no values. */
template <typename V>
__global__ void pan_copy(int64_t rows, const int64_t *__restrict__ rp, const int32_t *__restrict__ ci,
                         const V *__restrict__ va, int32_t lo, int32_t hi, const int64_t *__restrict__ off,
                         const int32_t *__restrict__ len, int32_t *__restrict__ nci, V *__restrict__ nva)
{
    const int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (r >= rows || len[r] == 0)
        return;
    int64_t at = off[r];
    const int64_t end = rp[r + 1];
    for (int64_t k0 = rp[r]; k0 < end; k0 += 32) {
        const int64_t k = k0 + lane;
        const int32_t c = k < end ? __ldg(ci + k) : lo - 1;
        const bool in = c >= lo && c < hi;
        const unsigned b = __ballot_sync(0xffffffffu, in);
        if (in) {
            const int64_t q = at + __popc(b & ((1u << lane) - 1u));
            nci[q] = c;
            if (va)
                nva[q] = va[k];
        }
        at += __popc(b);
    }
}

/* wide[0] += 1 for each window of WIN entries of ci whose columns span PANEL_SPAN or more (a
 * block per window). */
#define WIN 4096
#define PANEL_SPAN (1 << 20)
__global__ void pan_spans(int64_t nnz, const int32_t *__restrict__ ci, unsigned long long *wide)
{
    __shared__ int lo, hi;
    const int64_t w0 = (int64_t)blockIdx.x * WIN, w1 = w0 + WIN < nnz ? w0 + WIN : nnz;
    int mn = INT32_MAX, mx = -1;
    if (threadIdx.x == 0)
        lo = INT32_MAX, hi = -1;
    __syncthreads();
    for (int64_t k = w0 + threadIdx.x; k < w1; k += blockDim.x) {
        const int c = __ldg(ci + k);
        mn = c < mn ? c : mn;
        mx = c > mx ? c : mx;
    }
    atomicMin(&lo, mn);
    atomicMax(&hi, mx);
    __syncthreads();
    if (threadIdx.x == 0 && hi - lo >= PANEL_SPAN)
        atomicAdd(wide, 1ull);
}

/* How many panels G goes up as: its param[4] where it is 2 or more (at most one a column); where it
 * is 0, the default, ceil(cols / 2^20) for an f32 block with more columns than 2^20 whose windows
 * of 4096 entries mostly span 2^20 columns or more, else 1. Such a block's row-block chunks cannot
 * be sorted by column (csr.cu sorts a chunk spanning less than 2^20), so its gathers of x stay
 * scattered; cut into panels of at most 2^20 columns every chunk sorts, which pays in f32 and loses
 * a little in f64, so f64 blocks are not cut unless asked (bench/notes-gpu-csr.md). Mixed precision
 * (an f32 block, f64 x) is cut too. Only a block whose chunks are sorted is cut (irregular rows: a
 * band or a stencil reads x in order), and its rows must fit the int32 "prow". */
extern "C" int rvs_gpu_csr_panel_count(const rvs_gpu_fmt *G)
{
    const int64_t want = G->param[4];
    if (G->id != RVS_FMT_CSR || want == 1 || G->rows > INT32_MAX || G->cols < 2 || G->nnz == 0 ||
        !rvs_csr_gpu_sorted(G->rows, G->nnz, G->vtype, G->param))
        return 1;
    if (want >= 2)
        return (int)(want < G->cols ? want : G->cols);
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "colind");
    const int64_t windows = (G->nnz + WIN - 1) / WIN;
    if (G->vtype != RVS_F32 || G->cols <= PANEL_SPAN || !ci || windows > INT32_MAX)
        return 1;
    unsigned long long *d = NULL, wide = 0;
    if (cudaMalloc(&d, sizeof *d) != cudaSuccess || cudaMemset(d, 0, sizeof *d) != cudaSuccess) {
        cudaFree(d);
        cudaGetLastError();
        return 1;
    }
    pan_spans<<<(unsigned)windows, 256>>>(G->nnz, ci, d);
    const bool ok = cudaMemcpy(&wide, d, sizeof wide, cudaMemcpyDeviceToHost) == cudaSuccess;
    cudaFree(d);
    cudaGetLastError();
    if (!ok || 2 * (int64_t)wide <= windows)
        return 1;
    return (int)((G->cols + PANEL_SPAN - 1) / PANEL_SPAN);
}

#define RVS_TRY(call)           \
    do {                        \
        rvs_status s_ = (call); \
        if (s_ != RVS_OK)       \
            return s_;          \
    } while (0)

/* Panel p of G: columns [lo, hi) into Q (zeroed), prepared for its kernels. s: scratch. */
static rvs_status make_panel(const rvs_gpu_fmt *G, int p, int32_t lo, int32_t hi, rvs_gpu_fmt *Q, int32_t *len,
                             int32_t *idx, int64_t *off, void *tmp, size_t tmp_bytes, rvs_error *err)
{
    const int64_t rows = G->rows;
    const int64_t *rp = (const int64_t *)rvs_gpu_data(G, "rowptr");
    const int32_t *ci = (const int32_t *)rvs_gpu_data(G, "colind");
    const rvs_array *va = rvs_gpu_array(G, "values"), *vq = rvs_gpu_array(G, "vcode"),
                    *vd = rvs_gpu_array(G, "vdict");
    const unsigned grid = rvs_gpu_blocks(rows * 32, 256);
    int32_t longest = 0;
    int64_t m = rows, total = 0;
    void *d = NULL;
    size_t tb = tmp_bytes;
    Q->id = RVS_FMT_CSR;
    Q->cols = G->cols;
    Q->vtype = G->vtype;
    memcpy(Q->param, G->param, sizeof Q->param);
    pan_count<<<grid, 256>>>(rows, rp, ci, lo, hi, len);
    RVS_CUDA_LAUNCHED(err);
    /* off = exclusive scan of len (int64), longest row, total */
    RVS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp, tb, len, off, rows), err);
    int64_t last_off = 0;
    int32_t last_len = 0;
    RVS_CUDA_TRY(cudaMemcpy(&last_off, off + rows - 1, 8, cudaMemcpyDeviceToHost), err);
    RVS_CUDA_TRY(cudaMemcpy(&last_len, len + rows - 1, 4, cudaMemcpyDeviceToHost), err);
    total = last_off + last_len;
    tb = tmp_bytes;
    RVS_CUDA_TRY(cub::DeviceReduce::Max(tmp, tb, len, idx, rows), err);
    RVS_CUDA_TRY(cudaMemcpy(&longest, idx, 4, cudaMemcpyDeviceToHost), err);
    if (p > 0) { /* only the rows with entries here: idx = exclusive scan of the flags, in place */
        pan_flags<<<rvs_gpu_blocks(rows, 256), 256>>>(rows, len, idx);
        RVS_CUDA_LAUNCHED(err);
        tb = tmp_bytes;
        RVS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(tmp, tb, idx, idx, rows), err);
        int32_t last_idx = 0;
        RVS_CUDA_TRY(cudaMemcpy(&last_idx, idx + rows - 1, 4, cudaMemcpyDeviceToHost), err);
        m = (int64_t)last_idx + (last_len > 0);
    }
    Q->rows = m;
    Q->nnz = total;
    Q->param[0] = longest;
    Q->param[1] = 1;
    Q->param[4] = 1;
    /* rows that look regular here would lose the sorted chunks (and a coded block's codes need them) */
    if (!rvs_csr_gpu_sorted(Q->rows, Q->nnz, Q->vtype, Q->param))
        Q->param[1] = 0;
    RVS_TRY(rvs_gpu_add_array(Q, "rowptr", RVS_DT_I64, m + 1, &d, err));
    int64_t *nrp = (int64_t *)d;
    if (p == 0) {
        RVS_CUDA_TRY(cudaMemcpy(nrp, off, (size_t)rows * 8, cudaMemcpyDeviceToDevice), err);
    } else {
        RVS_TRY(rvs_gpu_add_array(Q, "prow", RVS_DT_I32, m, &d, err));
        if (m > 0) {
            pan_rows<<<rvs_gpu_blocks(rows, 256), 256>>>(rows, len, idx, off, (int32_t *)d, nrp);
            RVS_CUDA_LAUNCHED(err);
        }
    }
    RVS_CUDA_TRY(cudaMemcpy(nrp + m, &total, 8, cudaMemcpyHostToDevice), err);
    RVS_TRY(rvs_gpu_add_array(Q, "colind", RVS_DT_I32, total, &d, err));
    int32_t *nci = (int32_t *)d;
    if (vd && total > 0) { /* the whole block's table; each panel's codes, if there are codes */
        RVS_TRY(rvs_gpu_add_array(Q, "vdict", vd->dtype, vd->count, &d, err));
        RVS_CUDA_TRY(
            cudaMemcpy(d, vd->data, (size_t)vd->count * rvs_dtype_size(vd->dtype), cudaMemcpyDeviceToDevice), err);
    }
    if (total == 0) /* nothing to copy, nor a table to carry */
        return rvs_gpu_csr_prepare(Q, err);
    if (vq) {
        RVS_TRY(rvs_gpu_add_array(Q, "vcode", RVS_DT_U8, total, &d, err));
        pan_copy<uint8_t>
            <<<grid, 256>>>(rows, rp, ci, (const uint8_t *)vq->data, lo, hi, off, len, nci, (uint8_t *)d);
    } else if (va && G->vtype == RVS_F64) {
        RVS_TRY(rvs_gpu_add_array(Q, "values", va->dtype, total, &d, err));
        pan_copy<double><<<grid, 256>>>(rows, rp, ci, (const double *)va->data, lo, hi, off, len, nci, (double *)d);
    } else if (va) {
        RVS_TRY(rvs_gpu_add_array(Q, "values", va->dtype, total, &d, err));
        pan_copy<float><<<grid, 256>>>(rows, rp, ci, (const float *)va->data, lo, hi, off, len, nci, (float *)d);
    } else {
        pan_copy<uint8_t><<<grid, 256>>>(rows, rp, ci, NULL, lo, hi, off, len, nci, NULL);
    }
    RVS_CUDA_LAUNCHED(err);
    return rvs_gpu_csr_prepare(Q, err);
}

extern "C" rvs_status rvs_gpu_csr_panels(rvs_gpu_fmt *G, int np, rvs_error *err)
{
    const int64_t rows = G->rows;
    rvs_status st = RVS_OK;
    int32_t *len = NULL, *idx = NULL;
    int64_t *off = NULL;
    void *tmp = NULL;
    size_t tmp_bytes = 0, b = 0;
    if (np < 2 || G->id != RVS_FMT_CSR || rows < 1 || rows > INT32_MAX || G->panel)
        return rvs_fail(err, RVS_ERR_INTERNAL, "csr: %d column panels of a block of %lld rows", np,
                        (long long)rows);
    const int64_t w = (G->cols + np - 1) / np;
    np = (int)((G->cols + w - 1) / w);
    /* scratch: the largest of the cub calls' needs */
    RVS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, b, (const int32_t *)NULL, (int64_t *)NULL, rows), err);
    tmp_bytes = b;
    RVS_CUDA_TRY(cub::DeviceScan::ExclusiveSum(NULL, b, (const int32_t *)NULL, (int32_t *)NULL, rows), err);
    tmp_bytes = b > tmp_bytes ? b : tmp_bytes;
    RVS_CUDA_TRY(cub::DeviceReduce::Max(NULL, b, (const int32_t *)NULL, (int32_t *)NULL, rows), err);
    tmp_bytes = b > tmp_bytes ? b : tmp_bytes;
    if (!(G->panel = (rvs_gpu_fmt *)calloc((size_t)np, sizeof *G->panel)))
        return rvs_fail(err, RVS_ERR_NOMEM, "csr: out of memory for %d column panels", np);
    G->npanel = np;
    G->pwidth = w;
    RVS_GO(rvs_gpu_malloc((void **)&len, (size_t)rows * 4, err));
    RVS_GO(rvs_gpu_malloc((void **)&idx, (size_t)rows * 4, err));
    RVS_GO(rvs_gpu_malloc((void **)&off, (size_t)rows * 8, err));
    RVS_GO(rvs_gpu_malloc(&tmp, tmp_bytes, err));
    for (int p = 0; p < np; p++) {
        const int64_t lo = p * w, hi = lo + w < G->cols ? lo + w : G->cols;
        RVS_GO(make_panel(G, p, (int32_t)lo, (int32_t)hi, &G->panel[p], len, idx, off, tmp, tmp_bytes, err));
    }
    RVS_CUDA_GO(cudaDeviceSynchronize());
    for (int i = 0; i < G->narrays; i++)
        rvs_gpu_free(G->array[i].data);
    memset(G->array, 0, sizeof G->array);
    G->narrays = 0;
done:
    rvs_gpu_free(len);
    rvs_gpu_free(idx);
    rvs_gpu_free(off);
    rvs_gpu_free(tmp);
    return st; /* on failure the caller frees G, panels and all */
}

extern "C" rvs_gpu_fmt rvs_gpu_panel_view(const rvs_gpu_fmt *G, int p)
{
    rvs_gpu_fmt Q = G->panel[p];
    Q.ymap = G->ymap;
    if (p > 0) {
        Q.ymap.inner = (const int32_t *)rvs_gpu_data(&G->panel[p], "prow");
        Q.ymap.accumulate = 1;
    }
    return Q;
}
