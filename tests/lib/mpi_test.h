/* mpi_test.h - what the MPI tests of the engine share: MPI started with errors returned to the
 * caller, and the job's verdict (tests/engine/test_mpi_*.c) */
#ifndef RVS_MPI_TEST_H
#define RVS_MPI_TEST_H

#include <mpi.h>
#include "rvs_engine.h"
#include "rvs_test.h"

/* MPI started on MPI_COMM_WORLD, errors returned; this rank and the ranks. */
static inline void rvs_test_mpi_init(int *argc, char ***argv, int *rank, int *nranks)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
}

/* One CPU thread, and plan options for a rank's share on it: vt, format fmt (0: the advisor's,
 * without the trial cache), the entries given back, no whole-matrix plan. */
static inline void rvs_test_mpi_cpu(rvs_engine_devices *dev, rvs_plan_options *po, rvs_vtype vt, rvs_format_id fmt)
{
    rvs_engine_devices_probe(dev, 1, 0);
    rvs_plan_options_default(po);
    po->mode = RVS_MODE_CPU;
    po->vtype = vt;
    po->fallback = fmt;
    po->consume = 1;
    po->allow_whole = 0;
    po->advisor.use_cache = 0;
}

/* Every rank's checks and failures summed and reported by rank 0; the job's status on every rank,
 * MPI finalized. */
static inline int rvs_test_mpi_done(int rank)
{
    int failed = rvs_test_failures, checks = rvs_test_checks;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    rvs_test_failures = rank == 0 ? failed : 0;
    rvs_test_checks = rank == 0 ? checks : 1;
    int status = rank == 0 ? rvs_test_done() : 0;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}

#endif
