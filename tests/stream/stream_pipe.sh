# stream_pipe.sh - the container through real pipes: pmf | partition passes unknown ancillary
# chunks untouched; a cut stream and a failed upstream make the downstream program fail.
. "$RVS_SRC/tests/lib/common.sh"
for p in pmf partition tests/test_stream; do
  [ -x "$RVS_BIN/$p" ] || { echo "$p is not built" >&2; exit 1; }
done
test_stream() { "$RVS_BIN/tests/test_stream" "$@"; }

# The 20x20 matrix of pmf-partitioning Fig. 1 by its row lengths (columns spread 0, 1, 2, ...).
lens="2 5 3 7 1 5 2 6 13 5 7 9 3 10 7 1 6 13 2 10"
{
  echo "%%MatrixMarket matrix coordinate real general"
  echo "20 20 117"
  r=1
  for n in $lens; do
    for ((c = 1; c <= n; c++)); do echo "$r $c $r.$c"; done
    r=$((r + 1))
  done
} >"$T/a.mtx"

# pmf writes a stream when stdout is not a terminal
pmf "$T/a.mtx" >"$T/a.rvs" 2>"$T/err"
expect_eq "pmf status" "$?" 0
expect_eq "pmf output magic" "$(head -c 4 "$T/a.rvs" | od -An -tx1 | tr -d ' \n')" "89525653"

# an unknown ancillary chunk survives pmf | partition byte for byte
test_stream --insert-ancillary "$T/a.rvs" "$T/b.rvs"
expect_eq "insert helper" "$?" 0
test_stream --has-ancillary "$T/a.rvs"
expect_eq "chunk absent before insertion" "$?" 1
pmf "$T/b.rvs" 2>"$T/err1" | partition --alg pmf --cp 1,2,6 >"$T/c.rvs" 2>"$T/err2"
expect_eq "pmf | partition status" "${PIPESTATUS[*]}" "0 0"
test_stream --has-ancillary "$T/c.rvs"
expect_eq "ancillary chunk after pmf | partition" "$?" 0
partition --alg rows --cp 1,1 <"$T/c.rvs" >"$T/d.rvs" 2>"$T/err"
expect_eq "partition reads partition's output" "$?" 0
test_stream --has-ancillary "$T/d.rvs"
expect_eq "ancillary chunk after a second partition" "$?" 0

# cut streams: at the end of the prelude (a chunk boundary), in the middle, one byte short
size=$(wc -c <"$T/c.rvs")
for cut in 16 $((size / 2)) $((size - 1)); do
  head -c "$cut" "$T/c.rvs" >"$T/cut.rvs"
  expect_fail_in 65 "truncat" "$T/cut.rvs" -- partition --alg rows
done
head -c 16 "$T/c.rvs" >"$T/cut.rvs"
expect_fail_in 65 "without an end chunk" "$T/cut.rvs" -- partition --alg rows

# the same through a pipe whose writer stops early
head -c $((size / 3)) "$T/c.rvs" | partition --alg rows >"$T/out" 2>"$T/err"
st=${PIPESTATUS[1]}
expect_eq "cut pipe status" "$st" 65
expect_eq "cut pipe stdout bytes" "$(wc -c <"$T/out")" 0
grep -q truncat "$T/err" && ok || bad "cut pipe message: $(cat "$T/err")"

# an upstream that fails leaves the downstream failing, with nothing on stdout
pmf "$T/missing.mtx" 2>"$T/err1" | partition --alg rows >"$T/out" 2>"$T/err2"
set -- "${PIPESTATUS[@]}"
[ "$1" -ne 0 ] && ok || bad "pmf on a missing file succeeded"
[ "$2" -ne 0 ] && ok || bad "partition after a failed upstream succeeded"
expect_eq "failed upstream: stdout bytes" "$(wc -c <"$T/out")" 0
expect_eq "failed upstream: stderr lines" "$(wc -l <"$T/err2")" 1

finish
