# rvsgen.sh - rvsgen: sizes and nnz of small stencils, R-MAT and replicas; outputs; bad usage.
. "$RVS_SRC/tests/lib/common.sh"

# head_of ARGS...: "rows cols nnz" of the generated matrix (via convert --report's header).
head_of() { rvsgen "$@" </dev/null | convert --report | awk 'NR == 1 { print $5, $7, $9 }'; }

expect_eq "stencil7 3" "$(head_of stencil7 3)" "27 27 135"
expect_eq "stencil7 1" "$(head_of stencil7 1)" "1 1 1"
expect_eq "stencil7 10" "$(head_of stencil7 10)" "1000 1000 $((1000 + 6 * 9 * 100))"
expect_eq "stencil27 3" "$(head_of stencil27 3)" "27 27 343"
expect_eq "stencil27 10" "$(head_of stencil27 10)" "1000 1000 $((28 * 28 * 28))"
# 7-point Laplacian: every row sums to 6 - (neighbours), diagonal 6
# (written as a symmetric file: the lower triangle, each off-diagonal entry standing for two)
rvsgen -o "$T/s7.mtx" stencil7 3 </dev/null
expect_eq "stencil7 banner" "$(head -1 "$T/s7.mtx")" "%%MatrixMarket matrix coordinate real symmetric"
expect_eq "stencil7 values" "$(awk 'NR > 2 { t += ($1 == $2 ? 1 : 2) * $3; if ($1 == $2) d[$3]++ } END {
  for (v in d) printf "%s:%d ", v, d[v]; print t }' "$T/s7.mtx")" "6:27 54"
rvsgen stencil7 3 </dev/null | convert --to mtx >"$T/a.mtx"
convert --to mtx "$T/s7.mtx" >"$T/b.mtx" </dev/null
if cmp -s "$T/a.mtx" "$T/b.mtx"; then ok; else bad "stream and .mtx outputs differ"; fi

# R-MAT: 2^scale rows, ef * 2^scale edges, duplicates summed into values
expect_eq "rmat 8 4 rows" "$(head_of rmat 8 4 | awk '{ print $1, $2 }')" "256 256"
rvsgen rmat 8 4 </dev/null | convert --to mtx >"$T/r.mtx"
expect_eq "rmat 8 4 edges" "$(awk 'NR > 2 { s += $3 } END { print s }' "$T/r.mtx")" "1024"
expect_eq "rmat nnz <= edges" "$(awk 'NR == 2 { print ($3 <= 1024 && $3 > 500) }' "$T/r.mtx")" "1"
rvsgen rmat 8 4 0.25 0.25 0.25 </dev/null | convert --to mtx >"$T/u.mtx"
expect_eq "rmat uniform edges" "$(awk 'NR > 2 { s += $3 } END { print s }' "$T/u.mtx")" "1024"
rvsgen --seed 7 rmat 8 4 </dev/null | convert --to mtx >"$T/r7.mtx"
rvsgen rmat 8 4 --seed 7 </dev/null | convert --to mtx >"$T/r7b.mtx"
if cmp -s "$T/r7.mtx" "$T/r7b.mtx"; then ok; else bad "rmat: same seed, different matrices"; fi
if cmp -s "$T/r.mtx" "$T/r7.mtx"; then bad "rmat: seeds 1 and 7 give the same matrix"; else ok; fi
# skewed: row 0 (a + b = 0.76 of the edges start in the top half at every level) is the longest
expect_eq "rmat skew" "$(awk 'NR > 2 { n[$1]++ } END { m = 0; for (r in n) if (n[r] > n[m]) m = r; print m }' "$T/r.mtx")" "1"

# replica: ceil(MIN_NNZ / nnz) copies, the row-length distribution kept
printf '%%%%MatrixMarket matrix coordinate real general\n5 4 7\n1 1 1\n1 3 2\n2 2 3\n3 1 4\n3 2 5\n3 4 6\n5 4 7\n' >"$T/small.mtx"
expect_eq "replica 100" "$(head_of replica "$T/small.mtx" 100)" "$((15 * 5)) $((15 * 4)) 105"
expect_eq "replica 7" "$(head_of replica "$T/small.mtx" 7)" "5 4 7"
expect_eq "replica 1" "$(head_of replica "$T/small.mtx" 1)" "5 4 7"
rvsgen replica "$T/small.mtx" 100 </dev/null | convert --to mtx >"$T/rep.mtx"
expect_eq "replica row lengths" "$(awk 'NR > 2 { n[$1]++ } END { for (r = 1; r <= 75; r++) c[n[r] + 0]++;
  print c[0], c[1], c[2], c[3] }' "$T/rep.mtx")" "15 30 15 15"
expect_eq "replica values" "$(awk 'NR > 2 { s += $3 } END { print s }' "$T/rep.mtx")" "$((15 * 28))"
expect_eq "replica block diagonal" "$(awk 'NR > 2 && int(($1 - 1) / 5) != int(($2 - 1) / 4) { bad++ } END { print bad + 0 }' "$T/rep.mtx")" "0"
if [ -f "$RVS_DATA/pmf20.mtx" ]; then
  pmf --table "$RVS_DATA/pmf20.mtx" </dev/null | awk '!/^# matrix/ { print $1, $3 }' >"$T/p1"
  rvsgen replica "$RVS_DATA/pmf20.mtx" 1000 </dev/null | pmf --table | awk '!/^# matrix/ { print $1, $3 }' >"$T/p2"
  if cmp -s "$T/p1" "$T/p2"; then ok; else bad "replica of pmf20 changed the PMF"; fi
  expect_eq "replica pmf20 copies" "$(head_of replica "$RVS_DATA/pmf20.mtx" 1000)" "180 180 1053"
fi

# bad usage and input: status, one message, empty stdout
expect_fail 64 "unknown matrix" -- rvsgen nosuch 3
expect_fail 64 "which matrix" -- rvsgen
expect_fail 64 "N" -- rvsgen stencil7 0
expect_fail 64 "exceeds 1" -- rvsgen rmat 8 4 0.5 0.5 0.5
expect_fail 64 "rmat takes" -- rvsgen rmat 8
expect_fail 66 "^rvsgen: $T/missing.mtx: " -- rvsgen replica "$T/missing.mtx" 10
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 0\n' >"$T/empty.mtx"
expect_fail 65 "no entries" -- rvsgen replica "$T/empty.mtx" 10

finish
