#!/usr/bin/env bash
# spy.sh - the sparsity pattern of a matrix or stream as a PNG: a density image of at most
# WxH cells, coloured by part when the stream has a partition (rvsinfo --spy, spy.gp)
#   plots/spy.sh [-s WxH] [-p WxH] [-o OUT.png] [FILE]
set -euo pipefail
plot_name=spy.sh
plot_help="Usage: spy.sh [-s WxH] [-p WxH] [-o OUT.png] [FILE]
Draw the sparsity pattern of a matrix (Matrix Market) or an RVS stream from FILE or standard
input as a PNG: the non-zeros of each cell of a grid of at most W x H cells on a log colour
scale; with a partition, each cell in the colour of the part holding most of its entries.

  -s, --size WxH     the grid [400x400]; a matrix smaller than that gets a cell per entry
  -o, --output FILE  the picture [spy.png]
  -p, --pixels WxH   the picture's size [760x700]
  -h, --help         show this help and exit

Exit status: 0 drawn, 64 usage, 65 bad input, 66 missing input, 69 rvsinfo or gnuplot
missing, 70 gnuplot failed, 74 I/O error. See rvsinfo(1) and plots/README.md."
here=$(dirname "$0")
. "$here/plot_lib.sh"
out=spy.png plot_value=400x400
plot_parse -s --size "$@"
[[ $plot_value =~ ^[0-9]+x[0-9]+$ ]] || plot_usage "--size: '$plot_value' is not WxH"
plot_setup
plot_input "${plot_args[@]}"
plot_read "$rvsinfo" --spy "$plot_value" > "$plot_tmp/spy.txt"
plot_read "$rvsinfo" --ranges > "$plot_tmp/ranges.txt"
plot_draw "$here/spy.gp" "$out" "in='$plot_tmp/spy.txt'; ranges='$plot_tmp/ranges.txt'"
