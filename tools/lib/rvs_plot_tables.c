/* rvs_plot_tables.c - the tables plots/ draws from: a density grid of the sparsity pattern
 * with the parts, the parts' row-length ranges with their formats, the advisor's candidates */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rvs_plot_tables.h"
#include "rvs_report.h"

int rvs_spy_parse(const char *s, int *w, int *h)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return 0;
    long a = strtol(s, &end, 10);
    if (*end != 'x' || !isdigit((unsigned char)end[1]))
        return 0;
    long b = strtol(end + 1, &end, 10);
    if (*end || a < 1 || a > RVS_SPY_MAX || b < 1 || b > RVS_SPY_MAX)
        return 0;
    *w = (int)a;
    *h = (int)b;
    return 1;
}

/* A row's entries of one class, held by one part (part -1: no partition). */
typedef struct {
    int32_t part;
    int32_t cls;
    int64_t row;
} spy_item;

static int item_cmp(const void *a, const void *b)
{
    const spy_item *x = a, *y = b;
    if (x->part != y->part)
        return x->part < y->part ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* owner[cls * rows + r]: the part holding row r's entries of class cls, -1 for none. */
static int32_t *row_owners(const rvs_partition *P, int64_t rows)
{
    if ((uint64_t)rows > SIZE_MAX / (3 * sizeof(int32_t)) - 1)
        return NULL;
    int32_t *o = malloc((size_t)rows * 3 * sizeof *o + 1);
    if (!o)
        return NULL;
    for (int64_t i = 0; i < rows * 3; i++)
        o[i] = -1;
    for (int p = 0; p < P->k; p++)
        for (int64_t i = 0; i < P->parts[p].nrows; i++)
            o[(int64_t)P->parts[p].entries * rows + P->parts[p].rows[i]] = p;
    return o;
}

/* The grid being counted: one row of cells at a time. */
typedef struct {
    const rvs_csr *A;
    int64_t block_size;        /* Algorithm 4's diagonal blocks */
    int64_t bc, ncell;         /* columns per cell, cells in a row */
    int64_t *nnz, *best, *tmp; /* per cell: entries, the leading part's, the current part's */
    int32_t *best_part;
    int64_t *touched, ntouched; /* cells the current part reached */
} spy_grid;

/* Count item's entries into the current part's cells. */
static void count_item(spy_grid *g, const spy_item *it)
{
    const rvs_csr *A = g->A;
    for (int64_t p = A->rowptr[it->row]; p < A->rowptr[it->row + 1]; p++) {
        const int64_t c = rvs_csr_col(A, p);
        if (it->cls != RVS_ENTRIES_ALL &&
            (c / g->block_size == it->row / g->block_size) != (it->cls == RVS_ENTRIES_DIAG))
            continue;
        const int64_t cell = c / g->bc;
        if (g->tmp[cell]++ == 0)
            g->touched[g->ntouched++] = cell;
    }
}

/* The current part (part) is done: add its cells, and lead where it holds the most. */
static void close_part(spy_grid *g, int32_t part)
{
    for (int64_t t = 0; t < g->ntouched; t++) {
        const int64_t cell = g->touched[t];
        g->nnz[cell] += g->tmp[cell];
        if (g->tmp[cell] > g->best[cell]) {
            g->best[cell] = g->tmp[cell];
            g->best_part[cell] = part;
        }
        g->tmp[cell] = 0;
    }
    g->ntouched = 0;
}

/* Items of rows [r0, r1), grouped by part. */
static int64_t row_items(spy_item *items, const int32_t *owner, int64_t rows, int64_t r0, int64_t r1)
{
    int64_t n = 0;
    for (int64_t r = r0; r < r1; r++) {
        if (!owner) {
            items[n++] = (spy_item){-1, RVS_ENTRIES_ALL, r};
            continue;
        }
        for (int cls = RVS_ENTRIES_ALL; cls <= RVS_ENTRIES_OFFDIAG; cls++)
            if (owner[cls * rows + r] >= 0)
                items[n++] = (spy_item){owner[cls * rows + r], cls, r};
    }
    if (owner)
        qsort(items, (size_t)n, sizeof *items, item_cmp);
    return n;
}

/* Count and print rows [r0, r1) as one row of cells centred on row y. */
static void spy_row(FILE *f, spy_grid *g, spy_item *items, int64_t n, double y)
{
    memset(g->nnz, 0, (size_t)g->ncell * sizeof *g->nnz);
    memset(g->best, 0, (size_t)g->ncell * sizeof *g->best);
    for (int64_t i = 0; i < n; i++) {
        count_item(g, &items[i]);
        if (i + 1 == n || items[i + 1].part != items[i].part)
            close_part(g, items[i].part);
    }
    for (int64_t c = 0; c < g->ncell; c++)
        fprintf(f, "%.10g %.10g %lld %d\n", (double)(c * g->bc) + (double)(g->bc + 1) / 2, y, (long long)g->nnz[c],
                g->nnz[c] ? g->best_part[c] + 1 : 0);
    fputc('\n', f);
}

rvs_status rvs_table_spy(FILE *f, const rvs_stream *S, int w, int h, rvs_error *err)
{
    const rvs_csr *A = &S->A;
    const rvs_partition *P = S->has_partition ? &S->partition : NULL;
    char name[RVS_TEXT_NAME_MAX];
    const int64_t br = A->rows > h ? (A->rows + h - 1) / h : 1, bc = A->cols > w ? (A->cols + w - 1) / w : 1;
    const int64_t nrow = (A->rows + br - 1) / br, ncell = (A->cols + bc - 1) / bc;
    const int64_t max_items = 3 * br; /* a row's entries of each class */
    spy_grid g = {A, P && P->block_size > 0 ? P->block_size : 32, bc, ncell, NULL, NULL, NULL, NULL, NULL, 0};
    spy_item *items = malloc((size_t)max_items * sizeof *items);
    int32_t *owner = P ? row_owners(P, A->rows) : NULL;
    rvs_status st = RVS_OK;
    g.nnz = calloc((size_t)ncell + 1, sizeof *g.nnz);
    g.best = calloc((size_t)ncell + 1, sizeof *g.best);
    g.tmp = calloc((size_t)ncell + 1, sizeof *g.tmp);
    g.touched = calloc((size_t)ncell + 1, sizeof *g.touched);
    g.best_part = calloc((size_t)ncell + 1, sizeof *g.best_part);
    if (!items || (P && !owner) || !g.nnz || !g.best || !g.tmp || !g.touched || !g.best_part) {
        st = rvs_fail(err, RVS_ERR_NOMEM, "out of memory for a spy grid of %lld x %lld cells", (long long)ncell,
                      (long long)nrow);
        goto done;
    }
    fprintf(f, "# spy rows %lld cols %lld nnz %lld cells %lld %lld block %lld %lld parts %d matrix %s\n",
            (long long)A->rows, (long long)A->cols, (long long)A->nnz, (long long)ncell, (long long)nrow,
            (long long)br, (long long)bc, P ? P->k : 0, rvs_report_text_name(S->name, name, sizeof name));
    fprintf(f, "# x y nnz part\n");
    for (int64_t b = 0; b < nrow; b++) {
        const int64_t r0 = b * br, r1 = r0 + br < A->rows ? r0 + br : A->rows;
        const int64_t n = row_items(items, owner, A->rows, r0, r1);
        spy_row(f, &g, items, n, (double)r0 + (double)(br + 1) / 2);
    }
done:
    free(items);
    free(owner);
    free(g.nnz);
    free(g.best);
    free(g.tmp);
    free(g.touched);
    free(g.best_part);
    return st;
}

/* The format of part (-1: the whole matrix) on device dev: its block's, else the current
 * decision's, else "-". */
static const char *part_format(const rvs_stream *S, const rvs_decisions *D, int current, int part, rvs_device dev)
{
    for (int i = 0; i < S->nfmt; i++)
        if (S->fmt[i].part == part)
            return rvs_format_lookup(S->fmt[i].fmt.id)->name;
    const rvs_decision *d = current && D ? rvs_decisions_find(D, part, dev) : NULL;
    const rvs_format_ops *ops = d && d->cand[d->chosen].format ? rvs_format_lookup(d->cand[d->chosen].format)
                                                               : NULL;
    return ops ? ops->name : "-";
}

/* "kmin kmax" of the rows listed (all rows when rows is NULL), "- -" for none. */
static void print_krange(FILE *f, const rvs_csr *A, const int64_t *rows, int64_t n)
{
    int64_t lo = INT64_MAX, hi = -1;
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = rows ? rows[i] : i, k = A->rowptr[r + 1] - A->rowptr[r];
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    if (hi < 0)
        fputs(" - -", f);
    else
        fprintf(f, " %lld %lld", (long long)lo, (long long)hi);
}

rvs_status rvs_table_ranges(FILE *f, const rvs_stream *S, const rvs_decisions *D, int current, rvs_error *err)
{
    const rvs_partition *P = &S->partition;
    char name[RVS_TEXT_NAME_MAX];
    fprintf(f, "# ranges rows %lld nnz %lld alg %s parts %d matrix %s\n", (long long)S->A.rows, (long long)S->A.nnz,
            S->has_partition ? rvs_alg_name(P->alg) : "-", S->has_partition ? P->k : 0,
            rvs_report_text_name(S->name, name, sizeof name));
    fprintf(f, "# part device format kmin kmax rows nnz\n");
    if (!S->has_partition) {
        const rvs_decision *d = current && D ? rvs_decisions_find(D, -1, RVS_DEV_GPU) : NULL;
        if (!d && current && D)
            d = rvs_decisions_find(D, -1, RVS_DEV_CPU);
        fprintf(f, "all %s %s", d ? (d->device == RVS_DEV_GPU ? "gpu" : "cpu") : "-",
                part_format(S, D, current, -1, d ? d->device : RVS_DEV_CPU));
        print_krange(f, &S->A, NULL, S->A.rows);
        fprintf(f, " %lld %lld\n", (long long)S->A.rows, (long long)S->A.nnz);
        return RVS_OK;
    }
    int32_t *number = rvs_report_placement(S);
    if (!number)
        return rvs_fail(err, RVS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < P->k; i++) {
        const rvs_part *q = &P->parts[i];
        char num[16] = "";
        if (number[i] >= 0)
            snprintf(num, sizeof num, "%d", (int)number[i]);
        fprintf(f, "%d %s%s %s", i + 1, q->device == RVS_DEV_GPU ? "gpu" : "cpu", num,
                part_format(S, D, current, i, q->device));
        print_krange(f, &S->A, q->rows, q->nrows);
        fprintf(f, " %lld %lld\n", (long long)q->nrows, (long long)q->nnz);
    }
    free(number);
    return RVS_OK;
}

void rvs_table_candidates(FILE *f, const rvs_stream *S, const rvs_decisions *D, int current)
{
    char name[RVS_TEXT_NAME_MAX], key[256];
    fprintf(f, "# candidates decisions %d current %s matrix %s\n", D->n, current ? "yes" : "no",
            rvs_report_text_name(S->name, name, sizeof name));
    fprintf(f, "# gpu %s\n", rvs_report_text_name(D->device[0] ? D->device : "-", name, sizeof name));
    fprintf(f, "# part device vtype how candidate pred_ms trial_ms status chosen\n");
    for (int i = 0; i < D->n; i++) {
        const rvs_decision *d = &D->d[i];
        for (int k = 0; k < d->ncand; k++) {
            const rvs_candidate *c = &d->cand[k];
            const int ran = c->status == RVS_CAND_RAN && c->ms >= 0;
            if (c->pred_ms <= 0 && !ran && k != d->chosen)
                continue;
            rvs_model_key(c, key, sizeof key);
            if (d->part < 0)
                fputs("all", f);
            else
                fprintf(f, "%d", d->part + 1);
            fprintf(f, " %s %s %s %s ", d->device == RVS_DEV_GPU ? "gpu" : "cpu", rvs_vtype_name(d->vtype),
                    rvs_how_name(d->how), key);
            if (c->pred_ms > 0)
                fprintf(f, "%.6g ", c->pred_ms);
            else
                fputs("- ", f);
            if (ran)
                fprintf(f, "%.6g", c->ms);
            else
                fputs("-", f);
            fprintf(f, " %s %s\n", rvs_report_cand_status(c->status), k == d->chosen ? "yes" : "no");
        }
    }
}

rvs_status rvs_plot_table(FILE *f, const rvs_plot_request *t, const rvs_stream *S, const rvs_decisions *D,
                          int current, rvs_error *err)
{
    rvs_status st = RVS_OK;
    if (t->kind == RVS_PLOT_SPY)
        st = rvs_table_spy(f, S, t->w, t->h, err);
    else if (t->kind == RVS_PLOT_RANGES)
        st = rvs_table_ranges(f, S, D, current, err);
    else if (t->kind == RVS_PLOT_CANDIDATES)
        rvs_table_candidates(f, S, D, current);
    return st;
}
