/* mpi_node.c - a rank's share of its node: its local rank, the CPU threads it may use, and the
 * GPU it drives (local rank modulo the node's GPUs) */
#include <sched.h>
#include <unistd.h>
#include "mpi_internal.h"
#ifdef RVS_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

rvs_status rvs_mpi_node(MPI_Comm comm, int gpu, int *local_rank, int *local_size, int *threads, int *device,
                        rvs_error *err)
{
    MPI_Comm node;
    int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS)
        return rvs_mpi_fail(err, rc, "MPI_Comm_split_type");
    MPI_Comm_rank(node, local_rank);
    MPI_Comm_size(node, local_size);
    MPI_Comm_free(&node);
    cpu_set_t set;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const int mask = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)online;
    /* a rank bound to some CPUs uses them; ranks that may all use every CPU share them */
    *threads = mask < online ? mask : (int)(online / *local_size);
    if (*threads < 1)
        *threads = 1;
    *device = -1;
#ifdef RVS_HAVE_CUDA
    int n = 0;
    if (gpu && cudaGetDeviceCount(&n) == cudaSuccess && n > 0) {
        *device = *local_rank % n;
        if (cudaSetDevice(*device) != cudaSuccess)
            return rvs_fail(err, RVS_ERR_DEVICE, "cannot use GPU %d of the node", *device);
    }
#else
    (void)gpu;
#endif
    return RVS_OK;
}
