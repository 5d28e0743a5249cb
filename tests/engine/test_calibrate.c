/* test_calibrate.c - computing powers and PCIe costs: measured, saved, loaded (partition
 * --calibrate, --cp auto, the default partition's CPU part) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rvs_engine.h"
#include "rvs_gpu.h"
#include "rvs_test.h"

/* Write text to path. */
static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    const char *tmp = getenv("RVS_TMP") ? getenv("RVS_TMP") : "/tmp";
    char path[1024], dir[1024], expect[1200];
    rvs_calibration c, m;
    rvs_error err;
    snprintf(path, sizeof path, "%s/calibration.%ld", tmp, (long)getpid());
    setenv("RVS_CALIBRATION", path, 1);

    /* nothing recorded yet */
    CHECK(rvs_calibration_load(&c, &err) == RVS_ERR_NOFILE);

    /* saved with the ratio first (one core = 1), every figure loaded back */
    memset(&m, 0, sizeof m);
    m.gpu_gflops = 150.6, m.core_gflops = 2.0, m.cpu_gflops = 25.5, m.threads = 16;
    m.h2d_gbs = 51.2, m.d2h_gbs = 49.5, m.launch_us = 11.25;
    CHECK_OK(rvs_calibration_save(&m, &err), &err);
    CHECK_OK(rvs_calibration_load(&c, &err), &err);
    CHECKF(c.gpu_gflops == 150.6 && c.core_gflops == 2 && c.cpu_gflops == 25.5 && c.threads == 16 &&
               c.h2d_gbs == 51.2 && c.d2h_gbs == 49.5 && c.launch_us == 11.25,
           "loaded gpu %g core %g cpu %g threads %d in %g out %g trip %g", c.gpu_gflops, c.core_gflops,
           c.cpu_gflops, c.threads, c.h2d_gbs, c.d2h_gbs, c.launch_us);
    FILE *f = fopen(path, "r");
    char text[256] = "";
    CHECK(f && fread(text, 1, sizeof text - 1, f) > 0);
    if (f)
        fclose(f);
    CHECKF(strncmp(text, "gpu 75.300\ncpu 1\n", 17) == 0, "file says '%s'", text);
    m.core_gflops = 0;
    CHECK(rvs_calibration_save(&m, &err) == RVS_ERR_ARG);
    /* no GPU rate (measured without a GPU): refused, and the file recorded before stays */
    m.core_gflops = 2.0, m.gpu_gflops = 0;
    CHECK(rvs_calibration_save(&m, &err) == RVS_ERR_NODEV);
    CHECKF(strstr(err.msg, "no GPU") != NULL, "message '%s'", err.msg);
    CHECK_OK(rvs_calibration_load(&c, &err), &err);
    CHECKF(c.gpu_gflops == 150.6, "the earlier calibration was replaced: gpu %g", c.gpu_gflops);
    /* a file recording a GPU of 0 (older versions wrote one without a GPU) is refused */
    write_file(path, "gpu 0.000\ncpu 1\n");
    CHECK(rvs_calibration_load(&c, &err) == RVS_ERR_FORMAT);
    CHECKF(strstr(err.msg, "is 0") != NULL, "message '%s'", err.msg);

    /* hand-written files and files of older versions (the ratio alone): rates in core units */
    write_file(path, "# measured by hand\n\ngpu 40\ncpu 1\n");
    CHECK_OK(rvs_calibration_load(&c, &err), &err);
    CHECK(c.gpu_gflops == 40 && c.core_gflops == 1 && c.h2d_gbs == 0 && c.cpu_gflops == 0);
    write_file(path, "gpu 40\ncpu one\n");
    CHECK(rvs_calibration_load(&c, &err) == RVS_ERR_FORMAT);
    CHECKF(strstr(err.msg, "line 2") != NULL, "message '%s'", err.msg);
    write_file(path, "gpu 40\n");
    CHECK(rvs_calibration_load(&c, &err) == RVS_ERR_FORMAT);
    write_file(path, "gpu 40\ncpu 1\nfpga 3\n");
    CHECK(rvs_calibration_load(&c, &err) == RVS_ERR_FORMAT);
    CHECKF(strstr(err.msg, "fpga") != NULL, "message '%s'", err.msg);
    write_file(path, "gpu 40\ncpu 1\nh2d_gbs -3\n");
    CHECK(rvs_calibration_load(&c, &err) == RVS_ERR_FORMAT);
    remove(path);

    /* without RVS_CALIBRATION: $XDG_CONFIG_HOME/rvskit/calibration, folders created */
    unsetenv("RVS_CALIBRATION");
    snprintf(dir, sizeof dir, "%s/xdg.%ld", tmp, (long)getpid());
    setenv("XDG_CONFIG_HOME", dir, 1);
    memset(&m, 0, sizeof m);
    m.gpu_gflops = 75, m.core_gflops = 1;
    CHECK_OK(rvs_calibration_save(&m, &err), &err);
    snprintf(expect, sizeof expect, "%s/rvskit/calibration", dir);
    CHECKF(access(expect, R_OK) == 0, "%s missing", expect);
    CHECK_OK(rvs_calibration_load(&c, &err), &err);
    CHECK(c.gpu_gflops == 75 && c.core_gflops == 1);
    remove(expect);
    snprintf(expect, sizeof expect, "%s/rvskit", dir);
    rmdir(expect);
    rmdir(dir);

    /* the measurement itself: the CPU always; the GPU and PCIe only where there is a GPU */
    CHECK_OK(rvs_calibrate(&c, &err), &err);
    CHECKF(c.core_gflops > 0 && c.cpu_gflops > 0 && c.threads > 0, "core %g, all %g GFLOP/s", c.core_gflops,
           c.cpu_gflops);
    const int g = rvs_gpu_count() > 0;
    CHECKF(g ? c.gpu_gflops > 0 && c.h2d_gbs > 0 && c.d2h_gbs > 0 && c.launch_us > 0
             : c.gpu_gflops == 0 && c.h2d_gbs == 0,
           "gpu %g GFLOP/s, in %g, out %g GB/s, trip %g us", c.gpu_gflops, c.h2d_gbs, c.d2h_gbs, c.launch_us);
    printf("measured: gpu %.2f GFLOP/s, one core %.2f, %d threads %.2f GFLOP/s; in %.2f, out %.2f GB/s, %.1f us\n",
           c.gpu_gflops, c.core_gflops, c.threads, c.cpu_gflops, c.h2d_gbs, c.d2h_gbs, c.launch_us);
    return rvs_test_done();
}
