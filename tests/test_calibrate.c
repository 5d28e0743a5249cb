/* test_calibrate.c - computing powers: measured, saved, loaded (partition --calibrate, --cp auto) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rvs_calibrate.h"
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
    double gpu = -1, core = -1;
    rvs_error err;
    snprintf(path, sizeof path, "%s/calibration.%ld", tmp, (long)getpid());
    setenv("RVS_CALIBRATION", path, 1);

    /* nothing recorded yet */
    CHECK(rvs_calibration_load(&gpu, &core, &err) == RVS_ERR_NOFILE);

    /* saved normalised to one core = 1, loaded back */
    CHECK_OK(rvs_calibration_save(150.6, 2.0, &err), &err);
    CHECK_OK(rvs_calibration_load(&gpu, &core, &err), &err);
    CHECKF(fabs(gpu - 75.3) < 1e-9 && core == 1, "loaded gpu %g cpu %g", gpu, core);
    FILE *f = fopen(path, "r");
    char text[64] = "";
    CHECK(f && fread(text, 1, sizeof text - 1, f) > 0);
    if (f)
        fclose(f);
    CHECKF(strcmp(text, "gpu 75.300\ncpu 1\n") == 0, "file says '%s'", text);
    CHECK(rvs_calibration_save(1, 0, &err) == RVS_ERR_ARG);

    /* hand-written files: comments and blank lines are fine, junk is named */
    write_file(path, "# measured by hand\n\ngpu 40\ncpu 1\n");
    CHECK_OK(rvs_calibration_load(&gpu, &core, &err), &err);
    CHECK(gpu == 40 && core == 1);
    write_file(path, "gpu 40\ncpu one\n");
    CHECK(rvs_calibration_load(&gpu, &core, &err) == RVS_ERR_FORMAT);
    CHECKF(strstr(err.msg, "line 2") != NULL, "message '%s'", err.msg);
    write_file(path, "gpu 40\n");
    CHECK(rvs_calibration_load(&gpu, &core, &err) == RVS_ERR_FORMAT);
    write_file(path, "gpu 40\ncpu 1\nfpga 3\n");
    CHECK(rvs_calibration_load(&gpu, &core, &err) == RVS_ERR_FORMAT);
    remove(path);

    /* without RVS_CALIBRATION: $XDG_CONFIG_HOME/rvskit/calibration, folders created */
    unsetenv("RVS_CALIBRATION");
    snprintf(dir, sizeof dir, "%s/xdg.%ld", tmp, (long)getpid());
    setenv("XDG_CONFIG_HOME", dir, 1);
    CHECK_OK(rvs_calibration_save(75, 1, &err), &err);
    snprintf(expect, sizeof expect, "%s/rvskit/calibration", dir);
    CHECKF(access(expect, R_OK) == 0, "%s missing", expect);
    CHECK_OK(rvs_calibration_load(&gpu, &core, &err), &err);
    CHECK(gpu == 75 && core == 1);
    remove(expect);
    snprintf(expect, sizeof expect, "%s/rvskit", dir);
    rmdir(expect);
    rmdir(dir);

    /* the measurement itself: a core is measured; a GPU only where there is one */
    CHECK_OK(rvs_calibrate(&gpu, &core, &err), &err);
    CHECKF(core > 0, "core %g GFLOP/s", core);
    CHECKF(rvs_gpu_count() > 0 ? gpu > 0 : gpu == 0, "gpu %g GFLOP/s", gpu);
    printf("measured: gpu %.2f GFLOP/s, one core %.2f GFLOP/s\n", gpu, core);
    return rvs_test_done();
}
