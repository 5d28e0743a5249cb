/* advisor_predict.c - the advisor's fitted model: a candidate's time from a part's features,
 * log2(ms) linear in them, with coefficients fitted per device class, value type and candidate
 * to what bench/advisor_train.sh measured (engine/advisor_coef.h, made by bench/advisor_fit.py).
 * Only the GPU has a fit so far; every CUDA device takes the H100's (the ranking, not the
 * times, is what the advisor needs of it). A line fitted in log2 space runs below any device's
 * bandwidth far past the sizes it was fitted on, so a prediction is never faster than the
 * least bytes its format can move at the device's peak (rvs_model_floor). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "engine_internal.h"
#include "rvs_gpu.h"
#include "advisor_coef.h"

#define NCOEF ((int)(sizeof advisor_coef / sizeof advisor_coef[0]))

/* The fit a device takes, or NULL. */
static const char *fit_of(rvs_device dev)
{
    return dev == RVS_DEV_GPU ? "h100" : NULL;
}

int rvs_model_key(const rvs_candidate *c, char *buf, size_t n)
{
    char knobs[200];
    const rvs_format_ops *ops = rvs_format_lookup(c->format);
    rvs_knobs_format(&c->knobs, knobs, sizeof knobs);
    return snprintf(buf, n, "%s@%s", ops ? ops->name : "?", knobs) < (int)n;
}

double rvs_model_least_bytes(const rvs_candidate *c, const rvs_features *F, rvs_vtype vt)
{
    const double vs = (double)rvs_vtype_size(vt), rows = (double)F->rows, nnz = (double)F->nnz;
    const double ld = (double)((F->rows + 31) / 32 * 32), pad = rows > 0 ? ld / rows : 1;
    const double val = F->f[11] > 0 ? 0 : vs; /* a value table: codes of a byte, or none at all */
    double slots = nnz, idx = 2, ptr = 0;     /* 16-bit column offsets are the narrowest index */
    switch (c->format) {
    case RVS_FMT_CSR: ptr = 4 * rows; break;
    case RVS_FMT_ELL:
    case RVS_FMT_ELLR: slots = exp2(F->f[6]) * nnz * pad; break;
    case RVS_FMT_PELLR:
    case RVS_FMT_BIELL: slots = exp2(F->f[8]) * nnz; break;
    case RVS_FMT_DIA: /* a slot per row and diagonal, its column implied */
        slots = rows > 0 ? exp2(F->f[9]) * nnz / rows * ld : 0;
        idx = 0;
        break;
    case RVS_FMT_HYBDIA: idx = 0; break; /* at best every entry on a dense diagonal */
    default: break;                      /* COO, HCC, JAD, HYB: an index and a value an entry */
    }
    return ((double)F->cols + rows) * vs + slots * (idx + val) + ptr;
}

int rvs_model_floor(rvs_decision *d, const rvs_features *F, rvs_vtype vt, double bytes_per_ms, double l2_bytes)
{
    int n = 0;
    for (int i = 0; bytes_per_ms > 0 && i < d->ncand; i++) {
        rvs_candidate *c = &d->cand[i];
        const double least = rvs_model_least_bytes(c, F, vt);
        if (c->pred_ms > 0 && least > 2 * l2_bytes && c->pred_ms < least / bytes_per_ms) {
            c->pred_ms = least / bytes_per_ms;
            n++;
        }
    }
    return n;
}

int rvs_model_predict(rvs_decision *d, const rvs_features *F, rvs_device dev, rvs_vtype vt)
{
    const char *fit = fit_of(dev), *vts = vt == RVS_F64 ? "f64" : vt == RVS_F32 ? "f32" : NULL;
    int n = 0;
    d->fit[0] = 0;
    for (int i = 0; i < d->ncand; i++)
        d->cand[i].pred_ms = -1;
    if (!fit || !vts)
        return 0;
    for (int i = 0; i < d->ncand; i++) {
        char key[256];
        if (!rvs_model_key(&d->cand[i], key, sizeof key))
            continue;
        for (int k = 0; k < NCOEF; k++) {
            if (strcmp(advisor_coef[k].device, fit) || strcmp(advisor_coef[k].vtype, vts) ||
                strcmp(advisor_coef[k].candidate, key))
                continue;
            double l = advisor_coef[k].w[0];
            for (int f = 0; f < RVS_NFEAT; f++)
                l += advisor_coef[k].w[1 + f] * F->f[f];
            d->cand[i].pred_ms = exp2(l);
            d->cand[i].pred_sigma = advisor_coef[k].sigma;
            n++;
            break;
        }
    }
    if (n == 0)
        return 0;
    snprintf(d->fit, sizeof d->fit, "%s", fit);
    double bw, l2;
    rvs_gpu_memory_peak(&bw, &l2);
    rvs_model_floor(d, F, vt, bw / 1e3, l2);
    /* a candidate without a fit (too few matrices it ran on to fit one, DIA's stencils among them)
     * is weighed by its bytes against the fastest fitted CSR (bandwidth against bandwidth: the
     * default kernel's fit, spread over every kernel the rule picks, predicted 0.49 ms for a block
     * of the 7-point stencil 200^3 that row-block ran in 0.059), unsure by a factor of 2 */
    const rvs_candidate *csr = NULL;
    for (int i = 0; i < d->ncand; i++)
        if (d->cand[i].format == RVS_FMT_CSR && d->cand[i].pred_ms > 0 && d->cand[i].model_bytes > 0 &&
            (!csr || d->cand[i].pred_ms < csr->pred_ms))
            csr = &d->cand[i];
    for (int i = 0; csr && i < d->ncand; i++) {
        rvs_candidate *c = &d->cand[i];
        if (c->pred_ms <= 0 && c->model_bytes > 0 && csr->model_bytes > 0) {
            c->pred_ms = csr->pred_ms * c->model_bytes / csr->model_bytes;
            c->pred_sigma = 1.0;
            n++;
        }
    }
    rvs_model_floor(d, F, vt, bw / 1e3, l2); /* the unfitted too, scaled from CSR's */
    return n;
}
