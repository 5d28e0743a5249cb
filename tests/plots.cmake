# plots.cmake - the tables the pictures are drawn from
rvs_sh_test(plot_tables plot_tables.sh)
