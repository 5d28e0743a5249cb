/* gpu_upload.cu - host-to-device copies of large pageable arrays (a matrix's CSR as its caller
 * holds it) at the link's speed. The driver copies pageable memory through its own small pinned
 * buffer with one thread; here several threads copy pieces into a ring of pinned slots while the
 * copy engine moves the slots filled before, so the host's copying and the transfer overlap. The
 * ring is pinned once per process, on the first copy large enough to pay for it, and kept. */
#include <omp.h>
#include <pthread.h>
#include <string.h>
#include "gpu_internal.cuh"

#define RING_SLOTS 4

static struct {
    pthread_mutex_t lock;
    char *slot[RING_SLOTS];
    cudaEvent_t freed[RING_SLOTS]; /* the slot's last copy has left it */
    cudaStream_t s;
    size_t slot_bytes;
    int device; /* the ring's copies run on this device's stream */
} ring = {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, 0, 0, -1};

/* H100 host, PCIe 5 (bench/results/upload-h100.txt): the driver's copy moves 8-9 GB/s, the ring
 * 24-47 GB/s with 8 threads and 4 MiB slots, but pinning the ring costs about 0.7 ms a MiB once:
 * it pays for itself from about 128 MiB, and once pinned it serves every copy of a slot or more */
static rvs_upload_rule rule = {128u << 20, 4u << 20, 8};

void rvs_gpu_upload_rule_get(rvs_upload_rule *r)
{
    *r = rule;
}

void rvs_gpu_upload_rule_set(const rvs_upload_rule *r)
{
    rule = *r;
}

static void ring_free(void)
{
    for (int k = 0; k < RING_SLOTS; k++) {
        if (ring.freed[k])
            cudaEventDestroy(ring.freed[k]);
        if (ring.slot[k])
            cudaFreeHost(ring.slot[k]);
        ring.freed[k] = NULL;
        ring.slot[k] = NULL;
    }
    if (ring.s)
        cudaStreamDestroy(ring.s);
    ring.s = NULL;
    ring.slot_bytes = 0;
    ring.device = -1;
}

/* The ring with slots of at least bytes on the current device (made or remade). */
static rvs_status ring_ready(size_t bytes, rvs_error *err)
{
    int dev = 0;
    RVS_CUDA_TRY(cudaGetDevice(&dev), err);
    if (ring.s && ring.slot_bytes >= bytes && ring.device == dev)
        return RVS_OK;
    if (ring.s)
        RVS_CUDA_TRY(cudaStreamSynchronize(ring.s), err);
    ring_free();
    ring.device = dev;
    ring.slot_bytes = bytes;
    cudaError_t e = cudaStreamCreateWithFlags(&ring.s, cudaStreamNonBlocking);
    for (int k = 0; k < RING_SLOTS && e == cudaSuccess; k++) {
        e = cudaMallocHost((void **)&ring.slot[k], bytes);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags(&ring.freed[k], cudaEventDisableTiming);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        ring_free();
        return rvs_fail(err, RVS_ERR_DEVICE, "cannot pin %d x %zu bytes for uploads: %s", RING_SLOTS, bytes,
                        cudaGetErrorString(e));
    }
    return RVS_OK;
}

/* Copy n bytes from src to dst with the team's threads, each its share. */
static void team_copy(char *dst, const char *src, size_t n, int threads)
{
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int t = omp_get_thread_num(), T = omp_get_num_threads();
        const size_t a = n * (size_t)t / (size_t)T, b = n * (size_t)(t + 1) / (size_t)T;
        memcpy(dst + a, src + a, b - a);
    }
}

extern "C" rvs_status rvs_gpu_h2d_staged(void *dst, const void *src, size_t bytes, int threads, size_t slot_bytes,
                                         rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    if (threads < 1)
        threads = 1;
    if (slot_bytes < 65536)
        slot_bytes = 65536;
    pthread_mutex_lock(&ring.lock);
    rvs_status st = ring_ready(slot_bytes, err);
    cudaError_t e = cudaSuccess;
    size_t done = 0;
    for (int k = 0; st == RVS_OK && e == cudaSuccess && done < bytes; k = (k + 1) % RING_SLOTS) {
        const size_t n = bytes - done < slot_bytes ? bytes - done : slot_bytes;
        e = cudaEventSynchronize(ring.freed[k]); /* recorded after the slot's last copy, or never */
        if (e != cudaSuccess)
            break;
        team_copy(ring.slot[k], (const char *)src + done, n, threads);
        e = cudaMemcpyAsync((char *)dst + done, ring.slot[k], n, cudaMemcpyHostToDevice, ring.s);
        if (e == cudaSuccess)
            e = cudaEventRecord(ring.freed[k], ring.s);
        done += n;
    }
    if (st == RVS_OK && e == cudaSuccess)
        e = cudaStreamSynchronize(ring.s);
    pthread_mutex_unlock(&ring.lock);
    if (st == RVS_OK && e != cudaSuccess) {
        cudaGetLastError();
        st = rvs_fail(err, RVS_ERR_DEVICE, "a staged copy of %zu bytes to the GPU: %s", bytes,
                      cudaGetErrorString(e));
    }
    return st;
}

/* Copy bytes host -> device: through the ring when they are many, else the driver's copy. */
extern "C" rvs_status rvs_gpu_memcpy_h2d(void *dst, const void *src, size_t bytes, rvs_error *err)
{
    if (bytes == 0)
        return RVS_OK;
    pthread_mutex_lock(&ring.lock);
    const int pinned = ring.s != NULL && ring.slot_bytes >= rule.slot_bytes;
    pthread_mutex_unlock(&ring.lock);
    if (rule.min_bytes > 0 && (bytes >= rule.min_bytes || (pinned && bytes >= rule.slot_bytes))) {
        const int threads = rule.threads < omp_get_max_threads() ? rule.threads : omp_get_max_threads();
        rvs_status st = rvs_gpu_h2d_staged(dst, src, bytes, threads, rule.slot_bytes, err);
        if (st == RVS_OK || st != RVS_ERR_DEVICE)
            return st;
        /* pinning refused (a locked-memory limit): the driver's copy still works */
    }
    RVS_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), err);
    return RVS_OK;
}
