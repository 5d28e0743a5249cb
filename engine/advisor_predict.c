/* advisor_predict.c - the advisor's fitted model: a candidate's time from a part's features,
 * log2(ms) linear in them, with coefficients fitted per device class, value type and candidate
 * to what bench/advisor_train.sh measured (engine/advisor_coef.h, made by bench/advisor_fit.py).
 * Only the GPU has a fit so far; every CUDA device takes the H100's (the ranking, not the
 * times, is what the advisor needs of it). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "engine_internal.h"
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
    /* a candidate without a fit (too few matrices it ran on to fit one, DIA's stencils among them)
     * is weighed by its bytes against the fitted default CSR, unsure by a factor of 2 */
    const rvs_candidate *csr = NULL;
    for (int i = 0; i < d->ncand && !csr; i++)
        if (d->cand[i].format == RVS_FMT_CSR && d->cand[i].pred_ms > 0 && d->cand[i].knobs.tune.csr_kernel == 0 &&
            d->cand[i].knobs.tune.threads_per_row == 0 && d->cand[i].knobs.fo.csr_order == 0)
            csr = &d->cand[i];
    for (int i = 0; csr && i < d->ncand; i++) {
        rvs_candidate *c = &d->cand[i];
        if (c->pred_ms <= 0 && c->model_bytes > 0 && csr->model_bytes > 0) {
            c->pred_ms = csr->pred_ms * c->model_bytes / csr->model_bytes;
            c->pred_sigma = 1.0;
            n++;
        }
    }
    return n;
}
