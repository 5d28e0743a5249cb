/* rvs_format.h - storage formats as named arrays, and the table of format operations */
#ifndef RVS_FORMAT_H
#define RVS_FORMAT_H

#include "rvs_csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format ids. Written to the stream: never renumber. */
typedef enum {
    RVS_FMT_CSR = 1,
    RVS_FMT_COO = 2,
    RVS_FMT_ELL = 3,
    RVS_FMT_ELLR = 4,
    RVS_FMT_PELLR = 5,
    RVS_FMT_BIELL = 6,
    RVS_FMT_JAD = 7,
    RVS_FMT_HYB = 8,    /* ELL + COO */
    RVS_FMT_HYBDIA = 9, /* DIA + COO */
    RVS_FMT_DIA = 10,
    RVS_FMT_HCC = 11,
    RVS_FMT_COUNT = 12
} rvs_format_id;

/* Element types of format arrays. Written to the stream: never renumber. */
typedef enum {
    RVS_DT_I32 = 1,
    RVS_DT_I64 = 2,
    RVS_DT_F32 = 3,
    RVS_DT_F64 = 4,
    RVS_DT_U8 = 5,
    RVS_DT_U32 = 6,
    RVS_DT_C64 = 7,  /* complex: two f32, real part first (stream 1.3) */
    RVS_DT_C128 = 8, /* complex: two f64, real part first (stream 1.3) */
    RVS_DT_U16 = 9   /* device arrays only (CSR's 16-bit column offsets on the GPU), never in a stream */
} rvs_dtype;

size_t rvs_dtype_size(rvs_dtype t);
/* The element type of values of type vt: F32, F64, C64 or C128. */
rvs_dtype rvs_value_dtype(rvs_vtype vt);

#define RVS_FMT_MAX_ARRAYS 12
#define RVS_FMT_MAX_PARAMS 8

/* One array of a format: a short name (NUL-padded, at most 7 characters), its element type,
 * element count and data (malloc'd, 64-byte aligned by rvs_fmt_add_array). */
typedef struct {
    char name[8];
    rvs_dtype dtype;
    int64_t count;
    void *data;
} rvs_array;

/* A matrix (or one part of a partition) in some format. The layout of each format - which
 * arrays, which params - is documented in its libformat/fmt_<name>.c and in rvskit.7.
 * CPU and GPU kernels read the same arrays. nnz counts stored matrix entries (explicit
 * zeros included), not padding. */
typedef struct {
    rvs_format_id id;
    int64_t rows, cols, nnz;
    rvs_vtype vtype;
    int64_t param[RVS_FMT_MAX_PARAMS];
    int narrays;
    rvs_array array[RVS_FMT_MAX_ARRAYS];
    uint32_t borrowed; /* bit i set: array[i].data belongs to someone else (rvs_fmt_free leaves it) */
} rvs_fmt;

#define RVS_HCC_MAX_NP 65536 /* HCC's column panels at most (the panel number's room in its sort key) */

/* Build options. */
typedef struct {
    int64_t hyb_k;         /* HYB threshold: >= 0 fixed K, RVS_HYB_K_AUTO, RVS_HYB_K_THIRD */
    int64_t hcc_np;        /* HCC panels (0: default), at most RVS_HCC_MAX_NP */
    int64_t hcc_nb;        /* HCC blocks wanted (0: default) */
    int64_t hcc_g;         /* HCC owner groups of the light part: 0 default (1), 1 or 8 (no shared-memory
                             * atomics in the light part: for f64 sums) */
    int64_t csr_order;     /* CSR on the GPU: 0 the row-block kernel's chunks stored in column order where it
                             * is the default kernel (param[2] = 0), 1 rows in order (param[2] = 1) */
    int64_t csr_values;    /* CSR on the GPU: 0 values as one-byte codes into a table where a block with
                             * csr_order 0 and real values holds at most RVS_DICT_MAX distinct values
                             * (param[3] = 0), 1 values as they are (param[3] = 1) */
    int64_t csr_panels;    /* CSR on the GPU: column panels (param[4]): 0 by the rule of
                             * kernels/gpu/csr_panels.cu (f32 blocks whose chunks span 2^20 columns),
                             * 1 none, P >= 2 that many (at most RVS_CSR_MAX_PANELS) */
    int64_t csr_index;     /* CSR on the GPU: 0 column indices as 16-bit offsets where a block read by the
                             * warp-rows and vector kernels spans fewer than 2^16 of them (param[5] = 0,
                             * rvs_csr_gpu_in_rows), 1 32-bit indices as they are (param[5] = 1) */
    int64_t dia_values;    /* DIA and HYB-DIA on the GPU: 0 the diagonals' slots as one-byte codes into a
                             * table where they hold at most RVS_DICT_MAX distinct values (DIA param[2],
                             * HYB-DIA param[3] = 0), 1 values as they are (= 1) */
    int64_t dia_max_ratio; /* DIA refused when padded storage > ratio * nnz (0: default) */
    int64_t ell_max_ratio; /* ELL/ELLR refused when slots > ratio * nnz and > RVS_ELL_FREE_SLOTS (0: default) */
    int admit_only;        /* run the format's refusals only, build nothing (rvs_fmt_admit sets it) */
    int consume;           /* ELL, ELLR, BiELL: give A's entries back (rvs_csr_release_entries) as they are
                             * copied, row block by row block: A is then only fit to be freed */
} rvs_fmt_options;
#define RVS_CSR_MAX_PANELS 1024
#define RVS_ELL_DEFAULT_RATIO 100
#define RVS_ELL_FREE_SLOTS (16LL << 20) /* up to this many slots ELL is always built */
#define RVS_HYB_K_AUTO (-1)
#define RVS_HYB_K_THIRD (-2)

/* Value dictionaries (value_dict.c): a block's values as one-byte codes into a table of at most
 * RVS_DICT_MAX distinct values, compared by their bits (vs: 4 or 8 bytes a value). */
#define RVS_DICT_MAX 256
/* The distinct values of values[0, n) into dict (room for RVS_DICT_MAX values), ascending by
 * their bits; returns their number, or -1 when there are more than RVS_DICT_MAX (found early:
 * it stops), n < 1, or memory runs out. */
int rvs_value_dict(const void *values, size_t vs, int64_t n, void *dict);
/* codes[i] = the position of values[i] in dict[0, nd); 0, or -1 when a value is not in dict (or
 * memory runs out). */
int rvs_value_encode(const void *values, size_t vs, int64_t n, const void *dict, int nd, uint8_t *codes);

/* Defaults for every option. */
void rvs_fmt_options_default(rvs_fmt_options *o);

/* What a format costs, for convert --report. */
typedef struct {
    int64_t bytes;  /* bytes of all arrays */
    int64_t padded; /* padding entries stored beyond nnz */
    int64_t n_iter; /* Eq. (1) of Wang and Gu 2020, warps of 32 rows (or rvs_fmt_stats_warp's); -1 if n/a */
    int64_t n_p;    /* Eq. (2) of Wang and Gu 2020; -1 if n/a */
} rvs_fmt_stats;

/* Operations of one format. Every field is set for every format (stats_warp NULL for some). */
typedef struct {
    rvs_format_id id;
    const char *name; /* lower case, as typed on the command line: "ell", "hyb-dia" */
    rvs_status (*from_csr)(rvs_fmt *F, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err);
    rvs_status (*to_csr)(rvs_csr *A, const rvs_fmt *F, rvs_error *err);
    /* Check arrays, counts and every index of F (read from a stream) before any kernel runs. */
    rvs_status (*validate)(const rvs_fmt *F, rvs_error *err);
    void (*stats)(const rvs_fmt *F, rvs_fmt_stats *s);
    /* stats with N_iter for warps of warp rows; NULL for the formats without a warp model */
    void (*stats_warp)(const rvs_fmt *F, int warp, rvs_fmt_stats *s);
} rvs_format_ops;

/* The operations of a format, by id or by name (case-insensitive); NULL if unknown. */
const rvs_format_ops *rvs_format_lookup(rvs_format_id id);
const rvs_format_ops *rvs_format_by_name(const char *name);
/* Comma-separated list of format names, for --help. */
const char *rvs_format_names(void);

/* Add a zero-filled array to F and return its data in *data. Checks count * size overflow. */
rvs_status rvs_fmt_add_array(rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, void **data,
                             rvs_error *err);
/* rvs_fmt_add_array without the zero fill, for a builder that writes every element itself:
 * its pages are touched only as it writes them. */
rvs_status rvs_fmt_add_array_unset(rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, void **data,
                                   rvs_error *err);
/* For tests: rvs_fmt_add_array_unset fills its arrays with byte (0..255) from now on, so that a
 * builder that leaves an element unwritten is caught; -1 (the default) leaves them unset. */
void rvs_fmt_poison_unset(int byte);
/* Add an array that points at memory F does not own (count elements of dt at data): F uses it
 * and rvs_fmt_free leaves it. For blocks over someone else's arrays (rvs_fmt_csr_borrow). */
rvs_status rvs_fmt_add_borrowed(rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, void *data,
                                rvs_error *err);
/* The array of F with that name, or NULL. */
const rvs_array *rvs_fmt_array(const rvs_fmt *F, const char *name);
/* Like rvs_fmt_array, but RVS_ERR_FORMAT unless it exists with dtype dt and count elements
 * (count < 0: any count). For validators. */
rvs_status rvs_fmt_require(const rvs_fmt *F, const char *name, rvs_dtype dt, int64_t count, const rvs_array **out,
                           rvs_error *err);
/* Free F's arrays (not the borrowed ones) and zero it. */
void rvs_fmt_free(rvs_fmt *F);

/* F = rows [lo, hi) of A as a CSR block without copying A's entries: F borrows A's column
 * indices and values, and owns only row pointers rebased to 0 (none when lo == 0: it borrows
 * A's too). A must stay unchanged and outlive F; rvs_fmt_free(F) leaves A's arrays alone.
 * This is how a program runs the hub, or a part that is a run of consecutive rows, in CSR
 * without holding the matrix twice. RVS_ERR_UNSUPPORTED when A has 64-bit column indices. */
rvs_status rvs_fmt_csr_borrow(rvs_fmt *F, const rvs_csr *A, int64_t lo, int64_t hi, rvs_error *err);

/* CSR on the GPU (csr_gpu_rule.c): the one rule of which layout a block goes up in and which
 * kernel reads it, asked by the upload, the kernels, the engine, convert and the advisor. */

/* The slots of a CSR block's param[]. */
enum {
    RVS_CSR_LONGEST = 0,     /* the longest row */
    RVS_CSR_HAS_LONGEST = 1, /* 1 when LONGEST is set (blocks written without it are valid) */
    RVS_CSR_ORDER = 2,       /* csr_order: 0 the default layout, 1 rows in order (RVS_CSR_PLAIN) */
    RVS_CSR_VALUES = 3,      /* csr_values: 0 coded into a table where they fit, 1 as they are */
    RVS_CSR_PANELS = 4,      /* csr_panels: 0 by rule, 1 none, P that many */
    RVS_CSR_INDEX = 5        /* csr_index: 0 16-bit column offsets where they fit, 1 32-bit */
};
/* param[RVS_CSR_ORDER] of an upload for cuSPARSE (never in a stream: the validator refuses it). */
#define RVS_CSR_ORDER_CUSPARSE 2

/* The GPU's CSR kernels (kernels/gpu/csr.cu), by name. */
typedef enum {
    RVS_CSR_AUTO = 0,  /* the rule's choice for the block */
    RVS_CSR_SCALAR,    /* a thread a row */
    RVS_CSR_VECTOR,    /* a group of 2 to 32 lanes a row, reduced by shuffles */
    RVS_CSR_ROW_BLOCK, /* rows staged block-wise through shared memory (irregular rows) */
    RVS_CSR_NNZ_SPLIT, /* equal runs of entries a warp, rows cut across warps */
    RVS_CSR_WARP_ROWS, /* 32 rows a warp, a lane a row (regular rows) */
    RVS_CSR_CUSPARSE,  /* cuSPARSE's CSR SpMV (ALG1) */
    RVS_CSR_KERNELS
} rvs_csr_kernel;

/* How a CSR block lies on the device. */
typedef enum {
    RVS_CSR_PLAIN = 0,   /* rows in order, the arrays as they are: every kernel but cuSPARSE */
    RVS_CSR_SORTED,      /* the row-block kernel's chunks sorted by column, values coded where
                              they fit, 32-bit row pointers: the row-block kernel alone */
    RVS_CSR_ROWS,        /* rows in order, 16-bit columns and coded values where they fit:
                              the warp-rows and vector kernels alone */
    RVS_CSR_FOR_CUSPARSE /* rows in order, 32-bit row pointers and columns: cuSPARSE alone */
} rvs_csr_layout;

/* What the rule decides for a block. */
typedef struct {
    rvs_csr_layout layout;
    rvs_csr_kernel kernel; /* never RVS_CSR_AUTO */
    int lanes;             /* RVS_CSR_VECTOR: lanes a row (2..32) */
} rvs_csr_gpu_plan;

/* The layout a block of these sizes and params goes up in for kernel (RVS_CSR_AUTO: the
 * block's default: sorted for irregular rows and f64 rows of 32 entries or more on average,
 * laid out for the row kernels for other regular rows, plain where param[RVS_CSR_ORDER] is 1,
 * the values complex or nnz past 2^31) and the kernel that reads it (lanes 1..32 with
 * RVS_CSR_AUTO ask for the vector kernel, 1 the scalar one). compact: 1 when the block went up
 * with 16-bit columns or coded values, 0 when not, -1 before the upload (as if it will). */
rvs_csr_gpu_plan rvs_csr_gpu_rule(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param,
                                  rvs_csr_kernel kernel, int lanes, int compact);
/* 1 when kernel reads a block laid out as layout. */
int rvs_csr_kernel_reads(rvs_csr_kernel kernel, rvs_csr_layout layout);
/* The kernel's name ("row-block", ...) and back (RVS_CSR_KERNELS when none). */
const char *rvs_csr_kernel_name(rvs_csr_kernel kernel);
rvs_csr_kernel rvs_csr_kernel_by_name(const char *name);
/* param[] of an upload of a CSR block for kernel with the build options o (NULL: defaults): the
 * order that gives the layout kernel reads, and the value, panel and index options. */
void rvs_csr_gpu_params_for(int64_t *param, int64_t rows, int64_t nnz, rvs_vtype vt, rvs_csr_kernel kernel,
                            int lanes, const rvs_fmt_options *o);
/* 1 when the block's rows are regular: its longest row recorded and at most 4 times the mean
 * plus 16. */
int rvs_csr_rows_regular(int64_t rows, int64_t nnz, const int64_t *param);
/* The default layout's questions, by rvs_csr_gpu_rule: sorted for the row-block kernel; laid out
 * for the row kernels; its values may go up coded. */
int rvs_csr_gpu_sorted(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param);
int rvs_csr_gpu_in_rows(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param);
int rvs_csr_gpu_codes(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param);
/* CSR's GPU layout params (ORDER, VALUES, PANELS, INDEX) of F from o (NULL: the defaults). */
void rvs_fmt_csr_gpu_options(rvs_fmt *F, const rvs_fmt_options *o);
/* The array of a block (format id, sizes, params) that the GPU upload may code into a table of at
 * most RVS_DICT_MAX values (one byte per value, or none for one value): "values" of CSR where
 * rvs_csr_gpu_codes, "dia_val" of DIA and HYB-DIA with real values unless their dia-values
 * param (DIA param[2], HYB-DIA param[3]) is 1; NULL for every other block. */
const char *rvs_fmt_gpu_coded(rvs_format_id id, int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param);

/* Rows [lo, hi) of A built in format id as row blocks of about max_nnz entries each (whole
 * rows; one row at least): block k holds rows [cuts[k], cuts[k + 1]), built from a view of A
 * (no copy). With release, once a block is built the pages of A's columns and values that only
 * rows already built use are given back (rvs_csr_release_entries), so the peak is about the
 * larger of A and its blocks, not their sum: after that A's entries in [lo, hi) are gone (read
 * as zeros) and A is only fit to be freed. *blocks (nblocks) and *cuts (nblocks + 1) are
 * malloc'd; free each block with rvs_fmt_free. lo == hi gives one empty block. */
rvs_status rvs_fmt_build_rows(rvs_fmt **blocks, int64_t **cuts, int *nblocks, rvs_csr *A, int64_t lo, int64_t hi,
                              rvs_format_id id, const rvs_fmt_options *o, int64_t max_nnz, int release,
                              rvs_error *err);

/* The entries of a hub A not yet built elsewhere, counted per window of 2^16 entries, so that a
 * window's pages go back (rvs_csr_release_entries) once every row through it has been taken,
 * whatever the order the rows are taken in: for a hub whose scattered rows are built into other
 * blocks. Each row is to be taken once, whole; a row never taken keeps its windows. */
typedef struct {
    rvs_csr *A;
    int64_t *left; /* entries of window w not yet taken */
    int64_t nwin;
} rvs_hub_count;

rvs_status rvs_hub_count_init(rvs_hub_count *H, rvs_csr *A, rvs_error *err);
/* Row r of H->A is built: its entries are counted off, and the windows left with none go back. */
void rvs_hub_count_take(rvs_hub_count *H, int64_t r);
void rvs_hub_count_free(rvs_hub_count *H);

/* Rows picked from a matrix: row i is A's row rows[i] (rows NULL: row first + i), with only the
 * entries filter keeps (0 all, 1 inside the diagonal blocks of size block, 2 outside them: as
 * rvs_csr_extract_rows keeps them; block <= 0: 32) and its values as vt. With release (a run:
 * rows NULL), the pages of A's entries of the rows filled so far are given back as the block
 * fills (rvs_csr_release_entries): A's entries in those rows are then gone. */
typedef struct {
    const rvs_csr *A;
    const int64_t *rows;
    int64_t first, n;
    int filter;
    int64_t block;
    rvs_vtype vt;
    int release;
} rvs_row_pick;

/* F = the picked rows in format id, bit for bit the block rvs_fmt_from_csr builds (and
 * validates) from their copy (rvs_csr_extract_rows, then rvs_csr_convert_values to vt), without
 * that copy: F is sized from the rows' lengths, then filled from windows of about window_nnz
 * entries of whole rows (one row at least; DIA and BiELL round a window up to 32 rows, HCC to
 * its blocks), each gathered from A, used and freed before the next (DIA, HYB-DIA and HCC look
 * at every window twice, the first time at its columns alone). Beside A and F it holds a row
 * pointer per row and one window. A is only read (o->consume is ignored), unless R->release.
 * RVS_ERR_UNSUPPORTED for a format rvs_fmt_gathers refuses. */
rvs_status rvs_fmt_from_rows(rvs_fmt *F, rvs_format_id id, const rvs_row_pick *R, const rvs_fmt_options *o,
                             int64_t window_nnz, rvs_error *err);
/* 1 when rvs_fmt_from_rows builds format id: every format but CSR (whose block built from a copy
 * of its rows is that copy). */
int rvs_fmt_gathers(rvs_format_id id);

/* Give back to the system the whole memory pages holding only entries [from, to) of A (columns
 * and values); their content is gone. For a hub whose rows have been built elsewhere. */
void rvs_csr_release_entries(rvs_csr *A, int64_t from, int64_t to);

/* Give back to the system the whole memory pages of F's own arrays (a block copied elsewhere,
 * to the GPU say): their content is gone and F is only fit to be freed. */
void rvs_fmt_release(rvs_fmt *F);

/* RVS_OK when format id would take A with options o: every refusal that from_csr makes on A's
 * sizes and structure (32-bit limits, ELL/ELLR and DIA padding ratios, HYB-DIA's diagonal
 * bytes) without building the block; only running out of memory can then stop the build. A
 * program that writes a block as soon as it is built asks this of every part first, so that a
 * refused part leaves no partial output. */
rvs_status rvs_fmt_admit(rvs_format_id id, const rvs_csr *A, const rvs_fmt_options *o, rvs_error *err);

/* Convert with the generic entry points (lookup + call + validate the result). */
rvs_status rvs_fmt_from_csr(rvs_fmt *F, rvs_format_id id, const rvs_csr *A, const rvs_fmt_options *o,
                            rvs_error *err);
rvs_status rvs_fmt_to_csr(rvs_csr *A, const rvs_fmt *F, rvs_error *err);

/* Eq. (1)-(2) of Wang and Gu, "PELLR: A Permutated ELLPACK-R Format for SpMV on GPUs" (J. Computer
 * and Communications, 2020) for a list of row lengths in storage order, warp rows per warp. */
void rvs_warp_work(const int64_t *row_len, int64_t rows, int warp, int64_t *n_iter, int64_t *n_p);

/* The stats of F with N_iter counted for warps of warp rows (1 or more), as a GPU of that warp
 * width would run F's storage order; formats without a warp model as their stats give them. */
void rvs_fmt_stats_warp(const rvs_fmt *F, int warp, rvs_fmt_stats *s);

#ifdef __cplusplus
}
#endif
#endif
