# plot_tables.sh - the tables rvsinfo prints for the pictures: --spy (the density grid and its
# parts), --ranges (the parts' row lengths and formats), --candidates (the advisor's times),
# on the worked example of pmf-partitioning (20 rows, 117 non-zeros), and their refusals
. "$RVS_SRC/tests/lib/common.sh"
export XDG_CACHE_HOME=$T/cache # the advisor's trial cache: this test's own
M=$RVS_DATA/pmf20.mtx
data() { grep -v '^#' | grep -v '^$'; }
# entries per part of a spy table: "part:nnz ..." in part order
per_part() { data | awk '{ n[$4] += $3 } END { for (p in n) print p ":" n[p] }' | sort -n | tr '\n' ' '; }

pmf "$M" | partition --alg pmf --cp 1:cpu,2:cpu,6:gpu -o "$T/pmf.rvs"

# --spy, a cell per entry: the matrix itself, each entry in its part (Alg. 3: NNZ 14/27/76)
rvsinfo --spy 20x20 "$T/pmf.rvs" >"$T/spy" </dev/null || bad "rvsinfo --spy: status $?"
expect_eq "spy header" "$(head -2 "$T/spy")" "# spy rows 20 cols 20 nnz 117 cells 20 20 block 1 1 parts 3 matrix pmf20.mtx
# x y nnz part"
expect_eq "spy cells" "$(data <"$T/spy" | wc -l)" 400
expect_eq "spy blank lines" "$(grep -c '^$' "$T/spy")" 20
expect_eq "spy per part" "$(per_part <"$T/spy")" "0:0 1:14 2:27 3:76 "
# the pattern is the matrix's: the Matrix Market entries, as "column row"
awk '!/^%/ && ++n > 1 { print $2, $1 }' "$M" | sort >"$T/want"
data <"$T/spy" | awk '$3 > 0 { print $1, $2 }' | sort >"$T/got"
cmp -s "$T/want" "$T/got" && ok || bad "spy cells are not the matrix's entries"
# row 9 (13 entries) is in part 3, row 1 in part 1 (rows {1,3,5,7,13,16,19})
expect_eq "spy row 9" "$(data <"$T/spy" | awk '$2 == 9 && $3 { print $4 }' | sort -u)" 3
expect_eq "spy row 1" "$(data <"$T/spy" | awk '$2 == 1 && $3 { print $4 }' | sort -u)" 1

# downsampled: cells of 7 rows by 5 columns (the last ones cut short), every entry counted once;
# the one cell of the whole matrix goes to the part with most entries
rvsinfo --spy 4x3 "$T/pmf.rvs" >"$T/spy43"
expect_eq "spy 4x3 header" "$(head -1 "$T/spy43")" "# spy rows 20 cols 20 nnz 117 cells 4 3 block 7 5 parts 3 matrix pmf20.mtx"
expect_eq "spy 4x3 centres" "$(data <"$T/spy43" | awk '{ print $1 "," $2 }' | tr '\n' ' ')" \
  "3,4 8,4 13,4 18,4 3,11 8,11 13,11 18,11 3,18 8,18 13,18 18,18 "
expect_eq "spy 4x3 total" "$(data <"$T/spy43" | awk '{ s += $3 } END { print s }')" 117
expect_eq "spy 1x1" "$(rvsinfo --spy 1x1 "$T/pmf.rvs" | data)" "10.5 10.5 117 3"
# a Matrix Market file has no parts: part 0 everywhere
expect_eq "spy without partition" "$(rvsinfo --spy 20x20 "$M" | per_part)" "0:117 "

# Algorithm 4: the diagonal part holds the entries inside the blocks, the others the rest
pmf "$M" | partition --alg diag --block-size 5 --cp 1,1,1 -o "$T/diag.rvs"
rvsinfo --ranges "$T/diag.rvs" | data | awk '{ printf "%s:%s ", $1, $7 }' >"$T/dnnz"
expect_eq "spy Alg. 4 per part" "$(rvsinfo --spy 20x20 "$T/diag.rvs" | per_part | sed 's/^0:0 //')" "$(cat "$T/dnnz")"
expect_eq "Alg. 4 parts" "$(wc -w <"$T/dnnz")" 3
rvsinfo --spy 20x20 "$T/diag.rvs" | data | awk '$3 && int(($1 - 1) / 5) == int(($2 - 1) / 5) && $4 != 1 { bad = 1 }
  $3 && int(($1 - 1) / 5) != int(($2 - 1) / 5) && $4 == 1 { bad = 1 } END { exit bad }' && ok ||
  bad "spy Alg. 4: an entry inside a diagonal block outside part 1, or the reverse"

# --ranges: Alg. 3's buckets 1..3, 5..6, 7..13, with the devices and the formats of the blocks
rvsinfo --ranges "$T/pmf.rvs" >"$T/ranges"
expect_eq "ranges" "$(cat "$T/ranges")" "# ranges rows 20 nnz 117 alg pmf parts 3 matrix pmf20.mtx
# part device format kmin kmax rows nnz
1 cpu - 1 3 7 14
2 cpu - 5 6 5 27
3 gpu - 7 13 8 76"
convert --gpu-format ellr --cpu-format jad "$T/pmf.rvs" -o "$T/conv.rvs"
expect_eq "ranges with formats" "$(rvsinfo --ranges "$T/conv.rvs" | data | awk '{ print $2, $3 }' | tr '\n' ' ')" \
  "cpu jad cpu jad gpu ellr "
# Alg. 1 (rows 1-2, 3-6, 7-20): ranges that overlap
expect_eq "ranges Alg. 1" "$(pmf "$M" | partition --alg rows --cp 1,2,6 | rvsinfo --ranges | data | cut -d' ' -f1,4,5 | tr '\n' ' ')" \
  "1 2 5 2 1 7 3 1 13 "
expect_eq "ranges without partition" "$(rvsinfo --ranges "$M" | data)" "all - - 1 13 20 117"
expect_eq "ranges whole matrix format" "$(convert --to ell "$M" | rvsinfo --ranges | data)" "all - ell 1 13 20 117"
# processor numbers of a 'plac' chunk show as gpuN and cpuN
expect_eq "ranges placement" "$(pmf "$M" | partition --alg pmf --cp 1:cpu1,1:gpu0 | rvsinfo --ranges | data | cut -d' ' -f2 | tr '\n' ' ')" \
  "cpu1 gpu0 "

# --candidates: the decisions of an 'auto' chunk with the model's and the trials' times
"$RVS_BIN/tests/stream_edit" advice "$T/pmf.rvs" "$T/advice.rvs"
rvsinfo --candidates "$T/advice.rvs" >"$T/cand"
expect_eq "candidates header" "$(sed -n '1p;3p' "$T/cand")" "# candidates decisions 3 current yes matrix pmf20.mtx
# part device vtype how candidate pred_ms trial_ms status chosen"
expect_eq "candidates part 2" "$(data <"$T/cand" | awk '$1 == 2')" "2 gpu f64 trial csr@default 0.04 0.05 ran no
2 gpu f64 trial ellr@default 0.02 0.024 ran yes
2 gpu f64 trial hyb@default 0.06 - pruned no"
expect_eq "candidates lines" "$(data <"$T/cand" | wc -l)" 9
# a new partition makes the chunk stale: still shown, said so, and no longer a part's format
partition --alg rows --cp 1:gpu,1:gpu,1:gpu <"$T/advice.rvs" >"$T/stale.rvs"
expect_eq "candidates stale" "$(rvsinfo --candidates "$T/stale.rvs" | head -1)" "# candidates decisions 3 current no matrix pmf20.mtx"
expect_eq "ranges stale" "$(rvsinfo --ranges "$T/stale.rvs" | data | cut -d' ' -f3 | tr '\n' ' ')" "- - - "
# the decision's format labels the part it was made for, on its device only (here the GPU part)
expect_eq "ranges from a decision" "$(rvsinfo --ranges "$T/advice.rvs" | data | cut -d' ' -f3 | tr '\n' ' ')" "- - ellr "
if [ -n "$PY" ]; then
  rvsinfo --json "$T/advice.rvs" >"$T/aj"
  expect_eq "json pred_ms" "$(json_get auto.decisions.1.candidates.1.pred_ms <"$T/aj")" 0.02
  expect_eq "json no pred_ms" "$(json_get auto.decisions.1.candidates.3.pred_ms <"$T/aj")" None
  expect_eq "json how" "$(json_get auto.decisions.1.how <"$T/aj")" trial
fi
# a real decision on this machine's CPU: every chosen candidate ran, and shows its time
pmf "$M" | partition --alg pmf --cp 1:cpu,2:cpu -o "$T/cpu.rvs"
convert --to auto --no-cache "$T/cpu.rvs" -o "$T/auto.rvs" && rvsinfo --candidates "$T/auto.rvs" >"$T/cc" ||
  bad "convert --to auto | rvsinfo --candidates: status $?"
expect_eq "candidates chosen per part" "$(data <"$T/cc" | awk '$9 == "yes" { print $1 }' | tr '\n' ' ')" "1 2 "
data <"$T/cc" | awk '$2 != "cpu" || $4 != "trial" || ($9 == "yes" && ($7 == "-" || $8 != "ran")) { bad = 1 } END { exit bad }' &&
  ok || bad "candidates of a CPU decision: $(cat "$T/cc")"

# refusals: one line, the status, nothing on stdout
expect_fail 64 "^rvsinfo: --spy: '0x5' is not WxH" -- rvsinfo --spy 0x5 "$M"
expect_fail 64 "^rvsinfo: --spy: '4097x1' is not WxH" -- rvsinfo --spy 4097x1 "$M"
expect_fail 64 "^rvsinfo: --spy: '\\+5x5' is not WxH" -- rvsinfo --spy +5x5 "$M"
for v in 5 5x x5 5x5x5 -5x5 " 5x5" 5X5 5x5k; do
  expect_fail 64 "^rvsinfo: --spy: '$v' is not WxH" -- rvsinfo --spy "$v" "$M"
done
expect_fail 64 "^rvsinfo: option '--spy' needs a value" -- rvsinfo --spy
expect_fail 64 "^rvsinfo: --json, --spy, --ranges and --candidates exclude each other" -- rvsinfo --json --ranges "$M"
expect_fail 64 "exclude each other" -- rvsinfo --spy 4x4 --candidates "$M"
expect_fail 65 "^rvsinfo: $T/pmf.rvs: no 'auto' chunk" -- rvsinfo --candidates "$T/pmf.rvs"
expect_fail 65 "^rvsinfo: $M: no 'auto' chunk" -- rvsinfo --candidates "$M"
expect_fail 66 "^rvsinfo: $T/none.rvs: " -- rvsinfo --spy 4x4 "$T/none.rvs"
head -c 2000 "$T/pmf.rvs" >"$T/cut.rvs"
for t in "--spy 4x4" --ranges --candidates; do
  expect_fail 65 "^rvsinfo: $T/cut.rvs: " -- rvsinfo $t "$T/cut.rvs"
done
"$RVS_BIN/tests/stream_edit" plac=short "$T/pmf.rvs" "$T/plac.rvs"
expect_fail 65 "^rvsinfo: $T/plac.rvs: " -- rvsinfo --ranges "$T/plac.rvs"
printf 'not a matrix\n' >"$T/junk"
expect_fail 65 "^rvsinfo: $T/junk: " -- rvsinfo --spy 4x4 "$T/junk"
finish
