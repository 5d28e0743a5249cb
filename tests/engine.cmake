# engine.cmake - the execution layer: GPU row maps, plans, the format advisor, partitioned runs
# GPU: exit 77 (skipped) without a usable GPU
rvs_c_test(gpu_ymap test_gpu_ymap LABELS gpu TIMEOUT 600)
