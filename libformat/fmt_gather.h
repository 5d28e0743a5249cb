/* fmt_gather.h - format builders in steps, so that a block can be built from rows that arrive in
 * windows (rvs_fmt_from_rows): sized from every row's length, optionally a look at every entry
 * (DIA and HCC: which diagonals, how many segments), then filled window by window. A format's
 * from_csr runs the same steps over the whole matrix as one window, so both ways build the same
 * block. Private to libformat. */
#ifndef RVS_FMT_GATHER_H
#define RVS_FMT_GATHER_H

#include "rvs_format.h"

/* Some rows of the block with their entries. */
typedef struct {
    const rvs_csr *L; /* the block's rows: their count and sizes (L->rowptr, their lengths, only
                          in shape, or when the block is built from one matrix as a whole: then
                          W == L) */
    const rvs_csr *W; /* this window's rows with their entries, row pointers from 0: W's row j
                          is the block's row first + j */
    int64_t first;
    void *state; /* the format's own, from shape to done */
} rvs_window;

/* A format's build in steps. A window holds whole rows; windows come in row order and cover
 * every row once (an empty block gets one empty window). */
typedef struct {
    rvs_format_id id;
    int64_t align; /* windows end at multiples of align rows (or the last row); 0: anywhere */
    /* The first row at or after r where a window may end (NULL: align decides). */
    int64_t (*cut)(const void *state, int64_t r);
    /* F (F->id set) sized from L's lengths with every refusal that needs no entry; with
     * o->admit_only only the refusals. *state for the later steps (may stay NULL). */
    rvs_status (*shape)(rvs_fmt *F, const rvs_csr *L, const rvs_fmt_options *o, void **state, rvs_error *err);
    /* NULL, or a look at each window's entries before sized (which then makes the refusals left,
     * stops there with o->admit_only, and sizes the rest of F); admit_scans: some refusal needs
     * that look (else o->admit_only stops after shape). */
    rvs_status (*scan)(rvs_fmt *F, const rvs_window *w, rvs_error *err);
    int admit_scans;
    rvs_status (*sized)(rvs_fmt *F, const rvs_csr *L, const rvs_fmt_options *o, void *state, rvs_error *err);
    /* The window's rows into F (and, after the last row, whatever follows it: padding). */
    rvs_status (*fill)(rvs_fmt *F, const rvs_window *w, rvs_error *err);
    void (*done)(void *state);
} rvs_fmt_gather;

/* *o (the defaults for NULL) with consume off: the options of the steps, and of admitting. */
rvs_fmt_options rvs_fmt_options_unconsumed(const rvs_fmt_options *o);

/* F = A in g's format: the steps over A as one window (a builder's from_csr). */
rvs_status rvs_gather_whole(const rvs_fmt_gather *g, rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o,
                            rvs_error *err);

/* The window's end, for a layout that stores rows in their order: positions [first, first +
 * W->rows), and when that reaches L->rows, the positions up to npos after it (padding). */
static inline int64_t rvs_window_end(const rvs_window *w, int64_t npos)
{
    const int64_t e = w->first + w->W->rows;
    return e >= w->L->rows ? npos : e;
}

/* 1 when the window holds every row of the block. */
static inline int rvs_window_whole(const rvs_window *w)
{
    return w->first == 0 && w->W->rows == w->L->rows;
}

#endif
