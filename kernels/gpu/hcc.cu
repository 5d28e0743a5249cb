/* hcc.cu - GPU SpMV in HCC (scale-free-hcc.txt Algorithm 1, coalesced mapping). y is zeroed,
 * then one launch per panel (in stream order, so panels add up without a temporary y per
 * panel). A launch has Nb * Ng work-groups (CUDA blocks) of Ni work-items (rvs_gpu_tune
 * hcc_wg = Ng work-groups per HCC block, hcc_wi = Ni, a multiple of 32); the segments of an
 * HCC block are split evenly over its Ng * Ni / 32 warps, and a warp processes one 32-slot
 * segment at a time: lane l takes slot l (consecutive lanes, consecutive addresses). A segment
 * without an end-of-row bit is reduced into the running row sum; one with bits gets a
 * segmented inclusive scan (__shfl_up_sync, full mask; heads are the lanes after end-of-row
 * bits) and its end-of-row lanes are added to y. A warp adds the first and last piece it ends,
 * and the running sum it leaves to the next warp, atomically (the paper's wg_row / wg_val
 * update phase); any other piece belongs to it alone. */
#include "gpu_internal.cuh"

/* First k in seg_ptr[0..n) with seg_ptr[k] >= s. */
__device__ static int64_t hcc_lower_bound(const int64_t *__restrict__ seg_ptr, int64_t n, int64_t s)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (seg_ptr[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct hcc_args {
    int64_t panel, nb, ng, ncross;
    const int64_t *bseg, *seg_ptr, *eor_rp;
    const uint32_t *eor;
    const int32_t *row_idx, *col;
};

template <typename T>
__global__ void hcc_kernel(hcc_args a, const T *__restrict__ val, const T *__restrict__ x, rvs_ymap ym,
                           T *__restrict__ y)
{
    const unsigned full = 0xffffffffu;
    int lane = threadIdx.x & 31;
    int64_t b = a.panel * a.nb + blockIdx.x / a.ng, wpg = blockDim.x / 32;
    int64_t gw = (blockIdx.x % a.ng) * wpg + threadIdx.x / 32, nw = a.ng * wpg;
    int64_t s0 = a.bseg[b], s1 = a.bseg[b + 1], n = s1 - s0;
    int64_t lo = s0 + n * gw / nw, hi = s0 + n * (gw + 1) / nw;
    if (lo >= hi)
        return;
    int64_t sidx = hcc_lower_bound(a.seg_ptr, a.ncross, lo);
    int64_t ridx = a.eor_rp[sidx], pfirst = ridx;
    int64_t plast = a.eor_rp[hcc_lower_bound(a.seg_ptr, a.ncross, hi)] - 1;
    T carry = 0;
    for (int64_t s = lo; s < hi; s++) {
        int64_t slot = s * 32 + lane;
        T v = val[slot] * __ldg(x + a.col[slot]);
        if (sidx >= a.ncross || a.seg_ptr[sidx] != s) {
            for (int d = 16; d > 0; d /= 2)
                v += __shfl_xor_sync(full, v, d);
            carry += v;
            continue;
        }
        uint32_t w = a.eor[sidx++], head = (w << 1) | 1u;
        if (lane == 0)
            v += carry;
        for (int d = 1; d < 32; d *= 2) {
            T o = __shfl_up_sync(full, v, d);
            if (lane >= d && ((head >> (lane - d + 1)) & ((1u << d) - 1u)) == 0)
                v += o;
        }
        if ((w >> lane) & 1u) {
            int64_t pr = ridx + __popc(w & ((1u << lane) - 1u));
            if (pr == pfirst || pr == plast)
                rvs_y_atomic(ym, y, a.row_idx[pr], v);
            else
                rvs_y_add(ym, y, a.row_idx[pr], v);
        }
        ridx += __popc(w);
        T last = __shfl_sync(full, v, 31);
        carry = (w >> 31) & 1u ? T(0) : last;
    }
    if (hi < s1 && lane == 0) /* the running row continues in the next warp's segments */
        rvs_y_atomic(ym, y, a.row_idx[ridx], carry);
}

/* y = A*x, A in HCC. */
extern "C" rvs_status rvs_gpu_spmv_hcc(const rvs_gpu_fmt *G, const void *dx, void *dy, const rvs_gpu_tune *t,
                                      void *stream, rvs_error *err)
{
    cudaStream_t s = rvs_gpu_stream(stream);
    int64_t np = G->param[0], nb = G->param[1], nseg = G->param[3];
    int wi = t && t->hcc_wi > 0 ? t->hcc_wi : 128;
    if (wi % 32 || wi > 1024)
        return rvs_fail(err, RVS_ERR_ARG, "hcc: %d work-items per work-group: want a multiple of 32 up to 1024", wi);
    int64_t ng = t && t->hcc_wg > 0 ? t->hcc_wg : 0;
    if (ng == 0) { /* about four segments per warp */
        int64_t per_block = nseg / (np * nb) + 1;
        ng = (per_block + 4 * (wi / 32) - 1) / (4 * (wi / 32));
    }
    if (ng > 2147483647LL / nb)
        ng = 2147483647LL / nb;
    ng = ng < 1 ? 1 : ng;
    rvs_status st = rvs_gpu_y_zero(G, dy, s, err);
    if (st != RVS_OK || nseg == 0)
        return st;
    hcc_args a = {0, nb, ng, G->param[4], (const int64_t *)rvs_gpu_data(G, "bseg"),
                  (const int64_t *)rvs_gpu_data(G, "seg_ptr"), (const int64_t *)rvs_gpu_data(G, "eor_rp"),
                  (const uint32_t *)rvs_gpu_data(G, "eor"), (const int32_t *)rvs_gpu_data(G, "row_idx"),
                  (const int32_t *)rvs_gpu_data(G, "col")};
    const void *val = rvs_gpu_data(G, "val");
    const rvs_ymap ym = rvs_gpu_ymap_of(G);
    for (int64_t p = 0; p < np; p++) {
        a.panel = p;
        if (G->vtype == RVS_F64)
            hcc_kernel<double><<<(unsigned)(nb * ng), wi, 0, s>>>(a, (const double *)val, (const double *)dx, ym,
                                                                  (double *)dy);
        else
            hcc_kernel<float><<<(unsigned)(nb * ng), wi, 0, s>>>(a, (const float *)val, (const float *)dx, ym,
                                                                 (float *)dy);
        RVS_CUDA_LAUNCHED(err);
    }
    return RVS_OK;
}
