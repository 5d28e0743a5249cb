# partition.sh - the worked example through the programs, and partition's usage errors
. "$RVS_SRC/tests/lib/common.sh"
M=$RVS_DATA/pmf20.mtx

# columns N W NNZ E padded of each part, one line per part
parts() { pmf "$M" | partition --alg "$1" --cp 1,2,6 --report | awk '!/^#/ {print $4, $5, $6, $7, $8}' | tr '\n' ';'; }
expect_eq "alg rows" "$(parts rows)" "2 5 7 10 3;4 7 16 28 12;14 13 94 182 88;"
expect_eq "alg nnz"  "$(parts nnz)"  "3 5 10 15 5;5 7 21 35 14;12 13 86 156 70;"
expect_eq "alg pmf"  "$(parts pmf)"  "7 3 14 21 7;5 6 27 30 3;8 13 76 104 28;"
dens() { pmf "$M" | partition --alg "$1" --cp 1,2,6 --report | sed -n 's/.*mean_density \([0-9.]*\).*/\1/p'; }
expect_eq "mean density rows" "$(dens rows)" "0.5318"
expect_eq "mean density nnz" "$(dens nnz)" "0.5680"
expect_eq "mean density pmf" "$(dens pmf)" "0.7548"
# device mapping: the largest CP is a GPU part when it is at least twice the smallest
expect_eq "devices" "$(partition --alg nnz --cp 1,2,6 --report "$M" | awk '!/^#/ {printf "%s ", $2}')" "cpu cpu gpu "
expect_eq "tagged devices" "$(partition --alg nnz --cp 1:gpu,2:cpu --report "$M" | awk '!/^#/ {printf "%s ", $2}')" "gpu cpu "
# the report of diag: part 1 holds R1 of every row
expect_eq "diag rows" "$(partition --alg diag --cp 75,1,1 --block-size 4 --report "$M" | awk '!/^#/ {s += $4} END {print s}')" "40"
# a .mtx works where a stream is expected, and both give the same report
expect_eq "mtx input" "$(partition --alg pmf --cp 1,2,6 --report "$M" | md5sum)" "$(pmf "$M" | partition --alg pmf --cp 1,2,6 --report | md5sum)"
# pmf --table: k b_k p_k
expect_eq "pmf table" "$(pmf --table "$M" | awk '!/^#/ {printf "%s:%s ", $1, $2}')" "1:2 2:3 3:2 5:3 6:2 7:3 9:1 10:2 13:2 "

expect_fail 64 "partition: --alg: 'bogus' is not one of" -- partition --alg bogus "$M"
expect_fail 64 "partition: --cp: computing power 2 of '1,x' is not a positive number" -- partition --cp 1,x "$M"
expect_fail 64 "partition: --cp: computing power 1 of '0' is not a positive number" -- partition --cp 0 "$M"
expect_fail 64 "partition: --alg diag needs at least two computing powers" -- partition --alg diag --cp 1 "$M"
expect_fail 64 "partition: --block-size: '0' is not an integer" -- partition --alg diag --block-size 0 "$M"
expect_fail 64 "partition: one input file at most" -- partition "$M" "$M"
expect_fail 66 "partition: $T/none.mtx: No such file or directory" -- partition "$T/none.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n' > "$T/bad.mtx"
expect_fail 65 "partition: $T/bad.mtx: line 3: row index 3 out of range 1..2" -- partition "$T/bad.mtx"
expect_fail_in 65 "partition: stdin: line 3: row index 3 out of range 1..2" "$T/bad.mtx" -- partition
finish
