#!/usr/bin/env bash
# advisor.sh - the format advisor's decision recorded in a stream as a PNG: per part, every
# candidate's predicted and measured time of one SpMV, the chosen one marked
# (rvsinfo --candidates, advisor.gp)
#   plots/advisor.sh [-p WxH] [-o OUT.png] [FILE]
set -euo pipefail
plot_name=advisor.sh
plot_help="Usage: advisor.sh [-p WxH] [-o OUT.png] [FILE]
Draw the format advisor's decision recorded in the 'auto' chunk of an RVS stream (convert
with a format auto writes it) from FILE or standard input as a PNG: per part, each
candidate's time of one SpMV as the fitted model predicted it (hatched bars) and as its trial
measured it (solid bars), on a log axis, the chosen candidate marked.

  -o, --output FILE  the picture [advisor.png]
  -p, --pixels WxH   the picture's size [by its candidates]
  -h, --help         show this help and exit

Exit status: 0 drawn, 64 usage, 65 bad input or no decision in it, 66 missing input, 69
rvsinfo or gnuplot missing, 70 gnuplot failed, 74 I/O error. See rvsinfo(1), convert(1) and
plots/README.md."
here=$(dirname "$0")
. "$here/plot_lib.sh"
out=advisor.png
plot_parse "" "" "$@"
plot_setup
plot_input "${plot_args[@]}"
plot_read "$rvsinfo" --candidates > "$plot_tmp/candidates.txt"
plot_draw "$here/advisor.gp" "$out" "in='$plot_tmp/candidates.txt'"
