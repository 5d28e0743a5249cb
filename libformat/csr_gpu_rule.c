/* csr_gpu_rule.c - the one rule of CSR on the GPU: the layout a block goes up in and the kernel
 * that reads it. The upload (kernels/gpu/csr.cu), the launch, the engine's items, convert and the
 * advisor's candidates all ask here; the reasons behind the thresholds are in
 * bench/notes-gpu-kernels.md. */
#include <string.h>
#include "rvs_format.h"

static const char *const kernel_names[RVS_CSR_KERNELS] = {"auto",      "scalar",    "vector",  "row-block",
                                                          "nnz-split", "warp-rows", "cusparse"};

const char *rvs_csr_kernel_name(rvs_csr_kernel kernel)
{
    return (unsigned)kernel < RVS_CSR_KERNELS ? kernel_names[kernel] : "?";
}

rvs_csr_kernel rvs_csr_kernel_by_name(const char *name)
{
    for (int k = 0; k < RVS_CSR_KERNELS; k++)
        if (strcmp(name, kernel_names[k]) == 0)
            return (rvs_csr_kernel)k;
    return RVS_CSR_KERNELS;
}

int rvs_csr_kernel_reads(rvs_csr_kernel kernel, rvs_csr_layout layout)
{
    switch (kernel) {
    case RVS_CSR_ROW_BLOCK: return layout == RVS_CSR_PLAIN || layout == RVS_CSR_SORTED;
    case RVS_CSR_VECTOR:
    case RVS_CSR_WARP_ROWS: return layout == RVS_CSR_PLAIN || layout == RVS_CSR_ROWS;
    case RVS_CSR_SCALAR:
    case RVS_CSR_NNZ_SPLIT: return layout == RVS_CSR_PLAIN;
    case RVS_CSR_CUSPARSE: return layout == RVS_CSR_FOR_CUSPARSE;
    default: return 0;
    }
}

int rvs_csr_rows_regular(int64_t rows, int64_t nnz, const int64_t *param)
{
    const double mean = rows > 0 ? (double)nnz / (double)rows : 0;
    return param[RVS_CSR_HAS_LONGEST] == 1 && (double)param[RVS_CSR_LONGEST] <= 4.0 * mean + 16.0;
}

/* The layout a block takes when nothing asks for a kernel. */
static rvs_csr_layout default_layout(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param)
{
    if (param[RVS_CSR_ORDER] == RVS_CSR_ORDER_CUSPARSE)
        return RVS_CSR_FOR_CUSPARSE;
    if (param[RVS_CSR_ORDER] != 0 || rows <= 0 || nnz <= 0 || nnz > INT32_MAX || (vt != RVS_F64 && vt != RVS_F32))
        return RVS_CSR_PLAIN;
    /* f64 rows of a warp's length or more (32 entries on average) sum faster a group of lanes per
     * row in the row-block kernel than a lane per row in warp-rows, regular or not */
    if (!rvs_csr_rows_regular(rows, nnz, param) || (vt == RVS_F64 && nnz >= 32 * rows))
        return RVS_CSR_SORTED;
    return RVS_CSR_ROWS;
}

/* The kernel for a layout when none is asked for. */
static rvs_csr_gpu_plan default_kernel(rvs_csr_gpu_plan p, int64_t rows, int64_t nnz, rvs_vtype vt,
                                       const int64_t *param, int compact)
{
    p.lanes = 0;
    if (p.layout == RVS_CSR_FOR_CUSPARSE)
        p.kernel = RVS_CSR_CUSPARSE;
    else if (p.layout == RVS_CSR_SORTED || !rvs_csr_rows_regular(rows, nnz, param))
        p.kernel = RVS_CSR_ROW_BLOCK;
    else if (p.layout == RVS_CSR_ROWS && compact != 0 && nnz >= 4 * rows && nnz < 128 * rows) {
        /* 3 to 10 bytes an entry: 2 lanes a row for rows of 4 to 31 entries, 4 for 32 to 127 */
        p.kernel = RVS_CSR_VECTOR;
        p.lanes = nnz < 32 * rows ? 2 : 4;
    } else if (vt == RVS_F32 && nnz >= 32 * rows && nnz < 128 * rows) {
        p.kernel = RVS_CSR_VECTOR; /* f32 rows of 32 to 127 entries: 8 lanes a row */
        p.lanes = 8;
    } else
        p.kernel = RVS_CSR_WARP_ROWS;
    return p;
}

rvs_csr_gpu_plan rvs_csr_gpu_rule(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param,
                                  rvs_csr_kernel kernel, int lanes, int compact)
{
    rvs_csr_gpu_plan p = {default_layout(rows, nnz, vt, param), RVS_CSR_AUTO, 0};
    if (kernel == RVS_CSR_AUTO && lanes > 0) /* lanes alone ask for the vector (1: scalar) kernel */
        kernel = lanes == 1 ? RVS_CSR_SCALAR : RVS_CSR_VECTOR;
    if (kernel == RVS_CSR_AUTO)
        return default_kernel(p, rows, nnz, vt, param, compact);
    if (kernel == RVS_CSR_CUSPARSE)
        p.layout = RVS_CSR_FOR_CUSPARSE;
    else if (!rvs_csr_kernel_reads(kernel, p.layout))
        p.layout = RVS_CSR_PLAIN;
    p.kernel = kernel;
    p.lanes = kernel == RVS_CSR_VECTOR ? (lanes >= 2 ? lanes : 4) : 0;
    return p;
}

void rvs_csr_gpu_params_for(int64_t *param, int64_t rows, int64_t nnz, rvs_vtype vt, rvs_csr_kernel kernel,
                            int lanes, const rvs_fmt_options *o)
{
    if (o && o->csr_order == 1)
        param[RVS_CSR_ORDER] = 1;
    const rvs_csr_gpu_plan p = rvs_csr_gpu_rule(rows, nnz, vt, param, kernel, lanes, -1);
    if (p.layout == RVS_CSR_FOR_CUSPARSE)
        param[RVS_CSR_ORDER] = RVS_CSR_ORDER_CUSPARSE;
    else if (p.layout == RVS_CSR_PLAIN)
        param[RVS_CSR_ORDER] = 1;
    if (o && o->csr_values == 1)
        param[RVS_CSR_VALUES] = 1;
    if (o && o->csr_index == 1)
        param[RVS_CSR_INDEX] = 1;
    if (o && o->csr_panels != 0)
        param[RVS_CSR_PANELS] = o->csr_panels;
}

int rvs_csr_gpu_sorted(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param)
{
    return default_layout(rows, nnz, vt, param) == RVS_CSR_SORTED;
}

int rvs_csr_gpu_in_rows(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param)
{
    return default_layout(rows, nnz, vt, param) == RVS_CSR_ROWS;
}

int rvs_csr_gpu_codes(int64_t rows, int64_t nnz, rvs_vtype vt, const int64_t *param)
{
    const rvs_csr_layout l = default_layout(rows, nnz, vt, param);
    return param[RVS_CSR_VALUES] == 0 && (l == RVS_CSR_SORTED || l == RVS_CSR_ROWS);
}
