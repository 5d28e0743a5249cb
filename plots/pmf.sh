#!/usr/bin/env bash
# pmf.sh - the PMF of row lengths as a PNG, with the partition's parts drawn over it as bands of
# row lengths labelled with their formats and devices (pmf --table, rvsinfo --ranges, pmf.gp)
#   plots/pmf.sh [-l 0|1] [-p WxH] [-o OUT.png] [FILE]
set -euo pipefail
plot_name=pmf.sh
plot_help="Usage: pmf.sh [-l 0|1] [-p WxH] [-o OUT.png] [FILE]
Draw the PMF of the row lengths of a matrix (Matrix Market) or an RVS stream from FILE or
standard input as a PNG; when the stream has a partition, or a format for the whole matrix,
each part's range of row lengths is a band in its colour, labelled with its format and device.

  -l, --loglog 0|1   linear or log-log axes [log-log when the longest row is at least ten
                     times the mean]
  -o, --output FILE  the picture [pmf.png]
  -p, --pixels WxH   the picture's size [900x560]
  -h, --help         show this help and exit

Exit status: 0 drawn, 64 usage, 65 bad input, 66 missing input, 69 pmf, rvsinfo or gnuplot
missing, 70 gnuplot failed, 74 I/O error. See pmf(1), rvsinfo(1) and plots/README.md."
here=$(dirname "$0")
. "$here/plot_lib.sh"
out=pmf.png plot_value=
plot_parse -l --loglog "$@"
case $plot_value in ""|0|1) ;; *) plot_usage "--loglog: '$plot_value' is not 0 or 1" ;; esac
plot_setup
pmf=$(rvs_find pmf) || plot_die 69 "pmf not found (build rvskit, or set RVS_BIN)"
plot_input "${plot_args[@]}"
plot_read "$pmf" --table > "$plot_tmp/pmf.txt"
plot_read "$rvsinfo" --ranges > "$plot_tmp/ranges.txt"
settings="in='$plot_tmp/pmf.txt'"
# bands only where they say something: parts, or a format for the whole matrix
if awk '!/^#/ && ($1 != "all" || $3 != "-") { found = 1 } END { exit !found }' "$plot_tmp/ranges.txt"; then
  settings="$settings; ranges='$plot_tmp/ranges.txt'"
fi
[ -z "$plot_value" ] || settings="$settings; loglog=$plot_value"
plot_draw "$here/pmf.gp" "$out" "$settings"
