# gen.cmake - rvsgen, the benchmark input generators
rvs_sh_test(gen gen.sh TIMEOUT 120)
