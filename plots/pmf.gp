# pmf.gp - the PMF of row lengths (pmf --table) as a picture. By default the title names the
# matrix (from the table's "# matrix NAME" line) and the axes are log-log when the longest row
# is at least ten times the mean row length - a heavy, power-law tail, drawn as Fig. 1 of
# scale-free-hcc does; loglog=0 or 1 and title='...' choose otherwise.
#   gnuplot -e "in='pmf.txt'; out='pmf.png'" plots/pmf.gp
if (!exists("in")) in = '-'
if (!exists("out")) out = 'pmf.png'
if (!exists("title")) {
  title = 'PMF of row lengths'
  if (in ne '-') {
    name = system(sprintf("sed -n '1s/^# matrix \\([^ ]*\\).*/\\1/p' '%s'", in))
    if (strlen(name) > 0) {
      title = 'PMF of row lengths: '.name
    }
  }
}
if (!exists("loglog")) {
  loglog = 0
  if (in ne '-') {
    stats in using 1 nooutput
    kmax = STATS_max
    stats in using ($1 * $2):2 nooutput
    mean = STATS_sum_y > 0 ? STATS_sum_x / STATS_sum_y : 0
    loglog = kmax >= 10 * (mean > 1 ? mean : 1)
  }
}
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
