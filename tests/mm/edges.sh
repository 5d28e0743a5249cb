# edges.sh - SNAP-style edge lists under --edges: hand-made files (data/edges), the same
# through stdin and compressed, --size, bad lines (65, "prog: file: line N: ...", nothing on
# stdout), the option on every program that reads a matrix, and real SNAP graphs written back
# as edge lists from their Matrix Market copies in the shared matrices.
. "$RVS_SRC/tests/lib/common.sh"
command -v convert >/dev/null 2>&1 || { echo "convert not built: skipped"; exit 77; }
E=$RVS_DATA/edges
mtx() { convert --to mtx "$@" | tr '\n' ';'; }

tiny="%%MatrixMarket matrix coordinate pattern general;5 5 6;1 2;1 3;2 3;3 1;4 5;5 4;"
expect_eq "snap_tiny" "$(mtx --edges "$E/snap_tiny.txt")" "$tiny"
expect_eq "snap_tiny, stdin" "$(mtx --edges - <"$E/snap_tiny.txt")" "$tiny"
gzip -c "$E/snap_tiny.txt" >"$T/tiny.txt.gz"
expect_eq "snap_tiny, gzip" "$(mtx --edges "$T/tiny.txt.gz")" "$tiny"
expect_eq "snap_tiny, gzip stdin" "$(mtx --edges - <"$T/tiny.txt.gz")" "$tiny"
if command -v xz >/dev/null 2>&1; then
  xz -c "$E/snap_tiny.txt" >"$T/tiny.txt.xz"
  expect_eq "snap_tiny, xz" "$(mtx --edges "$T/tiny.txt.xz")" "$tiny"
fi
# weights: blanks and tabs, comments ('#', '%') anywhere, trailing blanks, duplicates summed
expect_eq "weighted" "$(mtx --edges "$E/weighted.txt")" \
  "%%MatrixMarket matrix coordinate real general;4 4 4;1 1 1.5;1 4 -2;3 2 2.001;4 3 0.25;"
expect_eq "crlf" "$(mtx --edges "$E/crlf.txt")" "%%MatrixMarket matrix coordinate pattern symmetric;2 2 2;2 1;2 2;"
# --size: room for vertices no edge names
expect_eq "--size" "$(mtx --edges --size 7 "$E/snap_tiny.txt" | cut -d';' -f2)" "7 7 6"
expect_eq "--size, no edges" "$(printf '# none\n' | convert --edges --size 3 --to mtx - | tr '\n' ';')" \
  "%%MatrixMarket matrix coordinate pattern symmetric;3 3 0;"
expect_fail 64 "^convert: --size is the size of an edge list: it needs --edges" -- convert --size 3 "$E/crlf.txt"
expect_fail 64 "^pmf: --size: " -- pmf --edges --size 0 "$E/crlf.txt"

# bad lines: name  text  message (after "pmf: FILE: ")
while IFS='|' read -r name text re; do
  printf "$text" >"$T/$name.txt"
  expect_fail 65 "^pmf: $T/$name\\.txt: $re\$" -- pmf --edges "$T/$name.txt"
  expect_fail_in 65 "^pmf: stdin: $re\$" "$T/$name.txt" -- pmf --edges -
done <<'EOF_CASES'
one_index|# c\n0 1\n2\n|line 3: an edge needs two indices, 'src dst'
four_columns|0 1 1.0 7\n|line 1: unexpected text '7' after the edge \(an edge is 'src dst' or 'src dst weight'\)
not_integer|0 1\n1 x\n|line 2: destination index 'x' is not an integer
fraction|0.5 1\n|line 1: source index '0\.5' is not an integer
negative|0 1\n-1 2\n|line 2: source index -1 is negative \(edge lists are 0-based\)
too_large|0 99999999999999999999\n|line 1: destination index 99999999999999999999 is too large
bad_weight|0 1 2.5\n1 2 abc\n|line 2: weight 'abc' is not a number
weight_missing|0 1 2.5\n\n1 2\n|line 3: an edge without a weight, but line 1 has one
weight_extra|0 1\n1 2 3\n|line 2: an edge with a weight, but line 1 has none
no_edges|# only\n# comments\n\n|no edges in 3 lines, and no size given
huge_index|0 9000000000000000\n|line 1: index 9000000000000000: 9000000000000001 rows need 144\.0 PB, more than the [0-9.]+ [GT]B of memory available
matrix_market|%%%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n|line 1: a Matrix Market banner: this is not an edge list
EOF_CASES
printf '0 1\n0 5\n' >"$T/beyond.txt"
expect_fail 65 "^pmf: $T/beyond\\.txt: line 2: destination index 5 out of range 0\\.\\.3 \\(size 4\\)\$" -- pmf --edges --size 4 "$T/beyond.txt"
expect_fail 65 "^pmf: $T/beyond\\.txt: line 1: missing banner" -- pmf "$T/beyond.txt"

# every program that reads a matrix takes --edges (spgemm for both inputs)
expect_ok -- pmf --edges -o "$T/p.rvs" "$E/weighted.txt"
expect_eq "pmf --json" "$(pmf --edges --json "$E/snap_tiny.txt" | json_get source.field 2>/dev/null || echo nopy)" \
  "$([ -n "$PY" ] && echo pattern || echo nopy)"
expect_ok -- partition --edges --alg rows --cp 1,1 -o "$T/q.rvs" "$E/snap_tiny.txt"
expect_ok -- spmv --edges --cpu -n 1 --check "$E/weighted.txt"
expect_eq "spgemm --edges" "$(spgemm --edges -o "$T/c.mtx" "$E/snap_tiny.txt" "$E/snap_tiny.txt" >/dev/null 2>&1 &&
  sed -n 2p "$T/c.mtx")" "5 5 7"

# real SNAP graphs: their Matrix Market copies written back as SNAP edge lists (0-based,
# tab-separated, the SNAP comment block; a symmetric file's edges both ways, as SNAP lists an
# undirected graph) read to the same matrix
if have_matrices; then
  for g in p2p-Gnutella08 wiki-Vote email-Enron; do
    f=$RVS_MATRICES/$g.mtx
    [ -f "$f" ] || continue
    awk -v g="$g" 'BEGIN { print "# Directed graph: " g ".txt"; print "# FromNodeId\tToNodeId" }
      NR == 1 { sym = $5 == "symmetric" } /^%/ { next }
      !size { size = $0; n = split(size, s, " "); print "# Nodes: " s[1] " Edges: " s[3]; next }
      { print ($1 - 1) "\t" ($2 - 1); if (sym && $1 != $2) print ($2 - 1) "\t" ($1 - 1) }' "$f" >"$T/$g.txt"
    rows=$(grep -v '^%' "$f" | head -1 | cut -d' ' -f1)
    expect_eq "$g as an edge list" "$(convert --edges --size "$rows" --to mtx "$T/$g.txt" | md5sum)" \
      "$(convert --to mtx "$f" | md5sum)"
    gzip -c "$T/$g.txt" | convert --edges --to mtx - >"$T/$g.mtx" && ok || bad "$g gzip'd through stdin"
    echo "$g: $(grep -vc '^#' "$T/$g.txt") edges read as the shared Matrix Market copy"
  done
fi
finish
