/* plan_print.c - a plan as text: a '#' header saying the mode, the value type, the streams and
 * the planner's note, then one whitespace-separated line per item */
#include <string.h>
#include "rvs_engine.h"

void rvs_plan_item_parts(const rvs_plan_item *it, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < it->nparts && used < n; k++) {
        int w = it->parts[k] < 0 ? snprintf(buf + used, n - used, "all")
                                 : snprintf(buf + used, n - used, "%s%d", k ? "," : "", it->parts[k] + 1);
        used += w > 0 ? (size_t)w : 0;
    }
    if (it->row_hi > it->row_lo && used < n)
        snprintf(buf + used, n - used, ":%lld-%lld", (long long)it->row_lo + 1, (long long)it->row_hi);
}

void rvs_plan_print(FILE *f, const rvs_plan *P, const rvs_stream *S, const char *prefix)
{
    static const char *modes[] = {"?", "cpu", "gpu", "hybrid"};
    char parts[1024], knobs[256];
    int gpu = 0;
    for (int i = 0; i < P->nitems; i++)
        gpu += P->items[i].device == RVS_DEV_GPU;
    fprintf(f, "# plan: mode %s, %s, %d item%s", modes[P->mode], rvs_vtype_name(P->vtype), P->nitems,
            P->nitems == 1 ? "" : "s");
    if (gpu)
        fprintf(f, ", %d on the GPU over %d stream%s in one CUDA graph", gpu, P->nstreams,
                P->nstreams == 1 ? "" : "s");
    if (S->has_partition)
        fprintf(f, ", partition %s of %d parts", rvs_alg_name(S->partition.alg), S->partition.k);
    if (P->nsplit)
        fprintf(f, ", %d row blocks", P->nsplit);
    if (gpu && P->gpu_budget != SIZE_MAX)
        fprintf(f, ", device budget %.1f MiB", (double)P->gpu_budget / (1024.0 * 1024.0));
    fprintf(f, "%s%s\n", P->note[0] ? "; " : "", P->note);
    if (P->decide_ms > 0)
        fprintf(f, "# deciding formats took %.1f ms\n", P->decide_ms);
    fprintf(f, "# item parts device format tunables phase stream rows nnz source how pred_ms trial_ms memory\n");
    for (int i = 0; i < P->nitems; i++) {
        const rvs_plan_item *it = &P->items[i];
        rvs_plan_item_parts(it, parts, sizeof parts);
        rvs_knobs_format(&it->knobs, knobs, sizeof knobs);
        fprintf(f, "%s%d %s %s %s %s %d %d %lld %lld %s ", prefix, i + 1, parts,
                it->device == RVS_DEV_GPU ? "gpu" : "cpu", rvs_format_lookup(it->format)->name, knobs, it->phase,
                it->device == RVS_DEV_GPU ? it->stream : -1, (long long)it->rows, (long long)it->nnz, it->source);
        fprintf(f, "%s ", rvs_how_name(it->how));
        if (it->pred_ms > 0)
            fprintf(f, "%.4f ", it->pred_ms);
        else
            fputs("- ", f);
        if (it->trial_ms >= 0)
            fprintf(f, "%.4f", it->trial_ms);
        else
            fputs("-", f);
        if (it->device != RVS_DEV_GPU)
            fputs(" host\n", f);
        else if (it->streamed)
            fprintf(f, " streamed/%lld\n", (long long)it->nchunks);
        else
            fputs(" device\n", f);
    }
    rvs_plan_print_candidates(f, P, prefix);
}

static const char *status_word(rvs_cand_status s)
{
    return s == RVS_CAND_RAN ? "ran" : s == RVS_CAND_REFUSED ? "refused" : s == RVS_CAND_FAILED ? "failed" : "-";
}

void rvs_plan_print_candidates(FILE *f, const rvs_plan *P, const char *prefix)
{
    char key[256];
    int any = 0;
    for (int i = 0; i < P->nitems; i++) {
        const rvs_plan_item *it = &P->items[i];
        if (it->decision < 0 || it->decision >= P->decisions.n)
            continue;
        const rvs_decision *d = &P->decisions.d[it->decision];
        if (!any++)
            fprintf(f, "# candidates: item candidate pred_ms trial_ms status (the model's and the trials' times; "
                       "* chosen, + pending)\n");
        for (int k = 0; k < d->ncand; k++) {
            const rvs_candidate *c = &d->cand[k];
            int pending = 0;
            for (int q = 0; q < d->npending; q++)
                pending |= d->pending[q] == k;
            if (c->pred_ms <= 0 && c->status != RVS_CAND_RAN && k != d->chosen)
                continue;
            rvs_model_key(c, key, sizeof key);
            fprintf(f, "%s%d %s%s ", prefix, i + 1, k == d->chosen ? "*" : pending ? "+" : "", key);
            if (c->pred_ms > 0)
                fprintf(f, "%.4f ", c->pred_ms);
            else
                fputs("- ", f);
            if (c->status == RVS_CAND_RAN && c->ms >= 0)
                fprintf(f, "%.4f %s\n", c->ms, status_word(c->status));
            else
                fprintf(f, "- %s\n", status_word(c->status));
        }
    }
}
