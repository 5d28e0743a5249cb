/* stream_edit.c - test helper: spoil a valid stream the way a buggy or hostile writer would
 * and write it with valid CRCs, so that readers must refuse it on its content:
 *   overlap|miss|outside  a partition with rows in two parts, a row in none, a row outside
 *   param=I:V             param I of every format block set to V
 *   auto=P                a current 'auto' chunk with a decision for part P (0-based)
 *   advice                a current 'auto' chunk with a GPU decision for every part (or the
 *                         whole matrix) whose candidates have known predicted and trial times
 *   plac=bind:N|short|twice  a 'plac' chunk binding part 1 to processor N, one 4 bytes short,
 *                         or two of them
 *   pad=V                 the first padding slot (column -1) of every ELL or ELLR block holds V
 *   row=V                 the first row of part 1 is V; fmtpart=V: every format block is of part
 *                         V (0-based, -1 the whole matrix); hubcol=V: the hub's first column is V
 * stream_edit OP IN OUT */
#include <stdlib.h>
#include <string.h>
#include "rvs.h"
#include "rvs_engine.h"

/* A current 'auto' chunk naming part (which S need not have). */
static int add_auto(rvs_stream *S, const char *spec)
{
    rvs_decision d;
    rvs_decisions D = {0};
    rvs_error err;
    char *end;
    memset(&d, 0, sizeof d);
    d.part = (int)strtol(spec, &end, 10);
    if (*end)
        return 0;
    d.device = RVS_DEV_CPU;
    d.vtype = S->A.vtype;
    d.ncand = 1;
    d.cand[0].format = RVS_FMT_CSR;
    rvs_knobs_default(&d.cand[0].knobs);
    d.cand[0].status = RVS_CAND_RAN;
    d.cand[0].ms = 1;
    D.n = 1;
    D.d = &d;
    return rvs_decisions_write(S, &D, &err) == RVS_OK;
}

/* For every part p (the whole matrix without a partition) a GPU decision by trial: csr
 * predicted 0.02(p+1) ms and run in 0.025(p+1), ellr (chosen) 0.01(p+1) and 0.012(p+1), hyb
 * predicted 0.03(p+1) and pruned, coo pruned without a prediction. */
static int add_advice(rvs_stream *S)
{
    static const rvs_format_id format[] = {RVS_FMT_CSR, RVS_FMT_ELLR, RVS_FMT_HYB, RVS_FMT_COO};
    static const double pred[] = {0.02, 0.01, 0.03, -1}, ms[] = {0.025, 0.012, -1, -1};
    const int n = S->has_partition ? S->partition.k : 1;
    rvs_decisions D = {0};
    rvs_error err;
    D.d = calloc((size_t)n, sizeof *D.d);
    if (!D.d)
        return 0;
    for (int p = 0; p < n; p++) {
        rvs_decision *d = &D.d[p];
        d->part = S->has_partition ? p : -1;
        d->device = RVS_DEV_GPU;
        d->vtype = S->A.vtype;
        d->how = RVS_HOW_TRIAL;
        d->ncand = 4;
        d->chosen = 1;
        for (int k = 0; k < 4; k++) {
            rvs_candidate *c = &d->cand[k];
            c->format = format[k];
            rvs_knobs_default(&c->knobs);
            c->status = ms[k] > 0 ? RVS_CAND_RAN : RVS_CAND_PRUNED;
            c->ms = ms[k] > 0 ? ms[k] * (p + 1) : -1;
            c->pred_ms = pred[k] > 0 ? pred[k] * (p + 1) : -1;
            c->model_bytes = -1;
        }
    }
    D.n = n;
    const int ok = rvs_decisions_write(S, &D, &err) == RVS_OK;
    free(D.d);
    return ok;
}

/* A 'plac' chunk spoiled as spec says. */
static int spoil_plac(rvs_stream *S, const char *spec)
{
    rvs_error err;
    int32_t *number = calloc((size_t)S->partition.k, sizeof *number);
    if (!S->has_partition || !number || rvs_placement_set(S, number, &err) != RVS_OK) /* every part on 0 */
        return 0;
    free(number);
    rvs_raw_chunk *c = &S->extra[S->nextra - 1];
    if (strncmp(spec, "bind:", 5) == 0) {
        int32_t n = (int32_t)atol(spec + 5);
        memcpy((uint8_t *)c->data + 8 + 8, &n, 4); /* record 0: i64 rows, then i32 processor */
    } else if (strcmp(spec, "short") == 0) {
        c->len -= 4;
    } else if (strcmp(spec, "twice") == 0) {
        rvs_raw_chunk *grown = realloc(S->extra, ((size_t)S->nextra + 1) * sizeof *grown);
        if (!grown)
            return 0;
        S->extra = grown;
        c = &S->extra[S->nextra - 1];
        S->extra[S->nextra] = *c;
        if (!(S->extra[S->nextra].data = malloc(c->len)))
            return 0;
        memcpy(S->extra[S->nextra].data, c->data, c->len);
        S->nextra++;
    } else {
        return 0;
    }
    return 1;
}

/* The first padding slot of every ELL or ELLR block set to v; 0 when none has one. */
static int spoil_padding(rvs_stream *S, double v)
{
    int done = 0;
    for (int b = 0; b < S->nfmt; b++) {
        rvs_fmt *F = &S->fmt[b].fmt;
        const rvs_array *col = rvs_fmt_array(F, "col"), *val = rvs_fmt_array(F, "values");
        if ((F->id != RVS_FMT_ELL && F->id != RVS_FMT_ELLR) || !col || !val)
            continue;
        for (int64_t s = 0; s < col->count; s++)
            if (((const int32_t *)col->data)[s] == -1) {
                if (val->dtype == RVS_DT_F64)
                    ((double *)val->data)[s] = v;
                else
                    ((float *)val->data)[s] = (float)v;
                done = 1;
                break;
            }
    }
    return done;
}

/* Set param i of every format block of S to v. */
static int set_param(rvs_stream *S, const char *spec)
{
    char *end;
    const long i = strtol(spec, &end, 10);
    if (*end != ':' || i < 0 || i >= RVS_FMT_MAX_PARAMS || S->nfmt < 1)
        return 0;
    const long long v = strtoll(end + 1, &end, 10);
    if (*end)
        return 0;
    for (int b = 0; b < S->nfmt; b++)
        S->fmt[b].fmt.param[i] = v;
    return 1;
}

int main(int argc, char **argv)
{
    rvs_stream S;
    rvs_error err;
    FILE *in, *out;
    if (argc != 4 || !(in = fopen(argv[2], "rb"))) {
        fprintf(stderr, "usage: stream_edit overlap|miss|outside|param=I:V|auto=P|advice|plac=...|pad=V IN OUT\n");
        return 64;
    }
    if (rvs_stream_read(&S, in, NULL, 0, &err) != RVS_OK) {
        fprintf(stderr, "stream_edit: %s: %s\n", argv[2], err.msg);
        return 65;
    }
    fclose(in);
    if (strncmp(argv[1], "row=", 4) == 0 && S.has_partition && S.partition.parts[0].nrows > 0) {
        S.partition.parts[0].rows[0] = atoll(argv[1] + 4);
    } else if (strncmp(argv[1], "fmtpart=", 8) == 0 && S.nfmt > 0) {
        for (int b = 0; b < S.nfmt; b++)
            S.fmt[b].part = atoi(argv[1] + 8);
    } else if (strncmp(argv[1], "hubcol=", 7) == 0 && S.A.nnz > 0 && S.A.colind) {
        S.A.colind[0] = (int32_t)atol(argv[1] + 7);
    } else if (strncmp(argv[1], "auto=", 5) == 0 || strncmp(argv[1], "plac=", 5) == 0 ||
               strncmp(argv[1], "pad=", 4) == 0) {
        int done = argv[1][0] == 'a'   ? add_auto(&S, argv[1] + 5)
                   : argv[1][1] == 'l' ? spoil_plac(&S, argv[1] + 5)
                                       : spoil_padding(&S, atof(argv[1] + 4));
        if (!done) {
            fprintf(stderr, "stream_edit: %s: cannot apply %s\n", argv[2], argv[1]);
            return 65;
        }
    } else if (strcmp(argv[1], "advice") == 0) {
        if (!add_advice(&S)) {
            fprintf(stderr, "stream_edit: %s: cannot add the decisions\n", argv[2]);
            return 70;
        }
    } else if (strncmp(argv[1], "param=", 6) == 0) {
        if (!set_param(&S, argv[1] + 6)) {
            fprintf(stderr, "stream_edit: %s: no format block, or not param=I:V\n", argv[2]);
            return 64;
        }
    } else {
        if (!S.has_partition || S.partition.k < 2 || S.partition.parts[0].nrows < 1 ||
            S.partition.parts[1].nrows < 1) {
            fprintf(stderr, "stream_edit: %s: want a stream with two non-empty parts\n", argv[2]);
            return 65;
        }
        rvs_part *p = S.partition.parts, *last = &p[S.partition.k - 1];
        if (strcmp(argv[1], "overlap") == 0)
            p[1].rows[0] = p[0].rows[0];
        else if (strcmp(argv[1], "miss") == 0)
            last->nrows--;
        else if (strcmp(argv[1], "outside") == 0)
            p[0].rows[0] = S.A.rows;
        else
            return 64;
    }
    if (!(out = fopen(argv[3], "wb")) || rvs_stream_write(out, &S, &err) != RVS_OK || fclose(out) != 0) {
        fprintf(stderr, "stream_edit: %s: %s\n", argv[3], err.msg);
        return 74;
    }
    rvs_stream_free(&S);
    return 0;
}
