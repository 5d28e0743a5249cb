# convert.cmake - the convert program: round trips, --report, device mapping, bad input
rvs_sh_test(convert convert.sh TIMEOUT 300)
rvs_sh_test(convert_warp convert_warp.sh)
