# plots/ - the pictures of plots/ (made, not empty, gnuplot's status) and the tables they are
# drawn from
rvs_sh_test(plots plots.sh)
rvs_sh_test(plot_tables plot_tables.sh)
