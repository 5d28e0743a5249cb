# regress_process.sh CASE - regression tests for defects of the programs as processes (threads,
# memory), one case per finding (below)
. "$RVS_SRC/tests/lib/common.sh"
. "$RVS_SRC/tests/lib/fault.sh"
command -v spmv >/dev/null 2>&1 || { echo "spmv not built: skipped"; exit 77; }
A=$RVS_DATA/pmf20.mtx

case "${1:-}" in
# tool_threads_beyond_address_space: under ulimit -v, libgomp could not start the threads that
# OMP_NUM_THREADS or spmv -t asked for (8 MB stacks each) and ended the process with status 1
# and two lines of its own. The default count is lowered to fit; -t beyond it is a usage error.
tool_threads_beyond_address_space)
  if [ "${RVS_SANITIZED:-OFF}" = ON ]; then echo "needs ulimit -v, which a sanitizer build cannot run under: skipped"; exit 77; fi
  expect_fail_sh 64 "^spmv: --threads: 4096 threads do not fit the address-space limit \\(ulimit -v\\): at most [0-9]+ " 1000 60 -- \
    "spmv --cpu -t 4096 '$A'"
  for p in "pmf '$A'" "partition --cp 1,2 '$A'" "convert --to hyb '$A'" "spmv --cpu --check '$A'" "spgemm --cpu --check '$A'"; do
    expect_ok_sh 2000 60 -- "OMP_NUM_THREADS=4096 $p >/dev/null"
  done
  ;;
# spmv_dense_x_claim: spmv -x FILE read a dense x of rows x cols doubles with no memory claim (a
# 1 x 2x10^9 file: 16 GB, killed by the kernel where it did not fit)
spmv_dense_x_claim)
  printf '%%%%MatrixMarket matrix coordinate real general\n1 2000000000 1\n1 1 1\n' >"$T/x.mtx"
  expect_fail_sh 65 "^spmv: $T/x\\.mtx: the values of a dense 1 x 2000000000 array need 16\\.0 GB, more than the .* of memory available\$" \
    1000 60 -- "spmv --cpu -x '$T/x.mtx' '$A'"
  ;;
*) echo "regress_process.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
finish
