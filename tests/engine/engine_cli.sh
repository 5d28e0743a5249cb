# engine_cli.sh - the engine through the programs on the CPU: convert auto records its decision
# (the 'auto' chunk) and reports choice, runner-up and times; spmv --plan gives the same plan
# again from it; the default partition's buckets; spmv --format and its refusals; a matrix whose
# columns need 64-bit indices is refused before x is allocated.
. "$RVS_SRC/tests/lib/common.sh"
export XDG_CACHE_HOME=$T/cache
M=$RVS_DATA/pmf20.mtx

# convert --cpu-format auto: blocks in the chosen formats, one '# auto' line per part
pmf "$M" | partition --alg pmf --cp 1,1,1 | convert --cpu-format auto -o "$T/a.rvs" --report > "$T/rep" 2> "$T/e" &&
  ok || bad "convert auto: $(cat "$T/e")"
expect_eq "auto lines" "$(grep -c '^# auto [123] cpu ' "$T/rep")" 3
awk '/^# auto [0-9]/ { if ($7 + 0 <= 0) exit 1 } END { exit NR ? 0 : 1 }' "$T/rep" && ok || bad "auto times: $(cat "$T/rep")"
chosen=$(awk '/^# auto [0-9]/ { printf "%s ", $5 }' "$T/rep")
blocks=$(awk '!/^#/ { printf "%s ", $3 }' "$T/rep")
expect_eq "blocks are the choices" "$blocks" "$chosen"
# the decision travels in the stream: a later convert reports it, spmv plans from the blocks
convert --report < "$T/a.rvs" > "$T/rep2" 2> "$T/e" && ok || bad "convert --report: $(cat "$T/e")"
expect_eq "recorded decision" "$(grep '^# auto' "$T/rep2" | md5sum)" "$(grep '^# auto' "$T/rep" | md5sum)"
spmv --cpu --plan "$T/a.rvs" > "$T/p1" 2> "$T/e" && ok || bad "spmv --plan: $(cat "$T/e")"
spmv --cpu --plan "$T/a.rvs" > "$T/p2" 2> "$T/e"
cmp -s "$T/p1" "$T/p2" && ok || bad "the same stream gave another plan"
spmv --cpu --plan --no-fuse "$T/a.rvs" > "$T/p3" 2> "$T/e"
expect_eq "plan items" "$(grep -c '^[0-9]' "$T/p3")" 3
expect_eq "plan formats" "$(awk '!/^#/ { printf "%s ", $4 }' "$T/p3")" "$chosen"
expect_eq "plan sources" "$(awk '!/^#/ { printf "%s ", $10 }' "$T/p3")" "block block block "
grep -q '^# item parts device format tunables phase stream rows nnz source how pred_ms trial_ms memory$' "$T/p1" && ok ||
  bad "plan header: $(cat "$T/p1")"
spmv --cpu --check -n 2 "$T/a.rvs" > "$T/o" 2> "$T/e" && ok || bad "spmv on the auto stream: $(cat "$T/e")"
# a new partition makes the recorded decision stale: spmv advises again, checked
pmf "$T/a.rvs" | partition --alg nnz --cp 1,2 | spmv --cpu --check -n 1 > "$T/o" 2> "$T/e" && ok ||
  bad "stale decision: $(cat "$T/e")"
# without blocks, auto per part; --format fixes the format; --no-fuse keeps parts apart
pmf "$M" | partition --alg rows --cp 1,1,1 > "$T/p.rvs"
spmv --cpu --plan --format csr "$T/p.rvs" > "$T/o" && ok || bad "--format csr"
expect_eq "fixed csr fused" "$(awk '!/^#/ { printf "%s %s %s;", $2, $4, $10 }' "$T/o")" "1,2,3 csr fixed;"
spmv --cpu --plan --format csr --no-fuse "$T/p.rvs" > "$T/o"
expect_eq "--no-fuse" "$(grep -c '^[0-9]' "$T/o")" 3
spmv --cpu --check -n 1 --format dia "$T/p.rvs" > "$T/o" 2> "$T/e" && ok || bad "--format dia: $(cat "$T/e")"
# CPU parts in CSR holding every row once (Algorithm 3: rows by length) run the hub's rows in
# place, as the row block of all rows, checked; with a part left out of the item, not
pmf "$M" | partition --alg pmf --cp 1,1,1 > "$T/pm.rvs"
rows=$(awk '!/^%/ { print $1; exit }' "$M")
spmv --cpu --plan --format csr "$T/pm.rvs" > "$T/o" && ok || bad "--format csr, pmf parts"
expect_eq "in place" "$(awk '!/^#/ { printf "%s %s;", $2, $4 }' "$T/o")" "1,2,3:1-$rows csr;"
spmv --cpu --check -n 2 --format csr "$T/pm.rvs" > "$T/o" 2> "$T/e" && ok || bad "in place, checked: $(cat "$T/e")"
spmv --cpu --plan --format csr --no-fuse "$T/pm.rvs" > "$T/o"
expect_eq "parts apart: copies" "$(awk '!/^#/ { printf "%s;", $2 }' "$T/o")" "1;2;3;"
expect_fail 64 "^spmv: --format: unknown format 'bogus'" -- spmv --cpu --format bogus "$M"
expect_fail 64 "^spmv: --tune: threads-per-row 3 is not a power of two" -- spmv --cpu --tune threads-per-row=3 "$M"
expect_fail 64 "^spmv: --tune: threads-per-row 512 is not a power of two up to 32" -- spmv --cpu --tune threads-per-row=512 "$M"

# the default partition: buckets of similar row length, counted from the PMF (no GPU here:
# on the CPU); a stencil-like matrix with equal rows is one bucket
partition --report "$M" > "$T/o" 2> "$T/e" && ok || bad "default partition: $(cat "$T/e")"
grep -q '^# default computing powers: [1-4] parts\? of similar row length on the \(GPU\|CPU\)' "$T/o" && ok ||
  bad "default note: $(cat "$T/o")"
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 8\n1 1 1\n1 2 1\n2 2 1\n2 3 1\n3 3 1\n3 4 1\n4 4 1\n4 1 1\n' > "$T/even.mtx"
expect_eq "one bucket" "$(partition --report "$T/even.mtx" | grep -c '^[0-9]')" 1
expect_eq "diag default" "$(partition --alg diag --report "$M" | grep -c '^[0-9]')" 2

# columns that need 64-bit indices: refused before x (3e9 values) is allocated
printf '%%%%MatrixMarket matrix coordinate real general\n2 3000000000 2\n1 1 1.0\n2 2999999999 2.0\n' > "$T/wide.mtx"
expect_fail 65 "^spmv: $T/wide.mtx: 3000000000 columns need 64-bit column indices" -- spmv --cpu "$T/wide.mtx"
finish
