#!/usr/bin/env bash
# advisor.sh - the format advisor's decision as a PNG: per part, every candidate's predicted and
# measured time of one SpMV, the chosen one marked; the decision recorded in the stream
# (rvsinfo --candidates), else the one spmv makes now (spmv --plan); drawn by advisor.gp
#   plots/advisor.sh [-p WxH] [-o OUT.png] [FILE]
set -euo pipefail
plot_name=advisor.sh
plot_help="Usage: advisor.sh [-p WxH] [-o OUT.png] [FILE]
Draw the format advisor's decision for a matrix or an RVS stream from FILE or standard input
as a PNG: per part, each candidate's time of one SpMV as the fitted model predicted it
(hatched bars) and as its trial measured it (solid bars), on a log axis, the chosen candidate
marked. The decision is the one recorded in the stream's 'auto' chunk (convert with a format
auto writes it); an input without one gets the decision spmv makes now, on its default
devices (spmv --plan: trials may run).

  -o, --output FILE  the picture [advisor.png]
  -p, --pixels WxH   the picture's size [by its candidates]
  -h, --help         show this help and exit

Exit status: 0 drawn, 64 usage, 65 bad input or no candidate with a time, 66 missing input,
69 rvsinfo, spmv or gnuplot missing, 70 gnuplot failed, 74 I/O error. See rvsinfo(1),
spmv(1), convert(1) and plots/README.md."
here=$(dirname "$0")
. "$here/plot_lib.sh"
out=advisor.png
plot_parse "" "" "$@"
plot_setup
plot_input "${plot_args[@]}"
plot_read "$rvsinfo" --json > "$plot_tmp/info.json"
if grep -q '"auto":null' "$plot_tmp/info.json"; then
  # no recorded decision: spmv's plan, its items' candidates as the table of rvsinfo --candidates
  spmv=$(rvs_find spmv) || plot_die 69 "spmv not found (build rvskit, or set RVS_BIN)"
  plot_read "$spmv" --plan > "$plot_tmp/plan.txt"
  name=stdin
  [ "$plot_stdin" = 1 ] || name=$(basename "$plot_in")
  name="$name, as spmv --plan decides it"
  awk -v name="$name" '
    /^# plan:/ { vtype = $5; sub(/,$/, "", vtype) }
    /^# candidates:/ { cand = 1; next }
    /^#/ || NF == 0 { next }
    !cand && NF >= 14 { parts[$1] = $2; dev[$1] = $3; how[$1] = $11; next }
    cand && NF >= 5 {
      c = $2; chosen = c ~ /^\*/ ? "yes" : "no"; sub(/^[*+]/, "", c)
      line[++n] = parts[$1] " " dev[$1] " " vtype " " how[$1] " " c " " $3 " " $4 " " ($5 == "-" ? "pruned" : $5) " " chosen
    }
    END {
      printf "# candidates decisions %d current yes matrix %s\n# gpu -\n", length(parts), name
      print "# part device vtype how candidate pred_ms trial_ms status chosen"
      for (i = 1; i <= n; i++) print line[i]
    }' "$plot_tmp/plan.txt" > "$plot_tmp/candidates.txt"
else
  plot_read "$rvsinfo" --candidates > "$plot_tmp/candidates.txt"
fi
plot_draw "$here/advisor.gp" "$out" "in='$plot_tmp/candidates.txt'"
