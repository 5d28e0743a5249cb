# project/ - the project as a whole: the installed tree (commands, library, headers, pkg-config
# and CMake files, man pages, the Python module) and the format check of .ci/format-check
rvs_sh_test(install install.sh TIMEOUT 600)
rvs_sh_test(format_check format_check.sh)
