# advisor.gp - the format advisor's decision (rvsinfo --candidates) as bars: per part, each
# candidate's time of one SpMV as the fitted model predicted it (hatched) and as its trial
# measured it (solid), in the part's colour, on a log axis; the chosen one marked. size='W,H'
# sets the picture's size in pixels [600 high, wide enough for the candidates].
#   gnuplot -e "in='candidates.txt'; out='advisor.png'" plots/advisor.gp  (plots/advisor.sh)
if (!exists("in")) in = 'candidates.txt'
if (!exists("what")) what = in   # the input's name in messages
if (!exists("out")) out = 'advisor.png'
load system(sprintf("dirname '%s'", ARG0))."/parts.gp"

# '# candidates decisions N current yes|no matrix NAME', then '# gpu NAME'
head = system(sprintf("sed -n '1p' '%s'", in))
if (word(head, 2) ne 'candidates') { print what.": not a table of rvsinfo --candidates"; exit status 65 }
name = system(sprintf("sed -n '1s/.* matrix //p' '%s'", in))
gpu = system(sprintf("sed -n '2s/^# gpu //p' '%s'", in))
stale = word(head, 6) eq 'no' ? ' (stale: made for another matrix or partition)' : ''

# x positions: one slot per candidate, a gap between parts (two passes: the first finds each
# part's slots, the second centres its label over them). Columns: x part device how candidate
# pred_ms trial_ms top chosen label label_x (times 0 where none; label '-' but on a part's first)
layout = sprintf("< awk 'FNR == 1 { pass++; x = 0; g = 0; last = \"\" } \
  !/^#/ && NF >= 9 { key = $1 \" \" $2; label = \"-\"; \
  if (key != last) { x += 1.2; g++; last = key; first[g] = x + 1; \
    label = \"\\\"\" ($1 == \"all\" ? \"all\" : \"part \" $1) \", \" $2 \", \" $4 \"\\\"\" } \
  x++; if (pass == 1) { end[g] = x; next } \
  p = $6 == \"-\" ? 0 : $6; t = $7 == \"-\" ? 0 : $7; \
  print x, ($1 == \"all\" ? 0 : $1), $2, $4, $5, p, t, (p > t ? p : t), $9, label, (first[g] + end[g]) / 2 }' '%s' '%s'", in, in)

# how many times there are, the shortest and the longest
times = system(sprintf("awk '!/^#/ && NF >= 9 { for (c = 6; c <= 7; c++) if ($c != \"-\" && $c > 0) { \
  n++; if (n == 1 || $c < lo) lo = $c; if ($c > hi) hi = $c } } END { print n + 0, lo + 0, hi + 0 }' '%s'", in))
if (word(times, 1) == 0) { print what.": no candidate has a time to draw"; exit status 65 }
lo = word(times, 2) + 0
hi = word(times, 3) + 0
ylo = 10 ** floor(log10(lo) - 0.15)   # below the shortest bar, which then shows
yhi = 10 ** ceil(log10(hi) + 0.7)
stats layout using 1 nooutput
xmax = STATS_max

width = 560 + 46 * xmax
if (!exists("size") || size eq '') size = sprintf("%d,600", width < 2400 ? width : 2400)
eval sprintf("set terminal pngcairo enhanced size %s font ',10'", size)
set output out
set title sprintf("Format advisor: %s%s%s", name, gpu ne '-' && gpu[1:4] ne 'none' ? ', trials on '.gpu : '', stale) noenhanced
set ylabel 'time of one SpMV (ms)'
set logscale y
set format y '10^{%L}'
set yrange [ylo:yhi]
set xrange [1.4:xmax + 1.2]
set xtics rotate by 35 right nomirror noenhanced font ',8'
set grid ytics
set key below maxrows 1
set rmargin 3
colour(col) = part_rgb(column(col))
plot layout using ($1 - 0.2):6:($1 - 0.4):($1):(ylo):6:(colour(2)) with boxxyerror \
        lc rgb variable fill pattern 4 border rgb 'black' notitle, \
     '' using ($1 + 0.2):7:($1):($1 + 0.4):(ylo):7:(colour(2)) with boxxyerror \
        lc rgb variable fill solid 0.85 border rgb 'black' notitle, \
     '' using 1:(NaN):xtic(5) with points notitle, \
     '' using ($6 > 0 && $7 > 0 ? $1 : $6 > 0 ? $1 - 0.2 : $1 + 0.2):(strcol(9) eq 'yes' ? $8 * 1.8 : NaN) \
        with points pt 11 ps 1.6 lc rgb 'black' title 'chosen', \
     '' using 11:(strcol(10) eq '-' ? NaN : yhi / 1.8):10 with labels center noenhanced notitle, \
     keyentry with boxes fill pattern 4 lc rgb 'gray30' title "predicted (pred\\_ms)", \
     keyentry with boxes fill solid 0.85 lc rgb 'gray30' title 'measured (trial\_ms)'
