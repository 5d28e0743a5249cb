# parts.gp - one colour per part, the same in every picture (loaded by spy.gp, pmf.gp and
# advisor.gp): part_rgb(p) for part p = 1, 2, ... (colours repeat after ten), grey for 0, the
# whole matrix; part_label(file, p) names part p from a table of rvsinfo --ranges.
array part_palette[10] = [0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, \
                          0x7f7f7f, 0xbcbd22, 0x17becf]
part_rgb(p) = p >= 1 ? part_palette[int(p - 1) % 10 + 1] : 0x404040
# "2: ellr, gpu" (its format and device where known)
part_label(file, p) = system(sprintf("awk '!/^#/ && NF >= 7 && $1 == \"%s\" { l = $1 \":\"; \
  if ($3 != \"-\") l = l \" \" $3 (($2 != \"-\") ? \",\" : \"\"); if ($2 != \"-\") l = l \" \" $2; print l; exit }' '%s'", \
  p >= 1 ? sprintf("%d", p) : "all", file))
# the number of data lines of a table
table_rows(file) = int(system(sprintf("awk '!/^#/ && NF > 0 { n++ } END { print n + 0 }' '%s'", file)))
