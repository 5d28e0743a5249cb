# pmf.sh - the pmf program: the PMF of row lengths and its statistics, counted here again from
# the Matrix Market entries (awk), on the paper's 20-row example (data/pmf20.mtx) and on a
# symmetric and a pattern matrix; the stream it writes carries the PMF chunk and the matrix as
# read; every output form (--table, --report, --json, -o) and bad input.
. "$RVS_SRC/tests/lib/common.sh"

# lengths FILE: 'k b_k' of a general or symmetric coordinate file, counted here
lengths() {
  awk 'NR == 1 { sym = ($0 ~ /symmetric/) } /^%/ { next }
       !seen++ { rows = $1; next }
       { n[$1]++; if (sym && $1 != $2) n[$2]++ }
       END { for (i = 1; i <= rows; i++) b[n[i] + 0]++; for (k in b) print k, b[k] }' "$1" | sort -n
}

printf '%%%%MatrixMarket matrix coordinate real symmetric\n4 4 5\n1 1 2\n2 1 -1\n3 2 -1\n4 3 -1\n4 4 2\n' >"$T/sym.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n5 5 4\n1 5\n1 4\n3 3\n5 1\n' >"$T/pat.mtx"
for m in "$RVS_DATA/pmf20.mtx" "$T/sym.mtx" "$T/pat.mtx"; do
  name=$(basename "$m")
  pmf --table "$m" >"$T/table" 2>"$T/err" || bad "$name: pmf --table: $(cat "$T/err")"
  expect_eq "$name: k b_k" "$(awk '!/^#/ { print $1, $2 }' "$T/table")" "$(lengths "$m")"
  rows=$(awk '!/^%/ { print $1; exit }' "$m")
  # p_k = b_k / rows, and the p_k sum to 1
  expect_eq "$name: p_k" "$(awk -v r="$rows" '!/^#/ && ($3 - $2 / r > 1e-12 || $2 / r - $3 > 1e-12) { print }' "$T/table")" ""
  expect_eq "$name: sum of p_k" "$(awk '!/^#/ { s += $3 } END { printf "%.12f", s }' "$T/table")" "1.000000000000"
done

# the statistics of the paper's example: 20 rows, 117 entries, lengths 1..13
if [ -n "$PY" ]; then
  pmf --json "$RVS_DATA/pmf20.mtx" >"$T/j" 2>"$T/err" || bad "pmf --json: $(cat "$T/err")"
  expect_eq "json rows nnz min max" "$(json_get rows <"$T/j") $(json_get nnz <"$T/j") $(json_get min <"$T/j") $(json_get max <"$T/j")" "20 117 1 13"
  expect_eq "json mean" "$(json_get mean <"$T/j")" 5.85
  want=$(lengths "$RVS_DATA/pmf20.mtx" | awk '{ s += $2 * $1 * $1; n += $2; m += $2 * $1 } END { printf "%.9f", sqrt(s / n - (m / n) ^ 2) }')
  expect_eq "json stddev" "$(printf '%.9f' "$(json_get stddev <"$T/j")")" "$want"
  expect_eq "json distinct lengths" "$(json_get distinct_lengths <"$T/j")" "$(lengths "$RVS_DATA/pmf20.mtx" | wc -l)"
fi
pmf --report "$RVS_DATA/pmf20.mtx" >"$T/rep" 2>"$T/err" || bad "pmf --report: $(cat "$T/err")"
grep -q "20" "$T/rep" && grep -q "117" "$T/rep" && ok || bad "the report lacks the rows or entries: $(cat "$T/rep")"

# the stream: a PMF chunk, the matrix as read; pmf of the stream again gives the same table
pmf "$RVS_DATA/pmf20.mtx" >"$T/a.rvs" 2>"$T/err" || bad "pmf to a pipe: $(cat "$T/err")"
rvsinfo "$T/a.rvs" >"$T/info" 2>&1 || bad "rvsinfo of pmf's stream: $(cat "$T/info")"
grep -q "^verdict *valid" "$T/info" && ok || bad "pmf's stream is not valid: $(cat "$T/info")"
grep -Eq "^pmf +stored in the stream" "$T/info" && ok || bad "pmf's stream has no PMF chunk: $(grep pmf "$T/info")"
expect_eq "pmf of pmf's stream" "$(pmf --table "$T/a.rvs" | tail -n +2)" "$(pmf --table "$RVS_DATA/pmf20.mtx" | tail -n +2)"
convert --to mtx "$T/a.rvs" -o "$T/back.mtx" 2>"$T/err" || bad "convert back: $(cat "$T/err")"
expect_eq "the matrix passes through" "$(grep -v '^%' "$T/back.mtx" | sort)" "$(grep -v '^%' "$RVS_DATA/pmf20.mtx" | sort)"
pmf -o "$T/o.rvs" "$RVS_DATA/pmf20.mtx" >"$T/out" 2>"$T/err" || bad "pmf -o: $(cat "$T/err")"
cmp -s "$T/o.rvs" "$T/a.rvs" && ok || bad "pmf -o wrote another stream than the pipe"

# bad input: one line, its status, nothing on stdout
expect_fail 66 "^pmf: $T/none.mtx: " -- pmf "$T/none.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n' >"$T/short.mtx"
expect_fail 65 "^pmf: $T/short.mtx: " -- pmf "$T/short.mtx"
expect_fail 64 "^pmf: " -- pmf --no-such-option "$RVS_DATA/pmf20.mtx"
expect_fail 64 "^pmf: " -- pmf "$RVS_DATA/pmf20.mtx" "$RVS_DATA/pmf20.mtx"
finish
