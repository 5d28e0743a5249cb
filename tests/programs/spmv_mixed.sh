# spmv_mixed.sh - spmv --precision mixed (f32 values; f64 x, y and sums) on the CPU (argument
# cpu) or the GPU (gpu: skipped, 77, without a usable GPU): each format checked against the
# matrix rounded to f32, y beside the f64 run's (the rounding shows, and stays small), misuse.
. "$RVS_SRC/tests/lib/common.sh"
mode=${1:-cpu}
if [ "$mode" = gpu ]; then
  spmv --gpu -n 1 "$RVS_DATA/pmf20.mtx" > /dev/null 2>&1
  [ $? = 69 ] && { echo "no usable GPU: skipped"; exit 77; }
fi
# a random 2000 x 1500 matrix whose values f32 cannot hold, rows of 0 to 40 entries and one
# dense row (HCC's heavy path), written with 17 digits
M=$T/r.mtx
awk 'BEGIN { srand(7); n = 0
  for (i = 1; i <= 2000; i++) { k = i == 77 ? 1500 : int(rand() * 41)
    for (j = 1; j <= k; j++) { c = i == 77 ? j : 1 + int(rand() * 1500); key = i " " c
      if (key in seen) continue; seen[key] = 1; r[++n] = sprintf("%d %d %.17g", i, c, 2 * rand() - 1) } }
  print "%%MatrixMarket matrix coordinate real general"; print 2000, 1500, n
  for (e = 1; e <= n; e++) print r[e] }' > "$M"

# max |a - b| / max |b| over two Matrix Market arrays
reldiff() { awk 'FNR == 1 { f++ } /^%/ { next } !s[f]++ { next }
  f == 1 { a[FNR] = $1; next } { d = a[FNR] - $1; d = d < 0 ? -d : d; if (d > m) m = d
  v = $1 < 0 ? -$1 : $1; if (v > big) big = v } END { printf "%.3g\n", (big > 0 ? m / big : 0) }' "$1" "$2"; }

spmv --$mode -p f64 -c -n 1 -y "$T/y64.mtx" "$M" > "$T/out" 2> "$T/err" && ok || bad "f64 run: $(cat "$T/err")"
for f in auto csr hcc; do
  if spmv --$mode -p mixed -f $f -c -n 2 -y "$T/ym.mtx" "$M" > "$T/out" 2> "$T/err"; then
    grep -q '^# check ok: .*reference: A rounded to f32' "$T/out" && ok || bad "$f: no check line"
    grep -q "^# plan: mode $mode, mixed, .*format $([ $f = auto ] && echo '\(csr\|hcc\) (trial' || echo $f)" "$T/out" &&
      ok || bad "$f: plan line: $(grep '^# plan' "$T/out")"
    [ "$(grep -c '^total ' "$T/out")" = 1 ] && ok || bad "$f: no total line"
    d=$(reldiff "$T/ym.mtx" "$T/y64.mtx")
    awk -v d="$d" 'BEGIN { exit !(d > 1e-12 && d < 1e-5) }' && ok ||
      bad "$f: mixed y against f64 y: relative difference $d, want f32 rounding (1e-12 .. 1e-5)"
  else
    bad "$f: $(cat "$T/err")"
  fi
done
if [ -n "$PY" ]; then
  spmv --$mode -p mixed --json -c -n 1 "$M" > "$T/j" 2> "$T/err"
  expect_eq "json vtype" "$(json_get vtype < "$T/j")" "mixed"
  expect_eq "json check" "$(json_get check.ok < "$T/j")" "true"
fi
if [ "$mode" = cpu ]; then
  expect_fail 64 "^spmv: --format: mixed precision has kernels for csr and hcc only" -- spmv --cpu -p mixed -f ell "$M"
  expect_fail 64 "^spmv: --precision mixed: .*complex2.mtx is complex" -- spmv --cpu -p mixed "$RVS_DATA/complex2.mtx"
  expect_fail 64 "^spmv: --precision mixed runs the whole matrix on one device" -- spmv --cpu -p mixed --plan "$M"
  expect_fail 64 "^spmv: --precision: 'f16' is not f32, f64 or mixed" -- spmv --cpu -p f16 "$M"
fi
finish
