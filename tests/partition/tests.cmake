# partition/ - Algorithms 1-4 of Yang et al.: the paper's worked examples and properties on
# generated matrices (the program: programs/partition.sh)
rvs_c_test(partition_golden test_partition_golden)
rvs_c_test(partition_props test_partition_props)
# the METIS partition (--alg metis) and the rule spmv-mpi picks a partition by; skipped without METIS
rvs_c_test(partition_metis test_partition_metis)
