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
# check_row_magnitude_overflow: a row 1e308, 1, 1, -1e308, 1, 1 with x = 1 passed spmv --check
# whatever y was (0 from COO and HYB, 46875-like sums from BiELL and HCC): sum |a_ij x_j|
# overflowed, the tolerance became infinite. The check fails and says so; spgemm's check too.
check_row_magnitude_overflow)
  {
    echo '%%MatrixMarket matrix coordinate real general'
    echo '2 6 7'
    echo '1 1 1e308'; echo '1 2 1'; echo '1 3 1'; echo '1 4 -1e308'; echo '1 5 1'; echo '1 6 1'; echo '2 1 1'
  } >"$T/o.mtx"
  printf '%%%%MatrixMarket matrix array real general\n6 1\n1\n1\n1\n1\n1\n1\n' >"$T/x.mtx"
  re="check failed: row 1: sum \\|a_ij x_j\\| overflows a double, so no tolerance bounds y's error\$"
  for f in csr coo ell hyb hyb-dia biell hcc; do
    convert --to $f "$T/o.mtx" >"$T/$f.rvs"
    expect_fail 1 "^spmv: $T/$f\\.rvs: $re" -- spmv --cpu --check -x "$T/x.mtx" "$T/$f.rvs"
  done
  expect_fail 1 "^spmv: $T/o\\.mtx: $re" -- spmv --cpu --check -x "$T/x.mtx" "$T/o.mtx"
  # without --check the matrix still runs: the advisor passes over a row it cannot judge
  expect_ok -- spmv --cpu "$T/o.mtx"
  expect_ok -- spmv --cpu -x "$T/x.mtx" "$T/o.mtx"
  # spgemm: the same row times a column of ones
  printf '%%%%MatrixMarket matrix coordinate real general\n6 1 6\n1 1 1\n2 1 1\n3 1 1\n4 1 1\n5 1 1\n6 1 1\n' >"$T/b.mtx"
  expect_fail 1 "^spgemm: check failed: entry \\(1,1\\): sum \\|a_ik b_kj\\| overflows a double, so no tolerance bounds C's error\$" -- \
    spgemm --cpu --check "$T/o.mtx" "$T/b.mtx"
  expect_ok -- spgemm --cpu "$T/o.mtx" "$T/b.mtx"
  # values that overflow alone (Inf in a product) keep their rule: the same class whatever the order
  expect_ok -- spmv --cpu --check "$RVS_DATA/inf.mtx"
  ;;
# spmv_f32_out_of_range: f64 values outside f32's range (3e38 + 3e38 in a row, 1e-46, 1e39) under
# spmv -p f32 stopped at "advisor: no format ran and verified" (70), or --check failed on a y
# right for A rounded to f32. The run rounds A to f32 first and checks against that, as
# convert -p f32 | spmv does; a sum beyond f32's range is its infinity.
spmv_f32_out_of_range)
  printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n1\n' >"$T/x.mtx"
  for v in "1 1 3e38\n1 2 3e38" "1 1 1e-46" "1 1 1e39" "1 1 -3e38\n1 2 -3e38"; do
    printf "%%%%MatrixMarket matrix coordinate real general\n2 2 0\n$v\n2 2 1\n" >"$T/v.mtx"
    n=$(($(wc -l <"$T/v.mtx") - 2)); sed -i "2s/.*/2 2 $n/" "$T/v.mtx"
    for args in "" "-x $T/x.mtx" "-f csr -x $T/x.mtx" "-f coo"; do
      expect_ok -- spmv --cpu -p f32 --check $args "$T/v.mtx"
      expect_ok -- spmv --cpu -p f32 $args "$T/v.mtx"
    done
    convert -p f32 "$T/v.mtx" >"$T/v32.rvs"
    expect_ok -- spmv --cpu --check -x "$T/x.mtx" "$T/v32.rvs"
  done
  # a y that is wrong for A rounded to f32 still fails: 3e38 and 1 sum to 3e38, not Inf
  ;;
# trial_cache_rescan: with the trial cache each part's lookup read the whole cache file, which
# grew a line a part and was never trimmed: 16384 one-row parts took over 60 s. The file is read
# once a run, and kept to a bounded number of lines.
trial_cache_rescan)
  preload=$RVS_BIN/tests/preload.so
  [ -f "$preload" ] || { echo "no $preload: skipped"; exit 77; }
  [ "${RVS_SANITIZED:-OFF}" = ON ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
  export XDG_CACHE_HOME=$T/cache
  # 512 parts of one row each, of 512 lengths: 512 shapes to decide (--plan tries the advisor's
  # doubts at once, where runs try them between calls, so every part writes the cache)
  awk 'BEGIN { n = 512; print "%%MatrixMarket matrix coordinate real general"; print n, n, n * (n + 1) / 2
               for (i = 1; i <= n; i++) for (j = 1; j <= i; j++) print i, j, 1 }' >"$T/tri.mtx"
  cp=$(awk 'BEGIN { for (i = 1; i <= 512; i++) printf "%s1", (i > 1 ? "," : "") }')
  partition --alg rows --cp "$cp" "$T/tri.mtx" >"$T/p.rvs" || bad "partition"
  for run in fresh cached; do
    LD_PRELOAD=$preload RVS_PRELOAD_COUNT=$T/count RVS_PRELOAD_OPENS=/rvskit/trials spmv --cpu --plan -t 1 "$T/p.rvs" >/dev/null 2>"$T/err" ||
      bad "spmv ($run): $(cat "$T/err")"
    expect_eq "cache file reads ($run)" "$(awk '$1 == "opens" { print ($2 <= 2) }' "$T/count")" 1
  done
  # a cache grown past its bound is cut back to the newest lines, whatever wrote them
  awk 'BEGIN { for (i = 0; i < 20000; i++) printf "rvskit-trial 5 %016x %016x 2 0 csr default 0.5 100\n", i, i }' >"$T/cache/rvskit/trials"
  spmv --cpu --plan --no-cache "$T/p.rvs" >/dev/null || bad "spmv --no-cache"
  expect_eq "--no-cache leaves the file" "$(wc -l <"$T/cache/rvskit/trials")" 20000
  spmv --cpu --plan "$T/tri.mtx" >/dev/null || bad "spmv with a long cache"
  n=$(wc -l <"$T/cache/rvskit/trials")
  [ "$n" -le 4096 ] && ok || bad "the cache holds $n lines"
  tail -1 "$T/cache/rvskit/trials" | grep -q '^rvskit-trial 5 ' && ok || bad "the newest line went"
  ;;
# partition_metrics_region_per_part: rvs_partition_metrics opened an OpenMP region per part:
# a 1.5 MB stream of 65536 parts of a 4x4 matrix took 19-48 s of pmf under load. One region
# serves every part. (The count of regions opened is what is checked, not a time.)
partition_metrics_region_per_part)
  preload=$RVS_BIN/tests/preload.so
  [ -f "$preload" ] || { echo "no $preload: skipped"; exit 77; }
  [ "${RVS_SANITIZED:-OFF}" = ON ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
  printf '%%%%MatrixMarket matrix coordinate real general\n4 4 4\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n' >"$T/d.mtx"
  cp=$(awk 'BEGIN { for (i = 1; i <= 4096; i++) printf "%s1", (i > 1 ? "," : "") }')
  partition --alg rows --cp "$cp" "$T/d.mtx" >"$T/p.rvs" || bad "partition"
  for p in pmf rvsinfo; do
    LD_PRELOAD=$preload RVS_PRELOAD_COUNT=$T/count $p "$T/p.rvs" >/dev/null 2>"$T/err" || bad "$p: $(cat "$T/err")"
    r=$(awk '$1 == "regions" { print $2 }' "$T/count")
    [ "$r" -lt 512 ] && ok || bad "$p opened $r parallel regions for 4096 parts"
  done
  ;;
*) echo "regress_process.sh: unknown case '${1:-}'" >&2; exit 2 ;;
esac
finish
