# partition_compare.sh - partition --compare (a line per row algorithm: balance, cut, volume,
# time; the 2-D layout's volume beside them) checked for consistency and one volume against a count of its own; partition --alg metis
# through the programs: a valid partition in the stream, the same on every run, balanced, fewer
# x entries moved than Algorithm 2 on a stencil; their errors. Skipped (77) without METIS, after
# the checks that need none.
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx
rvsgen -o "$T/s7.rvs" stencil7 14 || bad "rvsgen stencil"
rvsgen -o "$T/rmat.rvs" rmat 10 8 || bad "rvsgen rmat"
rvsgen -o "$T/s7.mtx" stencil7 6 || bad "rvsgen stencil .mtx"

# consistent FILE: every line of the table holds together; prints the algorithms in order
consistent() {
  awk '/^# alg / { head = $0; next } /^#/ { next }
       NF != 9 { print "fields: " $0; exit 1 }
       { n++; algs = algs $1 " "
         if ($7 > $6) { print "volume above the edge cut: " $0; exit 1 }
         if ($8 != 8 * $7) { print "bytes not 8 a volume entry: " $0; exit 1 }
         if ($3 < $4 - 0.5 || $5 < 0.9999 || $9 < 0) { print "balance or time: " $0; exit 1 }
         if (parts && $2 != parts) { print "parts differ: " $0; exit 1 }
         parts = $2 }
       END { if (head != "# alg parts max_nnz mean_nnz imbalance edge_cut volume volume_bytes ms") { print "header: " head; exit 1 }
             print algs }' "$1"
}

metis=1
partition --alg metis --parts 2 -r "$M" > /dev/null 2>&1
[ $? = 69 ] && metis=0
want_algs="nnz rows pmf metis "
[ $metis = 1 ] || want_algs="nnz rows pmf "

for k in 2 4 8; do
  partition --compare --parts $k "$T/s7.rvs" > "$T/c$k" 2> "$T/e" && ok || bad "--compare --parts $k: $(cat "$T/e")"
  [ -s "$T/e" ] && bad "--compare --parts $k: stderr: $(head -c 200 "$T/e")" || ok
  r=$(consistent "$T/c$k") && expect_eq "stencil, $k parts: algorithms" "$r" "$want_algs" || bad "stencil, $k parts: $r"
  grep -q "^# spmv-mpi takes [a-z]*: the least volume" "$T/c$k" && ok || bad "--compare --parts $k: no choice line"
  # the 2-D layout beside them: (R - 1) x entries a column and (C - 1) partial y entries a row
  case $k in 2) g="1x2 2744 1" ;; 4) g="2x2 5488 2" ;; 8) g="2x4 10976 4" ;; esac
  set -- $g
  grep -qx "# 2d $1 (spmv-mpi --grid auto): volume $2 volume_bytes $(( $2 * 8 )) (x entries expanded and partial y entries folded), each rank exchanging with $3 others at most" \
    "$T/c$k" && ok || bad "--compare --parts $k: the grid's line: $(grep '^# 2d' "$T/c$k")"
done
partition --compare --cp 1,2,5 "$T/rmat.rvs" > "$T/cr" && r=$(consistent "$T/cr") &&
  expect_eq "R-MAT, --cp: algorithms" "$r" "$want_algs" || bad "R-MAT --compare: $r"
expect_eq "--cp gives the parts" "$(awk '!/^#/ { print $2; exit }' "$T/cr")" 3
# past 64 parts the volume is counted rank by rank: known, and consistent
partition --compare --parts 100 "$T/s7.rvs" > "$T/c100" && r=$(consistent "$T/c100") &&
  expect_eq "100 parts: algorithms" "$r" "$want_algs" || bad "100 parts: $r"
awk '!/^#/ && $7 <= 0 { print; exit 1 }' "$T/c100" > "$T/v" && ok || bad "100 parts: no volume: $(cat "$T/v")"
# the stream is not written: --compare on a pipe writes only the table
partition --compare --parts 3 "$T/s7.rvs" | grep -qv '^[#a-z]' && bad "--compare wrote more than its table" || ok

# the volume and edge cut of Algorithm 2 on 3 parts, counted here from the Matrix Market file and
# the parts' row counts (partition --report): x_j moves to each other part with an entry in column j
partition --alg nnz --parts 3 --report "$T/s7.mtx" | awk '!/^#/ { print $4 }' > "$T/rows"
awk 'FNR == 1 { f++ } f == 1 { hi[++p] = s += $1; next }
     /^%%MatrixMarket/ { sym = / symmetric/ } /^%/ { next } !dim { dim = 1; next }
     { entry($1, $2); if (sym && $1 != $2) entry($2, $1) }
     function owner(r,  q) { for (q = 1; r > hi[q]; q++); return q }
     function entry(r, c,  i, j) { i = owner(r); j = owner(c)
       if (i != j) { cut++; if (!((c, i) in seen)) { seen[c, i] = 1; vol++ } } }
     END { print cut + 0, vol + 0 }' "$T/rows" "$T/s7.mtx" > "$T/count"
expect_eq "volume counted apart" "$(partition --compare --parts 3 "$T/s7.mtx" | awk '$1 == "nnz" { print $6, $7 }')" "$(cat "$T/count")"

expect_fail 64 "^partition: --compare prints its table only: not with --report, --json or -o" -- partition --compare -r --parts 2 "$M"
expect_fail 64 "^partition: --compare prints its table only" -- partition --compare -o "$T/o.rvs" --parts 2 "$M"
[ -e "$T/o.rvs" ] && bad "--compare -o left a file" || ok
expect_fail 64 "^partition: --parts and --cp exclude each other" -- partition --parts 2 --cp 1,1 "$M"
expect_fail 64 "^partition: --parts: '0' is not an integer" -- partition --parts 0 "$M"
expect_fail 64 "^partition: --alg: 'metiss' is not one of rows, nnz, pmf, diag, metis" -- partition --alg metiss "$M"

if [ $metis = 0 ]; then
  expect_fail 69 "^partition: --alg metis: built without METIS" -- partition --alg metis --parts 2 "$M"
  grep -qx "# metis: built without METIS" "$T/c2" && ok || bad "--compare does not say METIS is missing"
  [ "$fails" -eq 0 ] || finish
  echo "built without METIS: skipped"
  exit 77
fi

# --alg metis: a valid partition in the stream (the reader checks every row once), the same twice
partition --alg metis --parts 4 "$T/s7.rvs" > "$T/m1.rvs" && partition --alg metis --parts 4 "$T/s7.rvs" > "$T/m2.rvs" && ok ||
  bad "--alg metis"
cmp -s "$T/m1.rvs" "$T/m2.rvs" && ok || bad "two runs of --alg metis differ"
rvsinfo "$T/m1.rvs" > "$T/info" && grep -q "^partition  *metis, 4 parts" "$T/info" && ok ||
  bad "rvsinfo on a metis stream: $(head -c 300 "$T/info")"
awk '/^# part / { p = 1; next } p && /^[0-9]/ { print }' "$T/info" > "$T/r4"
expect_eq "rows of the parts" "$(awk '{ s += $5 } END { print NR, s }' "$T/r4")" "4 2744"
# balanced within METIS's tolerance (1.03), a row (7 entries) of slack
awk -v n=$((2744 * 7 - 6 * 196)) '{ s += $6; if ($6 > 1.03 * n / 4 + 7) { print; exit 1 } } END { if (s != n) { print s; exit 1 } }' \
  "$T/r4" > "$T/heavy" && ok || bad "a part past the tolerance: $(cat "$T/heavy")"
for r in rmat.rvs s7.mtx; do
  partition --alg metis --parts 3 "$T/$r" | md5sum > "$T/h1"; partition --alg metis --parts 3 "$T/$r" | md5sum > "$T/h2"
  cmp -s "$T/h1" "$T/h2" && ok || bad "$r: two runs of --alg metis differ"
done
# a 3-D grid cut into slabs (nnz) moves more of x than METIS's blocks on 4 and 8 parts
for k in 4 8; do
  awk '$1 == "nnz" { n = $7 } $1 == "metis" { m = $7 } END { if (!(m < n)) { print m " against " n; exit 1 } }' "$T/c$k" > "$T/v" &&
    ok || bad "stencil, $k parts: METIS's volume not below nnz's: $(cat "$T/v")"
done
# on 2 parts a slab is a least cut already, which METIS need not find: near it
awk '$1 == "nnz" { n = $7 } $1 == "metis" { m = $7 } END { if (!(m <= 1.25 * n)) exit 1 }' "$T/c2" && ok ||
  bad "stencil, 2 parts: METIS far above a slab"

printf '%%%%MatrixMarket matrix coordinate real general\n3 4 2\n1 1 1\n2 4 1\n' > "$T/wide.mtx"
expect_fail 65 "^partition: $T/wide.mtx: metis needs a square matrix .*, not 3 x 4$" -- partition --alg metis --parts 2 "$T/wide.mtx"
partition --compare --parts 2 "$T/wide.mtx" > "$T/cw" && grep -q "^# metis needs a square matrix" "$T/cw" &&
  expect_eq "rectangular: the others" "$(consistent "$T/cw")" "nnz rows pmf " || bad "--compare on a rectangular matrix"
finish
