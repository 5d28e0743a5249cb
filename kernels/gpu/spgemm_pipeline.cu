/* spgemm_pipeline.cu - C back to the host in the row-wise GPU SpGEMM: in one pass, C whole on
 * the device is copied back in pieces of rows while the host hands the previous piece to C or
 * to the sink; in two passes, blocks of C's rows are computed into device slot k mod 2 while
 * block k-1 is copied into pinned staging and block k-2 handed over (spgemm_device.cu has the
 * whole method) */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "spgemm_device.cuh"

/* ---- phase 3: the numeric pass, pipelined ---------------------------------------------------- */

/* The sums of the numeric block hash (SG_HSUM_PER_SM slices of SG_NUM_BLOCK_T doubles per
 * multiprocessor, 17 MB on an H100), allocated and zeroed once, when a row needs them. */
static rvs_status hsum_reserve(run_t *r)
{
    rvs_status st = RVS_OK;
    const int blocks = SG_HSUM_PER_SM * g_ctx.sms;
    if (r->num_n[SG_BLOCK] == 0)
        return RVS_OK;
    if (!g_ctx.hsum) {
        const size_t bytes = (size_t)blocks * SG_NUM_BLOCK_T * sizeof(double);
        const double t0 = omp_get_wtime();
        RUN_CUDA(cudaMalloc(&g_ctx.hsum, bytes));
        RUN_CUDA(cudaMemsetAsync(g_ctx.hsum, 0, bytes, g_ctx.comp));
        r->setup_pending += omp_get_wtime() - t0;
    }
    r->j.hsum = g_ctx.hsum;
    r->j.hsum_blocks = blocks;
done:
    return st;
}

/* Block b's entries (col, val: its staging, or NULL for a host block) to the sink or into C,
 * after the host rows inside it are filled in. */
static rvs_status deliver(run_t *r, const rvs_spgemm_block *b, int32_t *col, void *val)
{
    const int64_t *rp = r->C->rowptr, base = rp[b->r0], n = rp[b->r1] - base;
    const size_t vs = r->vs;
    while (r->cpu_next < r->ncpu && r->cpu_rows[r->cpu_next] < b->r1) {
        const int64_t q = r->cpu_next++, i = r->cpu_rows[q], s = r->R.rowptr[q];
        const int64_t len = r->R.rowptr[q + 1] - s;
        if (!col) { /* a host block: the row alone */
            col = r->R.colind + s;
            val = (char *)r->R.values + (size_t)s * vs;
            break;
        }
        memcpy(col + (rp[i] - base), r->R.colind + s, (size_t)len * 4);
        memcpy((char *)val + (size_t)(rp[i] - base) * vs, (const char *)r->R.values + (size_t)s * vs,
               (size_t)len * vs);
    }
    if (r->sink)
        return r->sink->rows(r->sink, r->C, b->r0, b->r1, col, val, r->err);
    sgd_copy_parallel(r->C->colind + base, col, (size_t)n * 4);
    sgd_copy_parallel((char *)r->C->values + (size_t)base * vs, val, (size_t)n * vs);
    return RVS_OK;
}

/* Wait for block b (stage q) and deliver it. */
static rvs_status finish_block(run_t *r, int64_t b)
{
    rvs_status st = RVS_OK;
    const rvs_spgemm_block *blk = &r->blocks[b];
    const int q = (int)(b % DEV_STAGES);
    const size_t per = 4 + r->vs;
    if (blk->too_big) {
        st = r->o && r->o->kernel_only ? RVS_OK : deliver(r, blk, NULL, NULL);
        sgd_trace_step(r, 17);
        return st;
    }
    RUN_CUDA(cudaEventSynchronize(g_ctx.n1[q]));
    r->dev_s += sgd_event_s(g_ctx.n0[q], g_ctx.n1[q]);
    if (r->o && r->o->kernel_only)
        goto done;
    RUN_CUDA(cudaEventSynchronize(g_ctx.d1[q]));
    sgd_trace_step(r, 16);
    {
        char *stage = (char *)g_ctx.stage + (size_t)q * (size_t)r->cap * per;
        st = deliver(r, blk, (int32_t *)stage, stage + (size_t)r->cap * 4);
    }
    sgd_trace_step(r, 17);
done:
    return st;
}

/* Block b: numeric kernels into slot b mod 2, then (unless kernel_only) the copy into stage
 * b mod 3 on the copy stream. */
static rvs_status start_block(run_t *r, int64_t b)
{
    rvs_status st = RVS_OK;
    const rvs_spgemm_block *blk = &r->blocks[b];
    const int s = (int)(b % DEV_SLOTS), q = (int)(b % DEV_STAGES);
    const int kernel_only = r->o && r->o->kernel_only;
    const int64_t base = r->C->rowptr[blk->r0], n = r->C->rowptr[blk->r1] - base;
    if (blk->too_big)
        return RVS_OK;
    if (b >= DEV_SLOTS && !kernel_only) /* the slot's previous block has been copied out */
        RUN_CUDA(cudaStreamWaitEvent(g_ctx.comp, g_ctx.d1[(b - DEV_SLOTS) % DEV_STAGES], 0));
    if (r->o && r->o->poison) { /* tests: whatever the kernels leave unwritten shows */
        RUN_CUDA(cudaMemsetAsync(r->slot_col[s], 0xff, (size_t)r->cap * 4, g_ctx.comp));
        RUN_CUDA(cudaMemsetAsync(r->slot_val[s], 0xff, (size_t)r->cap * r->vs, g_ctx.comp));
    }
    RUN_CUDA(cudaEventRecord(g_ctx.n0[q], g_ctx.comp));
    RUN_CUDA(sg_launch_bins(&r->j, 1, blk->r0, blk->r1, g_ctx.comp));
    sgd_trace_step(r, 10);
    if (r->trace)
        RUN_CUDA(cudaEventRecord(r->tev[0], g_ctx.comp));
    {
        int64_t n_bin[SG_BINS];
        for (int k = 0; k < SG_BINS; k++)
            n_bin[k] = r->num_n[k] < blk->r1 - blk->r0 ? r->num_n[k] : blk->r1 - blk->r0;
        RUN_CUDA(sg_launch_numeric(&r->j, n_bin, base, r->slot_col[s], r->slot_val[s], r->trace ? r->tev : NULL,
                                   g_ctx.comp));
    }
    RUN_CUDA(cudaEventRecord(g_ctx.n1[q], g_ctx.comp));
    sgd_trace_kernels(r, 11, 5);
    if (kernel_only)
        goto done;
    {
        char *stage = (char *)g_ctx.stage + (size_t)q * (size_t)r->cap * (4 + r->vs);
        RUN_CUDA(cudaStreamWaitEvent(g_ctx.copy, g_ctx.n1[q], 0));
        RUN_CUDA(cudaEventRecord(g_ctx.d0[q], g_ctx.copy));
        RUN_CUDA(cudaMemcpyAsync(stage, r->slot_col[s], (size_t)n * 4, cudaMemcpyDeviceToHost, g_ctx.copy));
        RUN_CUDA(cudaMemcpyAsync(stage + (size_t)r->cap * 4, r->slot_val[s], (size_t)n * r->vs,
                                 cudaMemcpyDeviceToHost, g_ctx.copy));
        RUN_CUDA(cudaEventRecord(g_ctx.d1[q], g_ctx.copy));
    }
done:
    return st;
}

/* Fault C's fresh pages in with every thread while the device computes the first blocks,
 * so that handing blocks over runs at copy speed. */
static void prefault(run_t *r)
{
    rvs_csr *C = r->C;
    if (r->sink || (r->o && r->o->kernel_only) || !C->colind)
        return;
    char *const arr[2] = {(char *)C->colind, (char *)C->values};
    const size_t len[2] = {(size_t)C->nnz * 4, (size_t)C->nnz * r->vs}, page = 4096;
    for (int q = 0; q < 2; q++) {
        const int64_t np = (int64_t)((len[q] + page - 1) / page);
#pragma omp parallel for schedule(static) if (np > 256)
        for (int64_t p = 0; p < np; p++)
            ((volatile char *)arr[q])[(size_t)p * page] = 0;
    }
}

/* Plan the blocks, size the buffers, run the three stages. */
rvs_status sgd_numeric(run_t *r)
{
    rvs_status st = RVS_OK;
    const size_t per = 4 + r->vs;
    const int kernel_only = r->o && r->o->kernel_only;
    int64_t ndev = 0;
    RVS_GO(hsum_reserve(r));
    RVS_GO(rvs_spgemm_plan_c(r->C->rowptr, r->C->rows, r->cap, &r->blocks, &r->nblocks, r->err));
    for (int64_t b = 0; b < r->nblocks; b++)
        ndev += !r->blocks[b].too_big;
    /* block b uses slot b mod 2 and stage b mod 3 */
    for (int s = 0; s < DEV_SLOTS && s < r->nblocks && ndev > 0; s++) {
        RVS_GO(sgd_array(r, &r->slot_col[s], NULL, r->cap, 4));
        RVS_GO(sgd_array(r, &r->slot_val[s], NULL, r->cap, r->vs));
    }
    if (!kernel_only && ndev > 0)
        RVS_GO(sgd_stage_reserve(r, (size_t)(r->nblocks < DEV_STAGES ? r->nblocks : DEV_STAGES) * (size_t)r->cap *
                                        per));
    for (int64_t b = 0; b < r->nblocks + 2; b++) {
        if (b < r->nblocks)
            RVS_GO(start_block(r, b));
        if (b == (r->nblocks > 1 ? 1 : 0))
            prefault(r);
        if (b >= 2)
            RVS_GO(finish_block(r, b - 2));
    }
done:
    return st;
}

/* ---- the one pass: C back in pieces ----------------------------------------------------------- */

/* Piece k (rows of blocks[k]) from C on the device into stage k mod 3, on the copy stream. */
static rvs_status copy_piece(run_t *r, int64_t k, size_t piece, const int32_t *col, const void *val)
{
    rvs_status st = RVS_OK;
    const rvs_spgemm_block *b = &r->blocks[k];
    const int q = (int)(k % DEV_STAGES);
    const int64_t base = r->C->rowptr[b->r0], n = r->C->rowptr[b->r1] - base;
    char *stage = (char *)g_ctx.stage + (size_t)q * piece * (4 + r->vs);
    RUN_CUDA(cudaMemcpyAsync(stage, col + base, (size_t)n * 4, cudaMemcpyDeviceToHost, g_ctx.copy));
    RUN_CUDA(cudaMemcpyAsync(stage + piece * 4, (const char *)val + (size_t)base * r->vs, (size_t)n * r->vs,
                             cudaMemcpyDeviceToHost, g_ctx.copy));
    RUN_CUDA(cudaEventRecord(g_ctx.d1[q], g_ctx.copy));
done:
    return st;
}

rvs_status sgd_copy_back(run_t *r, const int32_t *col, const void *val)
{
    rvs_status st = RVS_OK;
    const int64_t nnz = r->C->nnz;
    const size_t per = 4 + r->vs;
    size_t piece = 1;
    /* pieces of about an eighth of C, 1M to 32M entries, so that copying overlaps handing over
     * (smaller pieces cost more than they overlap: bench/notes-gpu-spgemm.md) */
    int64_t cap = nnz <= 2 * BLOCK_MIN_ENTRIES ? nnz : nnz / BLOCKS_WANTED;
    cap = cap < BLOCK_MIN_ENTRIES && nnz > 2 * BLOCK_MIN_ENTRIES ? BLOCK_MIN_ENTRIES : cap;
    cap = cap > BLOCK_MAX_ENTRIES ? BLOCK_MAX_ENTRIES : cap < 1 ? 1 : cap;
    RVS_GO(rvs_spgemm_plan_c(r->C->rowptr, r->C->rows, cap, &r->blocks, &r->nblocks, r->err));
    for (int64_t k = 0; k < r->nblocks; k++) /* a row longer than cap is a piece of its own */
        piece = (size_t)r->blocks[k].entries > piece ? (size_t)r->blocks[k].entries : piece;
    RVS_GO(sgd_stage_reserve(r, (size_t)(r->nblocks < DEV_STAGES ? r->nblocks : DEV_STAGES) * piece * per));
    for (int64_t k = 0; k < r->nblocks && k < DEV_STAGES; k++)
        RVS_GO(copy_piece(r, k, piece, col, val));
    prefault(r);
    for (int64_t k = 0; k < r->nblocks; k++) {
        const int q = (int)(k % DEV_STAGES);
        char *stage = (char *)g_ctx.stage + (size_t)q * piece * per;
        RUN_CUDA(cudaEventSynchronize(g_ctx.d1[q]));
        sgd_trace_step(r, 16);
        RVS_GO(deliver(r, &r->blocks[k], (int32_t *)stage, stage + piece * 4));
        sgd_trace_step(r, 17);
        if (k + DEV_STAGES < r->nblocks) /* stage q is free again */
            RVS_GO(copy_piece(r, k + DEV_STAGES, piece, col, val));
    }
done:
    return st;
}
