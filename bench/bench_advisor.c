/* bench_advisor.c - the measurements the advisor's model is fitted to: for a matrix, its features
 * (rvs_features_rows) and the time of every candidate format with its tunables, built whole (no
 * sample, nothing pruned), run on the device, checked and timed (median); on the GPU also
 * cuSPARSE CSR ALG1 on the same matrix.
 *   bench_advisor [--device gpu|cpu] [--precision f64|f32|both] [--iters N] [--threads N]
 *                 [--label NAME] FILE
 * Prints one line per candidate (a table for bench/advisor_fit.py):
 *   label device vt rows nnz F0 .. F13 candidate ms status
 * candidate is FORMAT@KNOBS (rvs_knobs_format), ms -1 where it did not run; status ran, refused,
 * failed. The '#' header names the features. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_engine.h"
#include "rvs_tool.h"

static const char *status_name(rvs_cand_status s)
{
    return s == RVS_CAND_RAN       ? "ran"
           : s == RVS_CAND_REFUSED ? "refused"
           : s == RVS_CAND_PRUNED  ? "pruned"
                                   : "failed";
}

static void one(const char *label, const rvs_stream *S, rvs_device dev, rvs_vtype vt, int iters)
{
    rvs_advisor_options o;
    rvs_decision d;
    rvs_features F;
    rvs_row_list R;
    rvs_error err;
    char knobs[160], devname[16];
    rvs_row_list_all(&R, &S->A);
    if (rvs_features_rows(&F, &R, &err) != RVS_OK)
        rvs_tool_die_err(label, &err);
    rvs_advisor_options_default(&o);
    o.use_cache = 0;
    o.iters = iters;
    o.keep_ratio = 1e300;       /* every candidate */
    o.sample_nnz = INT64_MAX;   /* on the whole matrix */
    o.mode = RVS_ADVISE_TRIALS; /* every candidate tried: what the model is fitted to */
    rvs_csr C = {0};
    const rvs_csr *use = &S->A;
    if (S->A.vtype != vt) {
        if (rvs_csr_copy(&C, &S->A, &err) != RVS_OK || rvs_csr_convert_values(&C, vt, &err) != RVS_OK)
            rvs_tool_die_err(label, &err);
        use = &C;
    }
    if (rvs_advise(&d, use, -1, dev, vt, &o, &err) != RVS_OK)
        rvs_tool_die_err(label, &err);
    snprintf(devname, sizeof devname, "%s", dev == RVS_DEV_GPU ? "gpu" : "cpu");
    for (int i = 0; i < d.ncand; i++) {
        const rvs_candidate *c = &d.cand[i];
        rvs_knobs_format(&c->knobs, knobs, sizeof knobs);
        printf("%s %s %s %lld %lld", label, devname, rvs_vtype_name(vt), (long long)F.rows, (long long)F.nnz);
        for (int k = 0; k < RVS_NFEAT; k++)
            printf(" %.5g", F.f[k]);
        printf(" %s@%s %.6g %s\n", rvs_format_lookup(c->format)->name, knobs, c->ms, status_name(c->status));
    }
    if (dev == RVS_DEV_GPU) {
        double ms[3] = {-1, -1, -1}, ce = 0;
        void *x = malloc((size_t)use->cols * rvs_vtype_size(vt) + 8);
        if (!x)
            rvs_tool_die(RVS_EX_SOFTWARE, NULL, "out of memory");
        rvs_fill_x(x, NULL, use->cols, vt, 7);
        rvs_status st = rvs_baseline_cusparse(use, vt, x, NULL, iters, 0, ms, &ce, NULL, 0, &err);
        printf("%s %s %s %lld %lld", label, devname, rvs_vtype_name(vt), (long long)F.rows, (long long)F.nnz);
        for (int k = 0; k < RVS_NFEAT; k++)
            printf(" %.5g", F.f[k]);
        printf(" cusparse@alg1 %.6g %s\n", st == RVS_OK ? ms[0] : -1.0, st == RVS_OK ? "ran" : "failed");
        free(x);
    }
    fflush(stdout);
    rvs_csr_free(&C);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"device", required_argument, 0, 'd'},
                                         {"precision", required_argument, 0, 'p'},
                                         {"iters", required_argument, 0, 'n'},
                                         {"threads", required_argument, 0, 't'},
                                         {"label", required_argument, 0, 'l'},
                                         {"header", no_argument, 0, 'H'},
                                         {0, 0, 0, 0}};
    rvs_device dev = RVS_DEV_GPU;
    const char *prec = "both", *label = NULL;
    int iters = 9, c, header = 0;
    rvs_tool_init("bench_advisor");
    while ((c = getopt_long(argc, argv, "d:p:n:t:l:H", opts, NULL)) != -1) {
        switch (c) {
        case 'd': dev = strcmp(optarg, "cpu") == 0 ? RVS_DEV_CPU : RVS_DEV_GPU; break;
        case 'p': prec = optarg; break;
        case 'n': iters = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
        case 't': rvs_tool_fit_threads("--threads", (int)rvs_tool_parse_int("--threads", optarg, 1, 4096)); break;
        case 'l': label = optarg; break;
        case 'H': header = 1; break;
        default: rvs_tool_usage("unknown option");
        }
    }
    if (header) {
        printf("# label device vt rows nnz");
        for (int k = 0; k < RVS_NFEAT; k++)
            printf(" %s", rvs_feature_name(k));
        printf(" candidate ms status\n");
    }
    if (optind >= argc)
        return header ? 0 : (rvs_tool_usage("a matrix file"), 64);
    rvs_stream S;
    rvs_error err;
    if (rvs_tool_read_input(argv[optind], &S, NULL, &err) != RVS_OK)
        rvs_tool_die_err(argv[optind], &err);
    if (!label)
        label = argv[optind];
    if (strcmp(prec, "f64") == 0 || strcmp(prec, "both") == 0)
        one(label, &S, dev, RVS_F64, iters);
    if (strcmp(prec, "f32") == 0 || strcmp(prec, "both") == 0)
        one(label, &S, dev, RVS_F32, iters);
    rvs_stream_free(&S);
    return 0;
}
