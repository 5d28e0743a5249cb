/* rvs_text_input.c - the text inputs of every program: Matrix Market, or an edge list with
 * --edges (and --size N) */
#include <string.h>
#include "rvs_tool.h"

static int edges_input;    /* --edges: text inputs are edge lists */
static int64_t edges_size; /* --size N: their size; 0: the largest index + 1 */

/* --edges and --size VALUE. */
void rvs_tool_input_option(int c, const char *value)
{
    if (c == RVS_OPT_EDGES)
        edges_input = 1;
    else if (c == RVS_OPT_SIZE)
        edges_size = rvs_tool_parse_int("--size", value, 1, INT64_MAX);
}

/* An edge list's summary in the words of a Matrix Market banner: what the stream's mmhd chunk
 * records and the writer keeps (pattern stays pattern). */
static void edges_as_mm(const rvs_edges_info *e, rvs_mm_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "coordinate");
    snprintf(info->field, sizeof info->field, "%s", e->weighted ? "real" : "pattern");
    snprintf(info->symmetry, sizeof info->symmetry, "general");
    info->rows = info->cols = e->size;
    info->entries = e->edges;
}

/* Read a text input (after the n bytes of head already read from f when it is stdin). */
rvs_status rvs_tool_read_text(rvs_csr *A, rvs_mm_info *info, const char *path, FILE *f, const void *head, size_t n,
                              rvs_progress_fn progress, rvs_error *err)
{
    if (edges_size && !edges_input)
        rvs_tool_usage("--size is the size of an edge list: it needs --edges");
    if (!edges_input)
        return f ? rvs_mm_read_stream(A, info, f, head, n, progress, NULL, err)
                 : rvs_mm_read_file(A, info, path, progress, NULL, err);
    rvs_edges_options o = {.size = edges_size};
    rvs_edges_info e;
    rvs_status st = f ? rvs_edges_read_stream(A, &e, f, head, n, &o, progress, NULL, err)
                      : rvs_edges_read_file(A, &e, path, &o, progress, NULL, err);
    if (st == RVS_OK)
        edges_as_mm(&e, info);
    return st;
}
