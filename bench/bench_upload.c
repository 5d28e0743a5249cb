/* bench_upload.c - host-to-device copies of pageable arrays, as an upload of a user's CSR meets
 * them: the driver's copy (cudaMemcpy), the array pinned for the copy (register, copy,
 * unregister), and the pinned ring of gpu_upload.cu with each number of threads and slot size.
 * Every array is fresh (allocated and written just before) and every copy is checked by copying
 * it back. The rule rvs_gpu_memcpy_h2d applies is chosen from this table.
 *   bench_upload [--max-mib N]   sizes 1, 4, 16, 64, ... up to N MiB [256]
 * Prints: mib method threads slot_mib ms gbps (gbps: 10^9 bytes a second); "ring_pin" is the
 * one-time pinning of the ring, which the first staged copy of a process pays. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"
#include "rvs_tool.h"

static char *fresh(size_t n, int seed)
{
    char *p = malloc(n);
    if (!p)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory for %zu bytes", n);
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(i * 131 + (size_t)seed);
    return p;
}

static void row(size_t n, const char *method, int threads, size_t slot, double s)
{
    printf("%zu %s %d %zu %.3f %.2f\n", n >> 20, method, threads, slot >> 20, s * 1e3, (double)n / s * 1e-9);
    fflush(stdout);
}

static void check(const void *d, const char *h, size_t n, char *back, const char *method)
{
    rvs_error err;
    memset(back, 0, n);
    if (rvs_gpu_memcpy_d2h(back, d, n, &err) != RVS_OK)
        rvs_tool_die_err(method, &err);
    if (memcmp(back, h, n) != 0)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "%s: the device copy differs from the host array", method);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"max-mib", required_argument, 0, 'm'}, {0, 0, 0, 0}};
    int max_mib = 256, c, seed = 1;
    rvs_tool_init("bench_upload");
    while ((c = getopt_long(argc, argv, "m:", opts, NULL)) != -1) {
        if (c == 'm')
            max_mib = (int)rvs_tool_parse_int("--max-mib", optarg, 1, 65536);
        else
            rvs_tool_usage("unknown option");
    }
    if (rvs_gpu_count() == 0)
        rvs_tool_die(RVS_EX_UNAVAILABLE, NULL, "no GPU");
    rvs_error err;
    rvs_upload_rule keep, none = {0, 0, 0};
    rvs_gpu_upload_rule_get(&keep);
    const size_t top = (size_t)max_mib << 20;
    void *d = NULL;
    char *back = malloc(top);
    if (!back || rvs_gpu_malloc(&d, top, &err) != RVS_OK)
        rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory for %d MiB", max_mib);
    printf(
        "# mib method threads slot_mib ms gbps   (default rule: staged from %zu MiB, %d threads, %zu MiB slots)\n",
        keep.min_bytes >> 20, keep.threads, keep.slot_bytes >> 20);
    /* the ring's pinning, once */
    {
        char *h = fresh(1 << 20, seed++);
        double t = rvs_engine_now();
        if (rvs_gpu_h2d_staged(d, h, 1 << 20, 1, (size_t)16 << 20, &err) != RVS_OK)
            rvs_tool_die_err("staged", &err);
        row(1 << 20, "ring_pin", 1, (size_t)16 << 20, rvs_engine_now() - t);
        free(h);
    }
    static const int threads[] = {1, 2, 4, 8};
    static const int slots[] = {1, 4, 16};
    for (size_t n = 1 << 20; n <= top; n *= 4) {
        char *h = fresh(n, seed++);
        rvs_gpu_upload_rule_set(&none);
        double t = rvs_engine_now();
        if (rvs_gpu_memcpy_h2d(d, h, n, &err) != RVS_OK)
            rvs_tool_die_err("driver", &err);
        row(n, "driver", 1, 0, rvs_engine_now() - t);
        check(d, h, n, back, "driver");
        free(h);
        h = fresh(n, seed++);
        t = rvs_engine_now();
        if (rvs_gpu_host_register(h, n, &err) != RVS_OK || rvs_gpu_memcpy_h2d(d, h, n, &err) != RVS_OK)
            rvs_tool_die_err("register", &err);
        rvs_gpu_host_unregister(h);
        row(n, "register", 1, 0, rvs_engine_now() - t);
        check(d, h, n, back, "register");
        free(h);
        for (size_t a = 0; a < sizeof threads / sizeof *threads; a++)
            for (size_t b = 0; b < sizeof slots / sizeof *slots; b++) {
                const size_t slot = (size_t)slots[b] << 20;
                if (slot > n && b > 0)
                    continue;
                h = fresh(n, seed++);
                t = rvs_engine_now();
                if (rvs_gpu_h2d_staged(d, h, n, threads[a], slot, &err) != RVS_OK)
                    rvs_tool_die_err("staged", &err);
                row(n, "staged", threads[a], slot, rvs_engine_now() - t);
                check(d, h, n, back, "staged");
                free(h);
            }
        rvs_gpu_upload_rule_set(&keep);
        h = fresh(n, seed++);
        t = rvs_engine_now();
        if (rvs_gpu_memcpy_h2d(d, h, n, &err) != RVS_OK)
            rvs_tool_die_err("rule", &err);
        row(n, "rule", keep.threads, keep.slot_bytes, rvs_engine_now() - t);
        check(d, h, n, back, "rule");
        free(h);
    }
    rvs_gpu_free(d);
    free(back);
    return 0;
}
