# man pages: every option of --help under OPTIONS and back, pages render without warnings
rvs_sh_test(man_options man_options.sh)
