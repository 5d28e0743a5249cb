/* py_layout.c - the size of every C structure the Python module passes through ctypes
 * (python/rvskit/_lib.py) and the offset of each of its fields, one "NAME BYTES" line each, for
 * test_python_compute.py to compare with the ctypes layouts: a field added to one of them in C
 * fails that test instead of shifting what Python reads. */
#include <stddef.h>
#include <stdio.h>
#include "rvs.h"
#include "rvs_engine.h"
#include "rvs_spgemm.h"

#define SIZE(T) printf("%s %zu\n", #T, sizeof(T))
#define AT(T, f) printf("%s.%s %zu\n", #T, #f, offsetof(T, f))

int main(void)
{
    SIZE(rvs_error); AT(rvs_error, code); AT(rvs_error, msg);
    SIZE(rvs_csr); AT(rvs_csr, rows); AT(rvs_csr, cols); AT(rvs_csr, nnz); AT(rvs_csr, vtype); AT(rvs_csr, rowptr);
    AT(rvs_csr, colind); AT(rvs_csr, colind64); AT(rvs_csr, values);
    SIZE(rvs_mm_info); AT(rvs_mm_info, format); AT(rvs_mm_info, field); AT(rvs_mm_info, symmetry);
    AT(rvs_mm_info, rows); AT(rvs_mm_info, cols); AT(rvs_mm_info, entries); AT(rvs_mm_info, skew_diagonal);
    AT(rvs_mm_info, skew_diagonal_line); AT(rvs_mm_info, big_integers); AT(rvs_mm_info, big_integer_line);
    AT(rvs_mm_info, hermitian_diagonal); AT(rvs_mm_info, hermitian_diagonal_line);
    SIZE(rvs_pmf); AT(rvs_pmf, rows); AT(rvs_pmf, cols); AT(rvs_pmf, nnz); AT(rvs_pmf, empty_rows); AT(rvs_pmf, min);
    AT(rvs_pmf, max); AT(rvs_pmf, mean); AT(rvs_pmf, stddev); AT(rvs_pmf, ell_density); AT(rvs_pmf, nbins);
    AT(rvs_pmf, k); AT(rvs_pmf, b);
    SIZE(rvs_part); AT(rvs_part, device); AT(rvs_part, cp); AT(rvs_part, entries); AT(rvs_part, nrows);
    AT(rvs_part, rows); AT(rvs_part, nnz); AT(rvs_part, width); AT(rvs_part, e); AT(rvs_part, padded);
    AT(rvs_part, density);
    SIZE(rvs_partition); AT(rvs_partition, alg); AT(rvs_partition, block_size); AT(rvs_partition, k);
    AT(rvs_partition, parts); AT(rvs_partition, nnz); AT(rvs_partition, e_total); AT(rvs_partition, padded_total);
    AT(rvs_partition, mean_density); AT(rvs_partition, mean_zero_fill); AT(rvs_partition, rel_diff_pct);
    SIZE(rvs_gpu_tune); AT(rvs_gpu_tune, block); AT(rvs_gpu_tune, threads_per_row); AT(rvs_gpu_tune, hcc_wg);
    AT(rvs_gpu_tune, hcc_wi); AT(rvs_gpu_tune, rows_per_thread); AT(rvs_gpu_tune, csr_kernel);
    SIZE(rvs_fmt_options); AT(rvs_fmt_options, hyb_k); AT(rvs_fmt_options, hcc_np); AT(rvs_fmt_options, hcc_nb);
    AT(rvs_fmt_options, hcc_g); AT(rvs_fmt_options, csr_order); AT(rvs_fmt_options, csr_values);
    AT(rvs_fmt_options, csr_panels); AT(rvs_fmt_options, csr_index); AT(rvs_fmt_options, dia_values);
    AT(rvs_fmt_options, dia_max_ratio); AT(rvs_fmt_options, ell_max_ratio); AT(rvs_fmt_options, admit_only);
    AT(rvs_fmt_options, consume);
    SIZE(rvs_knobs); AT(rvs_knobs, tune); AT(rvs_knobs, fo);
    SIZE(rvs_candidate); AT(rvs_candidate, format); AT(rvs_candidate, knobs); AT(rvs_candidate, status);
    AT(rvs_candidate, ms); AT(rvs_candidate, model_bytes); AT(rvs_candidate, pred_ms); AT(rvs_candidate, pred_sigma);
    SIZE(rvs_decision); AT(rvs_decision, part); AT(rvs_decision, device); AT(rvs_decision, vtype);
    AT(rvs_decision, chosen); AT(rvs_decision, ncand); AT(rvs_decision, from_cache); AT(rvs_decision, sampled);
    AT(rvs_decision, how); AT(rvs_decision, decide_ms); AT(rvs_decision, fit); AT(rvs_decision, npending);
    AT(rvs_decision, pending); AT(rvs_decision, cand);
    SIZE(rvs_advisor_options); AT(rvs_advisor_options, iters); AT(rvs_advisor_options, use_cache);
    AT(rvs_advisor_options, keep_ratio); AT(rvs_advisor_options, sample_nnz); AT(rvs_advisor_options, mode);
    AT(rvs_advisor_options, max_trials); AT(rvs_advisor_options, defer);
    SIZE(rvs_spmv_op_options); AT(rvs_spmv_op_options, device); AT(rvs_spmv_op_options, vtype);
    AT(rvs_spmv_op_options, threads); AT(rvs_spmv_op_options, tune); AT(rvs_spmv_op_options, use_cache);
    AT(rvs_spmv_op_options, format); AT(rvs_spmv_op_options, tune_knobs);
    SIZE(rvs_spmv_op_stats); AT(rvs_spmv_op_stats, device); AT(rvs_spmv_op_stats, vtype);
    AT(rvs_spmv_op_stats, format); AT(rvs_spmv_op_stats, knobs); AT(rvs_spmv_op_stats, how);
    AT(rvs_spmv_op_stats, pred_ms); AT(rvs_spmv_op_stats, decide_ms); AT(rvs_spmv_op_stats, tune_ms);
    AT(rvs_spmv_op_stats, switches); AT(rvs_spmv_op_stats, calls); AT(rvs_spmv_op_stats, items);
    SIZE(rvs_spgemm_options); AT(rvs_spgemm_options, method); AT(rvs_spgemm_options, gpu_mem_bytes);
    AT(rvs_spgemm_options, trace); AT(rvs_spgemm_options, passes); AT(rvs_spgemm_options, poison);
    AT(rvs_spgemm_options, kernel_only); AT(rvs_spgemm_options, slots); AT(rvs_spgemm_options, max_block_products);
    AT(rvs_spgemm_options, hybrid_cpu_share); AT(rvs_spgemm_options, hybrid_long_factor);
    SIZE(rvs_spgemm_stats); AT(rvs_spgemm_stats, products); AT(rvs_spgemm_stats, nnz_c);
    AT(rvs_spgemm_stats, t_setup); AT(rvs_spgemm_stats, t_pre); AT(rvs_spgemm_stats, t_transfer);
    AT(rvs_spgemm_stats, t_multiply); AT(rvs_spgemm_stats, t_compress); AT(rvs_spgemm_stats, t_total);
    AT(rvs_spgemm_stats, t_kernel); AT(rvs_spgemm_stats, blocks); AT(rvs_spgemm_stats, cpu_rows);
    AT(rvs_spgemm_stats, gpu_rows); AT(rvs_spgemm_stats, rows_esc); AT(rvs_spgemm_stats, rows_dense);
    AT(rvs_spgemm_stats, rows_hash); AT(rvs_spgemm_stats, gpu_budget_bytes); AT(rvs_spgemm_stats, gpu_peak_bytes);
    AT(rvs_spgemm_stats, t_trace);
    SIZE(rvs_engine_devices); AT(rvs_engine_devices, cpu_threads); AT(rvs_engine_devices, gpus);
    AT(rvs_engine_devices, gpu_desc); AT(rvs_engine_devices, gpu_free_bytes);
    /* the head of rvs_format_ops that Python reads */
    AT(rvs_format_ops, id); AT(rvs_format_ops, name);
    return 0;
}
