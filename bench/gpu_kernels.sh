#!/usr/bin/env bash
# gpu_kernels.sh - the GPU kernels against cuSPARSE: the engine suite (stencils 7 and 27, R-MAT 20/22/24,
# block replicas of six real matrices) plus R-MAT 23, every format against cuSPARSE CSR ALG1 and
# ALG2, f64, f32 and mixed, fraction of the copy bandwidth; ncu DRAM throughput and L2 hit rate of
# the main kernels on R-MAT 24 and on a replica. Sections run in priority order and a section is
# cut when DEADLINE seconds (default 220) have passed; the table says which. ONLY=csr: the CSR
# kernel and COO alone, f64 and f32, on the whole suite with R-MAT 23/24 and ncu on one replica
# (CSR_FORMATS: the formats of that section instead, e.g. csr,csr@csr-values=1).
#   bench/gpu_kernels.sh BIN_DIR MATRICES_DIR OUT_DIR
set -uo pipefail
B=${1:?bin dir}; M=${2:?matrices}; O=${3:?out}
export PATH=$B:$PATH
W=/dev/shm/rvs; mkdir -p "$W" "$O" || exit 1
T=$O/gpu_kernels.txt; t0=$(date +%s); DL=${DEADLINE:-220}; IT=${ITERS:-10}
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "# rvskit GPU kernels  $(date -u +%Y-%m-%dT%H:%MZ)  device: $dev" > "$T"
echo "# command: bench/gpu_kernels.sh $*  (ITERS=$IT DEADLINE=$DL); ms = median of $IT after a checked run" >> "$T"
left() { [ $(( $(date +%s) - t0 )) -lt "$DL" ] || { echo "# cut (deadline): $*" | tee -a "$T"; return 1; }; }
gen() { [ -s "$W/$1.rvs" ] || rvsgen "${@:2}" -o "$W/$1.rvs"; }
bench() { # label precision formats file [more options]
  local l=$1 p=$2 f=$3 in=$4; shift 4
  timeout 150 bench_gpu_spmv --iters "$IT" --precision "$p" --formats "$f" --label "$l" "$@" "$in" 2>>"$O/bench.err" |
    grep -v '^# matrix' | tee -a "$T"
}
NCU="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active"
ncu_run() { # label file formats: first-run metrics of cuSPARSE's and our main kernels
  timeout 90 ncu --metrics "$NCU" -k "regex:csrmv_v3|hcc_kernel|csr_rowblock|csr_wrows|coo_runs" --launch-count 8 --csv \
    bench_gpu_spmv --iters 1 --precision f64 --formats "$3" "$2" > "$O/ncu_$1.csv" 2>>"$O/bench.err"
  echo "# ncu $1 (f64, first runs): kernel metric value" >> "$T"
  grep -E '^"[0-9]' "$O/ncu_$1.csv" | awk -F'","' '{k=$5; sub(/\(.*/,"",k); sub(/^void /,"",k); print "#   " k, $(NF-2), $NF}' | tr -d '"' >> "$T"
}
REP="memplus bcsstk24 email-Enron wiki-Vote p2p-Gnutella04 ca-CondMat"
IRR=csr,coo,pellr,biell,jad,hyb,hyb-dia,dia,hcc   # ell/ellr pad to the longest row: cut on irregular inputs
if [ "${ONLY:-}" = csr ]; then # the CSR kernel (and COO) on every input, f64 and f32
  echo "# ONLY=csr: CSR and COO against cuSPARSE on the whole suite" >> "$T"
  gen s7_160 stencil7 160 && gen s27_100 stencil27 100 && gen rmat22 rmat 22 16
  CF=${CSR_FORMATS:-csr,coo}
  for i in s7_160 s27_100 rmat22; do bench $i both $CF "$W/$i.rvs"; done
  for r in $REP; do gen "${r}_rep" replica "$M/$r.mtx" 20000000 && bench "${r}_rep" both $CF "$W/${r}_rep.rvs"; done
  ncu_run wiki-Vote_rep "$W/wiki-Vote_rep.rvs" csr
  for s in 23 24; do left rmat$s && gen rmat$s rmat $s 16 && { bench rmat$s both $CF "$W/rmat$s.rvs"; rm -f "$W/rmat$s.rvs"; }; done
  echo "# done in $(( $(date +%s) - t0 )) s" | tee -a "$T"; exit 0
fi

left tests && { RVS_MATRICES=${TEST_MATRICES:-$M} timeout 60 test_gpu_spmv > "$O/test_gpu_spmv.log" 2>&1
  echo "# test_gpu_spmv: rc $? $(tail -1 "$O/test_gpu_spmv.log")" | tee -a "$T"; }
left stencils && gen s7_160 stencil7 160 && gen s27_100 stencil27 100 &&
  { bench stencil7_160 f64 csr,ell,ellr,hyb,hyb-dia,dia,hcc "$W/s7_160.rvs"; bench stencil7_160 f32 csr,dia,hcc "$W/s7_160.rvs";
    bench stencil27_100 f64 csr,ell,dia,hcc "$W/s27_100.rvs"; }
left rmat24 && gen rmat24 rmat 24 16 && { bench rmat24 f64 csr,coo,hcc "$W/rmat24.rvs"; ncu_run rmat24 "$W/rmat24.rvs" csr,hcc; rm -f "$W/rmat24.rvs"; }
left rmat23 && gen rmat23 rmat 23 16 && { bench rmat23 f64 csr,coo,hcc "$W/rmat23.rvs"; bench rmat23 mixed hcc "$W/rmat23.rvs"; rm -f "$W/rmat23.rvs"; }
for r in $REP; do
  left "$r" && gen "${r}_rep" replica "$M/$r.mtx" 20000000 &&
    { bench "${r}_rep" f64 $IRR "$W/${r}_rep.rvs"; bench "${r}_rep" f32 csr,hcc "$W/${r}_rep.rvs";
      bench "${r}_rep" mixed hcc "$W/${r}_rep.rvs"; }
done
left ncu-replica && ncu_run wiki-Vote_rep "$W/wiki-Vote_rep.rvs" csr,hcc
left rmat20-22 && gen rmat20 rmat 20 16 && gen rmat22 rmat 22 16 &&
  { bench rmat20 both csr,coo,jad,pellr,hcc "$W/rmat20.rvs"; bench rmat22 f64 csr,coo,jad,hcc "$W/rmat22.rvs"; }
left ellr-memplus && bench memplus_rep f64 ell,ellr "$W/memplus_rep.rvs"
echo "# done in $(( $(date +%s) - t0 )) s" | tee -a "$T"
