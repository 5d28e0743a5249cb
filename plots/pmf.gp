# pmf.gp - the PMF of row lengths (pmf --table) as a picture. By default the title names the
# matrix (from the table's "# matrix NAME" line) and the axes are log-log, labelled in powers of
# ten, when the longest row is at least ten times the mean row length - a heavy, power-law tail,
# drawn as Fig. 1 of scale-free-hcc does; loglog=0 or 1 and title='...' choose otherwise.
# ranges='FILE' (rvsinfo --ranges) draws each part's range of row lengths over the PMF as a
# band in the part's colour, labelled with its format and device.
# size='W,H' sets the picture's size in pixels [900,560].
#   gnuplot -e "in='pmf.txt'; out='pmf.png'" plots/pmf.gp           (plots/pmf.sh does it all)
if (!exists("in")) in = '-'
if (!exists("what")) what = in   # the input's name in messages
if (!exists("out")) out = 'pmf.png'
if (in ne '-' && system(sprintf("awk '!/^#/ && NF { n++ } END { print n + 0 }' '%s'", in)) == 0) {
  print what.": nothing to draw: the matrix has no rows"; exit status 65
}
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
if (!exists("size") || size eq '') size = '900,560'
eval sprintf("set terminal pngcairo size %s enhanced font ',10'", size)
set output out
set title title noenhanced
set xlabel 'k (non-zeros in a row)'
set ylabel 'p_k (share of the rows with k non-zeros)'
set grid

if (exists("ranges")) {
  load system(sprintf("dirname '%s'", ARG0))."/parts.gp"
  nbands = table_rows(ranges)
  # part, kmin and kmax of the bands, and the widest k (for the x range)
  band(i, col) = system(sprintf("awk '!/^#/ && NF >= 7 { if (++n == %d) { print $%d; exit } }' '%s'", i, col, ranges))
  do for [i = 1:nbands] {
    p = band(i, 1); lo = band(i, 4); hi = band(i, 5)
    if (lo ne '-') {
      part = p eq 'all' ? 0 : p + 0
      left = lo - 0.5; right = hi + 0.5
      if (loglog && left < 0.7) { left = 0.7 }
      set object i rectangle from left, graph 0 to right, graph 1 behind \
          fillcolor rgb part_rgb(part) fillstyle transparent solid 0.18 border lc rgb part_rgb(part)
      middle = loglog ? sqrt(left * right) : (left + right) / 2
      set label i part_label(ranges, part) at middle, graph 1.02 + 0.04 * ((i - 1) % 3) center \
          textcolor rgb part_rgb(part) front noenhanced
    }
  }
  set tmargin 7
  set title offset 0, 3.4
}

if (loglog) {
  set key bottom left
  set yrange [*:1]
  set logscale xy
  set format x '10^{%L}'
  set format y '10^{%L}'
  plot in using ($1 > 0 ? $1 : 1/0):3 with points pt 7 ps 0.8 lc rgb 'black' title 'p_k (rows with k > 0)'
} else {
  set key top right
  set yrange [0:*]
  set offsets 0.5, 0.5, 0, 0
  if (in ne '-') {
    stats in using 1 nooutput
    if (STATS_max - STATS_min <= 20) { set xtics 1 }
  }
  plot in using 1:3 with impulses lw 3 lc rgb 'black' title 'p_k'
}
