/* plan_print.c - a plan as text: a '#' header saying the mode, the value type, the streams and
 * the planner's note, then one whitespace-separated line per item */
#include <string.h>
#include "rvs_engine.h"

/* "1,2,5" (1-based parts) or "all" into buf. */
static void parts_text(const rvs_plan_item *it, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int k = 0; k < it->nparts && used < n; k++) {
        int w = it->parts[k] < 0 ? snprintf(buf + used, n - used, "all")
                                 : snprintf(buf + used, n - used, "%s%d", k ? "," : "", it->parts[k] + 1);
        used += w > 0 ? (size_t)w : 0;
    }
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
        fprintf(f, ", %d on the GPU over %d stream%s in one CUDA graph", gpu, P->nstreams, P->nstreams == 1 ? "" : "s");
    if (S->has_partition)
        fprintf(f, ", partition %s of %d parts", rvs_alg_name(S->partition.alg), S->partition.k);
    fprintf(f, "%s%s\n", P->note[0] ? "; " : "", P->note);
    fprintf(f, "# item parts device format tunables phase stream rows nnz source trial_ms\n");
    for (int i = 0; i < P->nitems; i++) {
        const rvs_plan_item *it = &P->items[i];
        parts_text(it, parts, sizeof parts);
        rvs_knobs_format(&it->knobs, knobs, sizeof knobs);
        fprintf(f, "%s%d %s %s %s %s %d %d %lld %lld %s ", prefix, i + 1, parts, it->device == RVS_DEV_GPU ? "gpu" : "cpu",
                rvs_format_lookup(it->format)->name, knobs, it->phase, it->device == RVS_DEV_GPU ? it->stream : -1,
                (long long)it->rows, (long long)it->nnz, it->source);
        if (it->trial_ms >= 0)
            fprintf(f, "%.4f\n", it->trial_ms);
        else
            fputs("-\n", f);
    }
}
