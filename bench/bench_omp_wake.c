/* bench_omp_wake.c - what a short OpenMP region costs after the team has idled: a region with
 * no work, timed after a sleep, for each team size and idle time. On a busy many-core host a
 * region over every core waits at times for a core another thread holds; rvs_omp_short_threads
 * (libformat/rvs_omp.h) sizes the set-up's short passes by this table.
 *   bench_omp_wake [--reps N] [--gpu]   N regions per row [200]; --gpu: start the CUDA driver
 *                                       first, as a GPU process has it
 * Prints: threads idle_us reps mean_ms max_ms over_1ms over_3ms. OMP_WAIT_POLICY applies. */
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "rvs_engine.h"
#include "rvs_tool.h"

static void row(int threads, int idle_us, int reps)
{
    double mean = 0, most = 0;
    int over1 = 0, over3 = 0;
    volatile int sink = 0;
#pragma omp parallel num_threads(threads) /* the team made before any timing */
    sink += omp_get_thread_num() == 0;
    for (int r = 0; r < reps; r++) {
        const struct timespec idle = {idle_us / 1000000, (long)(idle_us % 1000000) * 1000L};
        nanosleep(&idle, NULL);
        const double t0 = rvs_engine_now();
#pragma omp parallel num_threads(threads)
        sink += omp_get_thread_num() == 0;
        const double ms = (rvs_engine_now() - t0) * 1e3;
        mean += ms / reps;
        most = ms > most ? ms : most;
        over1 += ms > 1;
        over3 += ms > 3;
    }
    printf("%d %d %d %.3f %.3f %d %d\n", threads, idle_us, reps, mean, most, over1, over3);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"reps", required_argument, 0, 'r'}, {"gpu", no_argument, 0, 'g'}, {0, 0, 0, 0}};
    int reps = 200, c;
    rvs_tool_init("bench_omp_wake");
    while ((c = getopt_long(argc, argv, "r:", opts, NULL)) != -1) {
        switch (c) {
        case 'r': reps = (int)rvs_tool_parse_int("--reps", optarg, 1, 100000); break;
        case 'g':
            if (rvs_gpu_count() == 0)
                rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "no GPU");
            break;
        default: rvs_tool_usage("unknown option");
        }
    }
    const int all = omp_get_max_threads();
    const int sizes[4] = {all, all - 1, all / 2, all / 4};
    static const int idles[3] = {1000, 10000, 50000};
    printf("# threads idle_us reps mean_ms max_ms over_1ms over_3ms   (%d cores, OMP_WAIT_POLICY=%s)\n", all,
           getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "unset");
    for (int s = 0; s < 4; s++)
        if (sizes[s] >= 1 && (s == 0 || sizes[s] < sizes[s - 1]))
            for (int i = 0; i < 3; i++)
                row(sizes[s], idles[i], reps);
    return 0;
}
