# the format check of .ci/format-check (not run over the tree until it is reformatted)
rvs_sh_test(format_check format_check.sh)
