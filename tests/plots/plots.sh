# plots.sh - the gnuplot scripts turn the programs' tables into pictures: each picture is made,
# is a PNG and is not empty, gnuplot's status is checked, and the scripts refuse bad input
. "$RVS_SRC/tests/lib/common.sh"
export XDG_CACHE_HOME=$T/cache # the advisor's trial cache: this test's own
command -v gnuplot >/dev/null || { echo "gnuplot missing"; exit 77; }
M=$RVS_DATA/pmf20.mtx
P=$RVS_SRC/plots
# png_ok WHAT FILE: FILE is a PNG of a picture (its signature, and more than a header)
png_ok() {
  if [ -f "$2" ] && [ "$(wc -c <"$2")" -gt 2000 ] && head -c 8 "$2" | od -An -c | grep -q 'P   N   G'; then ok
  else bad "$1: no picture in $2 ($(cat "$T/gp.err" 2>/dev/null))"; fi
}
# draw WHAT GP SETTINGS: run gnuplot on a script of plots/, check its status and its picture
draw() {
  if gnuplot -e "$3; out='$T/$1.png'" "$P/$2" 2>"$T/gp.err"; then png_ok "$1" "$T/$1.png"; else bad "$2: status $?: $(cat "$T/gp.err")"; fi
}

pmf --table "$M" > "$T/pmf.txt"
for ll in 0 1; do
  draw "pmf$ll" pmf.gp "in='$T/pmf.txt'; loglog=$ll"
done
"$P/density.sh" --cp 1,2,6 "$M" "$RVS_DATA/hyb4.mtx" > "$T/density.txt"
expect_eq "density table" "$(awk '!/^#/ {print $1, $2, $3, $4}' "$T/density.txt" | head -1)" "pmf20 0.5318 0.5680 0.7548"
draw density density.gp "in='$T/density.txt'"

# the gnuplot scripts over rvsinfo's tables
pmf "$M" | partition --alg pmf --cp 1:cpu,2:cpu,6:gpu -o "$T/a.rvs"
"$RVS_BIN/tests/stream_edit" advice "$T/a.rvs" "$T/advice.rvs"
rvsinfo --spy 400x400 "$T/a.rvs" > "$T/spy.txt"
rvsinfo --ranges "$T/advice.rvs" > "$T/ranges.txt"
rvsinfo --candidates "$T/advice.rvs" > "$T/cand.txt"
draw spy0 spy.gp "in='$T/spy.txt'"
draw spy1 spy.gp "in='$T/spy.txt'; ranges='$T/ranges.txt'"
draw pmfcuts pmf.gp "in='$T/pmf.txt'; ranges='$T/ranges.txt'"
draw pmfcuts1 pmf.gp "in='$T/pmf.txt'; ranges='$T/ranges.txt'; loglog=1"
draw advisor advisor.gp "in='$T/cand.txt'"
# a table of another kind is refused (65), and a table of candidates without a time
gnuplot -e "in='$T/ranges.txt'; out='$T/x.png'" "$P/spy.gp" 2>"$T/gp.err"
expect_eq "spy.gp on another table" "$? $(grep -c 'not a table of rvsinfo --spy' "$T/gp.err")" "65 1"
gnuplot -e "in='$T/spy.txt'; out='$T/x.png'" "$P/advisor.gp" 2>"$T/gp.err"
expect_eq "advisor.gp on another table" "$?" 65
head -3 "$T/cand.txt" > "$T/none.txt"
echo "1 gpu f64 fixed csr@default - - ran yes" >> "$T/none.txt"
gnuplot -e "in='$T/none.txt'; out='$T/x.png'" "$P/advisor.gp" 2>"$T/gp.err"
expect_eq "advisor.gp without times" "$? $(grep -c 'no candidate has a time' "$T/gp.err")" "65 1"

# the one-command scripts: from a file, from standard input, the default output name
for s in spy pmf advisor; do
  rm -f "$T/$s-f.png"
  "$P/$s.sh" -o "$T/$s-f.png" "$T/advice.rvs" >"$T/out" 2>"$T/gp.err" </dev/null || bad "$s.sh: status $?: $(cat "$T/gp.err")"
  png_ok "$s.sh FILE" "$T/$s-f.png"
  [ ! -s "$T/out" ] && [ ! -s "$T/gp.err" ] && ok || bad "$s.sh printed: $(cat "$T/out" "$T/gp.err")"
  "$P/$s.sh" --output "$T/$s-in.png" - <"$T/advice.rvs" 2>"$T/gp.err" || bad "$s.sh stdin: status $?: $(cat "$T/gp.err")"
  png_ok "$s.sh < FILE" "$T/$s-in.png"
  (cd "$T" && "$P/$s.sh" "$T/advice.rvs" 2>"$T/gp.err") || bad "$s.sh default name: status $?"
  png_ok "$s.sh default name" "$T/$s.png"
  "$P/$s.sh" --help | grep -q "^Usage: $s.sh " && ok || bad "$s.sh --help"
done
"$P/spy.sh" -s 8x8 -o "$T/it's 8.png" "$M" 2>"$T/gp.err" || bad "spy.sh -s 8x8 on Matrix Market: status $?"
png_ok "spy.sh -s 8x8, a name with a quote" "$T/it's 8.png"
"$P/pmf.sh" -l 1 -o "$T/pmf-ll.png" "$M" 2>"$T/gp.err" || bad "pmf.sh -l 1: status $?"
png_ok "pmf.sh -l 1" "$T/pmf-ll.png"
# --pixels: the PNG's width and height (its IHDR chunk)
for s in spy pmf advisor; do
  "$P/$s.sh" -p 480x360 -o "$T/$s-p.png" "$T/advice.rvs" 2>"$T/gp.err" || bad "$s.sh -p: status $?"
  expect_eq "$s.sh -p 480x360" "$(od -An -tu1 -j16 -N8 "$T/$s-p.png" | awk '{ print $3 * 256 + $4 "x" $7 * 256 + $8 }')" 480x360
done
# a convert --to auto pipeline on this machine's CPU, drawn straight from the pipe
pmf "$M" | partition --alg pmf --cp 1:cpu,2:cpu | convert --to auto --no-cache | "$P/advisor.sh" -o "$T/auto.png" 2>"$T/gp.err" ||
  bad "advisor.sh after convert --to auto: status $?: $(cat "$T/gp.err")"
png_ok "advisor.sh after convert --to auto" "$T/auto.png"

# without an 'auto' chunk, the decision spmv --plan makes now (here on the CPU, by trial)
"$P/advisor.sh" -o "$T/plan.png" "$T/a.rvs" 2>"$T/gp.err" || bad "advisor.sh without a decision: status $?: $(cat "$T/gp.err")"
png_ok "advisor.sh by spmv --plan" "$T/plan.png"

# refusals: one line, the status, nothing on stdout, no picture left behind
convert --cpu-format csr --gpu-format ell "$T/a.rvs" -o "$T/blocks.rvs"
expect_fail 65 "^advisor.sh: $T/blocks.rvs: no candidate has a time to draw$" -- "$P/advisor.sh" -o "$T/no.png" "$T/blocks.rvs"
[ ! -e "$T/no.png" ] && ok || bad "advisor.sh left a picture after an error"
expect_fail 64 "^spy.sh: --size: '8' is not WxH \(try 'spy.sh --help'\)$" -- "$P/spy.sh" -s 8 "$M"
expect_fail 64 "^rvsinfo: --spy: '0x8' is not WxH" -- "$P/spy.sh" -s 0x8 -o "$T/no.png" "$M"
expect_fail 64 "^pmf.sh: --loglog: '2' is not 0 or 1" -- "$P/pmf.sh" -l 2 "$M"
expect_fail 64 "^advisor.sh: --pixels: '480' is not WxH" -- "$P/advisor.sh" -p 480 "$T/advice.rvs"
expect_fail 64 "^advisor.sh: unknown option '--size'" -- "$P/advisor.sh" --size 8x8 "$M"
expect_fail 64 "^spy.sh: option '-o' needs a value" -- "$P/spy.sh" -o
expect_fail 64 "^pmf.sh: one input file at most" -- "$P/pmf.sh" "$M" "$M"
printf '%%%%MatrixMarket matrix coordinate real general\n0 0 0\n' >"$T/zero.mtx"
expect_fail 65 "^spy.sh: $T/zero.mtx: nothing to draw" -- "$P/spy.sh" -o "$T/no.png" "$T/zero.mtx"
expect_fail_in 65 "^pmf.sh: stdin: nothing to draw" "$T/zero.mtx" -- "$P/pmf.sh" -o "$T/no.png"
expect_fail 66 "^rvsinfo: $T/none.mtx: " -- "$P/spy.sh" -o "$T/no.png" "$T/none.mtx"
expect_fail 66 "^pmf: $T/none.mtx: " -- "$P/pmf.sh" -o "$T/no.png" "$T/none.mtx"
expect_fail 74 "^pmf.sh: $T/no/such/dir.png: cannot write$" -- "$P/pmf.sh" -o "$T/no/such/dir.png" "$M"
printf 'junk\n' >"$T/junk"
expect_fail_in 65 "^rvsinfo: stdin: " "$T/junk" -- "$P/spy.sh" -o "$T/no.png"
[ ! -e "$T/no.png" ] && ok || bad "a picture was left behind after an error"
finish
