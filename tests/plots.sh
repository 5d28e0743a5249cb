# plots.sh - the gnuplot scripts turn the programs' tables into pictures
. "$RVS_SRC/tests/lib/common.sh"
command -v gnuplot >/dev/null || { echo "gnuplot missing"; exit 77; }
M=$RVS_DATA/pmf20.mtx
pmf --table "$M" > "$T/pmf.txt"
for ll in 0 1; do
  gnuplot -e "in='$T/pmf.txt'; out='$T/pmf$ll.png'; loglog=$ll" "$RVS_SRC/plots/pmf.gp" 2> "$T/gp.err"
  [ -s "$T/pmf$ll.png" ] && head -c 8 "$T/pmf$ll.png" | od -c | grep -q 'P   N   G' && ok || bad "pmf.gp loglog=$ll: $(cat "$T/gp.err")"
done
"$RVS_SRC/plots/density.sh" --cp 1,2,6 "$M" "$RVS_DATA/hyb4.mtx" > "$T/density.txt"
expect_eq "density table" "$(awk '!/^#/ {print $1, $2, $3, $4}' "$T/density.txt" | head -1)" "pmf20 0.5318 0.5680 0.7548"
gnuplot -e "in='$T/density.txt'; out='$T/density.png'" "$RVS_SRC/plots/density.gp" 2> "$T/gp.err"
[ -s "$T/density.png" ] && ok || bad "density.gp: $(cat "$T/gp.err")"
finish
