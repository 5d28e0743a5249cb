# density.gp - mean density of the partitions of Algorithms 1, 2 and 3 per matrix, as Fig. 10
# of pmf-partitioning. Input columns: matrix E1 E2 E3 (densities in 0..1), from density.sh.
#   gnuplot -e "in='density.txt'; out='density.png'" plots/density.gp
if (!exists("in")) in = '-'
if (!exists("out")) out = 'density.png'
set terminal pngcairo size 1000,560 noenhanced
set output out
set title 'Mean density of the partitions (Eq. 7)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:1]
set ylabel 'density'
set xtics rotate by -35
set grid ytics
set key top left
plot in using 2:xtic(1) title 'E1 (rows)', '' using 3 title 'E2 (nnz)', '' using 4 title 'E3 (pmf)'
