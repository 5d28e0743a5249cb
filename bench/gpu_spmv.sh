#!/usr/bin/env bash
# gpu_spmv.sh - GPU SpMV in every format against cuSPARSE, in one run on a GPU machine:
# every format on generated inputs and block replicas of real matrices, f64 and f32, against
# cuSPARSE CSR ALG1; then the paper's Test 2 (hybrid SpMV, Algorithms 1-4, calibrated CP).
#   bench/gpu_spmv.sh BUILD_DIR MATRICES_DIR OUT_DIR [all|spmv|hybrid|quick]
# spmv: the format table only; hybrid: Test 2 only (on four of the inputs); quick: small inputs.
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}; what=${4:-all}
quick=; [ "$what" = quick ] && quick=1
mkdir -p "$O" bench/work
W=bench/work
export PATH="$B:$PATH"
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
T=$O/gpu_spmv.txt
[ "$what" = hybrid ] && T=/dev/null
{
  echo "# rvskit GPU SpMV benchmark  $stamp  device: $dev"
  echo "# command: bench/gpu_spmv.sh $*"
} > "$T"

gen() { # name, then rvsgen arguments
  local name=$1; shift
  [ -s "$W/$name.rvs" ] || rvsgen "$@" -o "$W/$name.rvs" || rvsgen "$@" > "$W/$name.rvs"
}
if [ -z "$quick" ]; then
  gen stencil7_160 stencil7 160
  gen stencil27_100 stencil27 100
  gen rmat20 rmat 20 16
  gen rmat22 rmat 22 16
  for r in memplus bcsstk24 email-Enron wiki-Vote p2p-Gnutella04 ca-CondMat bcsstk29; do
    gen "${r}_rep" replica "$M/$r.mtx" 20000000
  done
  inputs="stencil7_160 stencil27_100 rmat20 rmat22 memplus_rep bcsstk24_rep email-Enron_rep wiki-Vote_rep p2p-Gnutella04_rep ca-CondMat_rep bcsstk29_rep"
else
  gen stencil7_60 stencil7 60
  gen rmat16 rmat 16 16
  inputs="stencil7_60 rmat16"
fi
if [ "$what" != hybrid ]; then
  for i in $inputs; do
    bench_gpu_spmv --iters 30 --label "$i" "$W/$i.rvs" | tee -a "$T"
  done
fi
[ "$what" = spmv ] && exit 0
[ -z "$quick" ] && inputs=${HYBRID_INPUTS:-"stencil7_160 stencil27_100 rmat20 email-Enron_rep"}

# Test 2 of Yang et al. (IEEE Trans. Computers, 2015): hybrid SpMV with Algorithms 1-4 at calibrated computing powers
H=$O/hybrid.txt
partition --calibrate > "$O/calibration.txt" 2>&1
echo "# Test 2: hybrid SpMV, calibrated CP ($(tr '\n' ' ' < "$O/calibration.txt"))  $stamp  $dev" > "$H"
echo "# matrix alg gpu_format mean_density status, then spmv's total line: part device format rows nnz time_ms gflops gbs" >> "$H"
for i in ${inputs}; do
  for alg in rows nnz pmf diag; do
    # GPU formats as the paper's Test 2: Algorithms 1 and 2 with HYB (cuSPARSE HYB AUTO there),
    # Algorithm 3 with the ELL family (PELLR: its rows come sorted by length, so each 32-row
    # slice pads little), Algorithm 4 with DIA for R1 (HYB-DIA keeps stray entries in COO)
    case $alg in rows|nnz) gf=hyb ;; pmf) gf=pellr ;; diag) gf=hyb-dia ;; esac
    dens=$(partition --alg $alg --cp auto --report "$W/$i.rvs" | sed -n 's/.*mean_density \([0-9.]*\).*/\1/p')
    partition --alg $alg --cp auto "$W/$i.rvs" 2> "$W/hyb.err" |
      convert --gpu-format $gf --cpu-format csr 2>> "$W/hyb.err" |
      spmv --hybrid --iters 20 --check > "$W/hyb.out" 2>> "$W/hyb.err"
    st=$?
    line=$(grep -E '^total' "$W/hyb.out" | head -1)
    echo "$i $alg $gf $dens status=$st $line $(head -c 200 "$W/hyb.err" | tr '\n' ' ')" | tee -a "$H"
    grep -E '^(#|gpu|cpu)' "$W/hyb.out" | sed "s/^/#   /" >> "$H"
  done
done
