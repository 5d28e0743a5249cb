# mm_bad.sh - bad Matrix Market input: pmf fails with the right status and message, writes nothing
. "$RVS_SRC/tests/lib/common.sh"
command -v pmf >/dev/null 2>&1 || { echo "pmf not built: skipped"; exit 77; }
D=$RVS_DATA/bad

# case file status message-regex (the message follows "pmf: NAME: ")
cases() {
  cat <<'EOF'
no_banner.mtx           65 line 1: missing banner
wrong_banner.mtx        65 line 1: unknown symmetry 'sideways'
wrong_size_line.mtx     65 line 3: size line needs ROWS COLS ENTRIES
index_zero.mtx          65 line 7: row index 0 out of range 1\.\.5
index_beyond.mtx        65 line 4: column index 6 out of range 1\.\.5
fewer_entries.mtx       65 declares 10 entries, file has 9
more_entries.mtx        65 declares 2 entries, file has 3
non_numeric.mtx         65 line 4: value 'abc' is not a number
trailing_junk.mtx       65 line 4: unexpected text 'junk' after the entry
empty.mtx               65 empty
huge_rows.mtx           65 1000000000000 rows need 16\.0 TB, more than the [0-9.]+ [kMGT]B of memory available$
huge_entries.mtx        65 declares 1000000000000000 entries, file has 3
complex_one_value.mtx   65 line 4: missing imaginary part \(a complex value is two numbers\)
hermitian_real.mtx      65 line 1: hermitian needs the complex field, not real
unsigned_negative.mtx   65 line 4: value '-1' is negative in an unsigned-integer matrix
truncated.mtx.gz        65 gzip: compressed data ends early
EOF
}

while read -r file status re; do
  expect_fail "$status" "^pmf: $D/$file: $re" -- pmf "$D/$file"
  expect_fail_in "$status" "^pmf: stdin: $re" "$D/$file" -- pmf -
done < <(cases)

expect_fail 66 "^pmf: $D/no_such_file\.mtx: .*(No such file|cannot open)" -- pmf "$D/no_such_file.mtx"

# read as peers read them: a skew-symmetric file's diagonal kept with one warning line on stderr
# (and a stream on stdout); a complex file is a complex matrix
pmf "$RVS_DATA/skew_diagonal.mtx" >"$T/s.rvs" 2>"$T/s.err" </dev/null && ok || bad "skew diagonal: status $?"
expect_eq "skew diagonal warning" "$(cat "$T/s.err")" \
  "pmf: $RVS_DATA/skew_diagonal.mtx: warning: line 4: skew-symmetric file with 1 diagonal entry: kept as read, as scipy and fast_matrix_market do"
expect_eq "skew diagonal kept" "$(convert --to mtx "$T/s.rvs" | tr '\n' ';')" \
  "%%MatrixMarket matrix coordinate real general;3 3 3;1 2 -1;2 1 1;3 3 2;"
expect_eq "complex read" "$(pmf --json "$RVS_DATA/complex2.mtx" | json_get source.field) $(convert --to mtx "$RVS_DATA/complex2.mtx" | tr '\n' ';')" \
  "complex %%MatrixMarket matrix coordinate complex symmetric;2 2 1;1 1 1 2;"

# a gzip'd copy of a bad file fails the same way, by file and through stdin
gzip -c "$D/index_zero.mtx" >"$T/index_zero.gz"
expect_fail 65 "^pmf: $T/index_zero\.gz: line 7: row index 0 out of range 1\.\.5" -- pmf "$T/index_zero.gz"
expect_fail_in 65 "^pmf: stdin: line 7: row index 0 out of range 1\.\.5" "$T/index_zero.gz" -- pmf -

finish
