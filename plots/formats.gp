# formats.gp - SpMV GFLOP/s by format for every matrix, as clustered bars (pellr.txt Fig. 12).
# Reads the table of bench_cpu_spmv (matrix format threads gflops graphblas_gflops ratio, '#'
# comments); the reference library's GFLOP/s is drawn as the last bar of each cluster.
#   gnuplot -e "in='table';out='x.png'" plots/formats.gp
if (!exists("in")) in = 'cpu_spmv.txt'
if (!exists("out")) out = 'formats.png'
if (!exists("ref")) ref = 'GraphBLAS'

# Pivot: one row per matrix, one column per format that has a number (in order of first
# appearance); '-' where a format refused a matrix.
pivot = sprintf("< awk '!/^#/ && NF >= 5 { if (!($1 in seen)) { seen[$1] = 1; m[++nm] = $1 } \
  if (!($2 in fs)) { fs[$2] = 1; f[++nf] = $2 } if ($4 != \"-\") { g[$1, $2] = $4; has[$2] = 1 } r[$1] = $5 } \
  END { printf \"matrix\"; for (j = 1; j <= nf; j++) if (f[j] in has) printf \" %%s\", f[j]; print \" %s\"; \
  for (i = 1; i <= nm; i++) { printf \"%%s\", m[i]; for (j = 1; j <= nf; j++) if (f[j] in has) \
  printf \" %%s\", ((m[i], f[j]) in g) ? g[m[i], f[j]] : \"-\"; print \" \" r[m[i]] } }' '%s'", ref, in)
ncols = int(system(sprintf("awk '!/^#/ && NF >= 5 && $4 != \"-\" && !($2 in s) { s[$2] = 1; n++ } END { print n + 1 }' '%s'", in)))
nmat = int(system(sprintf("awk '!/^#/ && NF >= 5 && !($1 in s) { s[$1] = 1; n++ } END { print n }' '%s'", in)))

width = 300 + 12 * nmat * (ncols + 1)
set terminal pngcairo noenhanced size (width < 1800 ? width : 1800), 600 font ",10"
set output out
colors = "#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf #393b79 #000000"
do for [i = 1:words(colors)] { set linetype i linecolor rgb word(colors, i) }
set linetype cycle words(colors)
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set datafile missing '-'
set key outside right top vertical
set ylabel "GFLOP/s"
set xtics rotate by -30 nomirror
set grid ytics
set yrange [0:*]
set title "SpMV by storage format (bars left to right: formats, then " . ref . ")"
plot for [i = 2:ncols + 1] pivot using i:xtic(1) title columnheader(i)
