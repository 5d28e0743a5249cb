# pmf.gp - the PMF of row lengths (pmf --table) as impulses; loglog=1 for log-log axes, as
# Fig. 1 of scale-free-hcc does for power-law matrices.
#   gnuplot -e "in='pmf.txt'; out='pmf.png'; loglog=1" plots/pmf.gp
if (!exists("in")) in = '-'
if (!exists("out")) out = 'pmf.png'
if (!exists("loglog")) loglog = 0
if (!exists("title")) title = 'PMF of row lengths'
set terminal pngcairo size 900,560 noenhanced
set output out
set title title
set xlabel 'k (non-zeros in a row)'
set ylabel 'p_k'
set grid
if (loglog) {
  set logscale xy
  plot in using ($1 > 0 ? $1 : 1/0):3 with points pt 7 ps 0.8 title 'p_k (rows with k > 0)'
} else {
  set yrange [0:*]
  plot in using 1:3 with impulses lw 3 title 'p_k'
}
