# spy.gp - the sparsity pattern (rvsinfo --spy) as a density image: the non-zeros of each cell
# on a log colour scale, or, given the parts (ranges='...', rvsinfo --ranges), each cell in the
# colour of the part holding most of its entries, darker for more of them. Row 1 is at the top.
# size='W,H' sets the picture's size in pixels [760,700].
#   gnuplot -e "in='spy.txt'; out='spy.png'" plots/spy.gp           (plots/spy.sh does it all)
if (!exists("in")) in = 'spy.txt'
if (!exists("what")) what = in   # the input's name in messages
if (!exists("out")) out = 'spy.png'
if (!exists("size") || size eq '') size = '760,700'
load system(sprintf("dirname '%s'", ARG0))."/parts.gp"

# '# spy rows R cols C nnz N cells W H block BR BC parts K matrix NAME'
head = system(sprintf("sed -n '1p' '%s'", in))
if (word(head, 2) ne 'spy') { print what.": not a table of rvsinfo --spy"; exit status 65 }
rows = word(head, 4) + 0; cols = word(head, 6) + 0; nnz = word(head, 8) + 0
br = word(head, 13) + 0; bc = word(head, 14) + 0; nparts = word(head, 16) + 0
name = system(sprintf("sed -n '1s/.* matrix //p' '%s'", in))
if (rows == 0 || cols == 0) { print what.": nothing to draw: the matrix has no rows or no columns"; exit status 65 }
colour_parts = nparts > 0 && exists("ranges")

stats in using 3 nooutput
top = STATS_max > 1 ? STATS_max : 2
single = STATS_max <= 1   # one entry at most per cell: no scale to show

eval sprintf("set terminal pngcairo enhanced size %s font ',10'", size)
set output out
set title sprintf("%s: %d x %d, %.0f non-zeros", name, rows, cols, nnz) noenhanced
set xlabel 'column'
set ylabel 'row'
set xrange [0.5:cols + 0.5]
set yrange [rows + 0.5:0.5]
set xtics out nomirror
set ytics out nomirror
ratio = cols > 0 ? 1.0 * rows / cols : 1
set size ratio (ratio < 0.25 ? 0.25 : ratio > 4 ? 4 : ratio)
set logscale cb
set cbrange [1:top]
set format cb '10^{%L}'
cell = br * bc > 1 ? sprintf(" (cells of %d x %d entries)", br, bc) : ""
set cblabel 'non-zeros per cell'.cell offset 1.5, 0

if (single) { unset colorbox }
if (!colour_parts) {
  set palette defined (0 (single ? '#08306b' : '#c6dbef'), 0.5 '#2171b5', 1 '#08192e')
  plot in using 1:2:($3 > 0 ? $3 : NaN) with image notitle
  exit
}

# a part's colour, lighter for fewer entries: the shade follows the grey colour bar
set palette defined (0 '#d9d9d9', 1 '#000000')
shade(n) = single ? 1 : 0.3 + 0.7 * log(n) / log(top)
channel(rgb, at, n) = int(255 - (255 - ((rgb >> at) & 255)) * shade(n))
keyed = nparts < 10 ? nparts : 10
set key below horizontal title (nparts > 10 ? 'parts (colours repeat after ten)' : 'parts') noenhanced
plot in using 1:2:($3 > 0 ? channel(part_rgb($4), 16, $3) : 255):($3 > 0 ? channel(part_rgb($4), 8, $3) : 255) \
        :($3 > 0 ? channel(part_rgb($4), 0, $3) : 255) with rgbimage notitle, \
     in using 1:2:(NaN) with image notitle, \
     for [p = 1:keyed] keyentry with boxes fill solid 1.0 lc rgb part_rgb(p) title part_label(ranges, p)
