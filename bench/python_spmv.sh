#!/usr/bin/env bash
# python_spmv.sh - rvskit from Python against what a Python user calls instead, in one run:
# rvskit.SpMV's op @ x against scipy's A @ x on the CPU and CuPy's cuSPARSE on the GPU, the Python
# overhead of a call, and rvskit.mmread against scipy.io.mmread on files over 100 MB.
#   bench/python_spmv.sh BUILD_DIR MATRICES_DIR OUT_DIR
# Inputs (SUITE [full]): the auto issue's suite (bench/auto_spmv.sh: 7- and 27-point stencils
# 100^3, R-MAT 20, replicas of 20M entries of memplus, bcsstk24, email-Enron, wiki-Vote,
# p2p-Gnutella04, ca-CondMat) and two launch-bound matrices (7-point stencil 10^3, R-MAT 10);
# SUITE=small: the same kinds at sizes for a two-core machine without a GPU. PRECISIONS
# [f64 f32]; DEADLINE [420] s: inputs not started by then are listed as not run (the mmread
# section after them fits what is left of ten minutes).
# Columns, per input and precision (ms: median per call, y ready; x: the ratio, above 1 rvskit
# is faster):
#   scipy_ms, cpu_ms, cpu_x: scipy's A @ x (one thread) and rvskit.SpMV(A, device="cpu") @ x
#     (OMP_NUM_THREADS, all cores by default), x and y NumPy arrays;
#   ovh_cpu_us: op @ x less the bare ctypes call of rvs_spmv_op_apply, microseconds, the
#     library's function replaced on both sides by a C function that does nothing (what Python
#     adds, without the product's call-to-call noise);
#   cupy_ms, gpu_ms, gpu_x: cupyx.scipy.sparse.csr_matrix(A) @ x (cuSPARSE) and
#     rvskit.SpMV(A, device="gpu") @ x after WARM [10000] calls (its tuning settles), x and y
#     CuPy arrays; ovh_gpu_us as ovh_cpu_us with rvs_spmv_op_apply_device; format how switches:
#     what the operator runs at the end, how it got there, switches between calls ("-" without a
#     GPU or CuPy);
#   check: every y against scipy's (ok, or WRONG).
# mmread (MMREAD_ENTRIES [10000000]: a random general file of that many entries, and the
# 27-point stencil 100^3, symmetric; both over 100 MB): seconds of the C reader (bench_mmread,
# its first read in a process), rvskit.mmread (a CSR; the first read in a process, and a second
# one), scipy.io.mmread alone (a COO) and followed by .tocsr(), and the first read's ratio to
# each (x_c: 1 is as fast as the C reader).
set -uo pipefail
B=${1:?build dir}; M=${2:?matrices dir}; O=${3:?output dir}
here=$(cd "$(dirname "$0")" && pwd)
W=${RVS_BENCH_WORK:-/tmp/rvs-python-bench}
mkdir -p "$O" "$W"
T=$O/python_spmv.txt L=$O/python_spmv.log
export PATH="$B:$PATH" PYTHONPATH="$here/../python" RVSKIT_LIB="$B/librvskit.so" XDG_CACHE_HOME="$W/cache"
# the first python3 with numpy and scipy, one with CuPy too where there is one
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
  command -v "$p" > /dev/null || continue
  "$p" -c 'import numpy, scipy' 2> /dev/null || continue
  [ -n "$py" ] || py=$p
  if "$p" -c 'import cupy' 2> /dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "python_spmv.sh: no python3 with numpy and scipy" >&2; exit 69; }
file_of() { if [ -e "$M/$1.mtx" ]; then echo "$M/$1.mtx"; else echo "$M/$1.mtx.gz"; fi; }
if [ "${SUITE:-full}" = small ]; then
  inputs="stencil7_10:stencil7,10 rmat10:rmat,10,16 stencil7_40:stencil7,40 stencil27_30:stencil27,30 rmat16:rmat,16,16"
  rep=500000 mm_entries=${MMREAD_ENTRIES:-3500000} mm_n=80
else
  inputs="stencil7_10:stencil7,10 rmat10:rmat,10,16 stencil7_100:stencil7,100 stencil27_100:stencil27,100 rmat20:rmat,20,16"
  rep=20000000 mm_entries=${MMREAD_ENTRIES:-10000000} mm_n=100
fi
for r in memplus bcsstk24 email-Enron wiki-Vote p2p-Gnutella04 ca-CondMat; do
  [ -e "$(file_of $r)" ] && inputs="$inputs ${r}_rep:replica,$(file_of $r),$rep"
done
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
versions=$("$py" -c 'import sys, numpy, scipy
try:
    import cupy; c = cupy.__version__
except ImportError:
    c = "none"
print("python %s numpy %s scipy %s cupy %s" % (sys.version.split()[0], numpy.__version__, scipy.__version__, c))')
{
  echo "# rvskit from Python against scipy (CPU) and CuPy's cuSPARSE (GPU)  $(date -u +%Y-%m-%dT%H:%MZ)  device: ${dev:-none}"
  echo "# command: bench/python_spmv.sh $*  (SUITE=${SUITE:-full} PRECISIONS=${PRECISIONS:-f64 f32}); tree $(git -C "$here" rev-parse --short HEAD 2> /dev/null)"
  echo "# $(hostname), $(nproc) cores, OMP_NUM_THREADS=${OMP_NUM_THREADS:-all}; $versions"
  echo "# matrix vt rows nnz scipy_ms cpu_ms cpu_x ovh_cpu_us cupy_ms gpu_ms gpu_x ovh_gpu_us format how switches check"
} > "$T"
: > "$L"
. "$(dirname "$0")/inputs.sh"
DEADLINE=${DEADLINE:-420}
start=$(date +%s)
for vt in ${PRECISIONS:-f64 f32}; do
  for spec in $inputs; do
    name=${spec%%:*}
    A=$(input_path "$name" "${spec#*:}" "$vt") || continue
    "$py" "$here/python_spmv.py" spmv "$name" "$A" "$vt" >> "$T" 2>> "$L" || echo "# $name $vt: failed (see the log)" >> "$T"
  done
done
# Matrix Market files over 100 MB
echo "# file MB c_s rvskit_s rvskit2_s scipy_s scipy_csr_s x_c x_scipy x_scipy_csr check" >> "$T"
mm1=$W/random_$mm_entries.mtx mm2=$W/stencil27_$mm_n.mtx
[ -s "$mm1" ] || bench_mmread --generate "$mm1" "$mm_entries" >> "$L" 2>&1
[ -s "$mm2" ] || rvsgen stencil27 "$mm_n" -o "$mm2" 2>> "$L"
for f in "$mm1" "$mm2"; do
  [ -s "$f" ] || { echo "# $(basename "$f"): not generated" >> "$T"; continue; }
  c=$(bench_mmread -n 1 "$f" 2>> "$L" | awk 'NR == 2 { print $3 }')
  "$py" "$here/python_spmv.py" mmread "$f" "${c:-0}" >> "$T" 2>> "$L" || echo "# $(basename "$f"): failed (see the log)" >> "$T"
done
# the issue's targets, from the table
awk '
  /^# file/ { mm = 1; next }
  /^#/ { next }
  !mm && $NF == "ok" { n++; if ($8 > ovh) ovh = $8; if ($12 != "-") { g++; if ($12 > ovh) ovh = $12; if ($11 + 0 < 1) slow++ } }
  !mm && $NF == "WRONG" { wrong++ }
  mm && $2 + 0 > 100 { f++; if (min == "" || $10 + 0 < min) min = $10 + 0; if (minc == "" || $8 + 0 < minc) minc = $8 + 0 }
  END {
    printf "# targets: Python overhead per call < 20 us: %s (largest %.2f us over %d rows)\n", (ovh < 20 ? "met" : "missed"), ovh, n
    if (g) printf "# GPU op @ x at least 1.0x CuPy on every matrix: %s (%d of %d below)\n", (slow ? "missed" : "met"), slow, g
    else printf "# GPU op @ x against CuPy: not run (no GPU or no CuPy)\n"
    if (f) printf "# mmread at least 2x scipy.io.mmread(...).tocsr() on files over 100 MB: %s (least %.2fx); against the C reader at least %.2fx\n", (min >= 2 ? "met" : "missed"), min, minc
    if (wrong) printf "# WRONG results: %d rows\n", wrong
  }' "$T" >> "$T"
cat "$T"
