#!/usr/bin/env bash
# gpu_panels.sh - CSR in column panels (csr-panels=P, kernels/gpu/csr_panels.cu) against cuSPARSE
# CSR ALG1/ALG2 in the same run: R-MAT 22, 23 and 24 with 1, 2, 4, 8, 16 and 32 panels and the
# default, f64 and f32, then the wiki-Vote and email-Enron replicas (20M entries) with 1, 2, 4;
# with NCU=1 also Nsight Compute on R-MAT 24 f64 (cuSPARSE and the row-block kernel with 1, 4 and
# 16 panels: time, DRAM bytes, L1 and L2 hit rates and sectors, L2 throughput), summed per SpMV.
# Sections after DEADLINE seconds (default 480) are cut; the table says which.
#   bench/gpu_panels.sh BIN_DIR MATRICES_DIR OUT_DIR
set -uo pipefail
B=${1:?bin dir}; M=${2:?matrices}; O=${3:?out}
export PATH=$B:$PATH
W=/dev/shm/rvs-panels; mkdir -p "$W" "$O" || exit 1
T=$O/gpu_panels.txt; t0=$(date +%s); DL=${DEADLINE:-480}
echo "# rvskit CSR column panels  $(date -u +%Y-%m-%dT%H:%MZ)  device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" > "$T"
echo "# command: bench/gpu_panels.sh $*  (DEADLINE=$DL NCU=${NCU:-0}); columns as bench_gpu_spmv's, ms = median of 10" >> "$T"
left() { [ $(( $(date +%s) - t0 )) -lt "$DL" ] || { echo "# cut (deadline): $*" | tee -a "$T"; return 1; }; }
F=csr@csr-panels=1,csr@csr-panels=2,csr@csr-panels=4,csr@csr-panels=8,csr@csr-panels=16,csr@csr-panels=32,csr
for s in 22 23 24; do
  left rmat$s && rvsgen rmat $s 16 -o "$W/rmat$s.rvs" &&
    bench_gpu_spmv --iters 10 --precision both --formats $F --label rmat$s "$W/rmat$s.rvs" 2>>"$O/bench.err" | grep -v '^# matrix' | tee -a "$T"
  [ "$s" = 24 ] && [ "${NCU:-0}" = 1 ] && left ncu && {
    MET="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
    for p in 1 4 16; do
      timeout 150 ncu --metrics "$MET" -k "regex:csrmv_v3|csr_rowblock" --launch-count $((4 + 2 * p)) --csv \
        bench_gpu_spmv --iters 1 --precision f64 --formats csr@csr-panels=$p "$W/rmat24.rvs" > "$O/ncu_p$p.csv" 2>>"$O/bench.err"
      # one SpMV: the first cuSPARSE launch (bench_gpu_spmv runs cuSPARSE four times first), and
      # the first p row-block launches (the checked run):
      # counts summed, percentages weighted by each launch's time
      grep -E '^"[0-9]' "$O/ncu_p$p.csv" | awk -F'","' -v p=$p '
        { id = $1; gsub(/"/, "", id); m = $(NF-2); v = $NF; gsub(/[",]/, "", v); ml[m] = 1 }
        $5 ~ /csrmv/ { if (cs == "") cs = id; if (id == cs) c[m] = v; next }
        { if (!(id in seen)) { seen[id] = 1; ord[n++] = id }; val[id, m] = v }
        END { for (m in c) printf "# ncu rmat24 f64 cusparse-alg1 %s %s\n", m, c[m]
              for (j = 0; j < p && j < n; j++) T += val[ord[j], "gpu__time_duration.sum"]
              for (m in ml) { s = 0
                for (j = 0; j < p && j < n; j++) s += m ~ /pct/ ? val[ord[j], m] * val[ord[j], "gpu__time_duration.sum"] / T : val[ord[j], m]
                printf "# ncu rmat24 f64 csr@csr-panels=%d %s %.4g\n", p, m, s } }' | sort >> "$T"
    done; }
  rm -f "$W/rmat$s.rvs"
done
for r in wiki-Vote email-Enron; do
  left "$r" && rvsgen replica "$M/$r.mtx" 20000000 -o "$W/$r.rvs" &&
    bench_gpu_spmv --iters 10 --precision f64 --formats csr@csr-panels=1,csr@csr-panels=2,csr@csr-panels=4 --label "${r}_rep" "$W/$r.rvs" 2>>"$O/bench.err" | grep -v '^# matrix' | tee -a "$T"
  rm -f "$W/$r.rvs"
done
echo "# done in $(( $(date +%s) - t0 )) s" | tee -a "$T"
