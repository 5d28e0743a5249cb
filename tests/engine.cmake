# engine.cmake - the execution layer: GPU row maps, plans, the format advisor, partitioned runs
# GPU: exit 77 (skipped) without a usable GPU
rvs_c_test(gpu_ymap test_gpu_ymap LABELS gpu TIMEOUT 600)
rvs_c_test(engine test_engine TIMEOUT 600)
set_property(TEST engine APPEND PROPERTY ENVIRONMENT OMP_WAIT_POLICY=passive)
rvs_c_test(gpu_engine test_gpu_engine LABELS gpu TIMEOUT 900)
rvs_sh_test(engine_cli engine_cli.sh TIMEOUT 300)
rvs_c_test(plan_memory test_plan_memory TIMEOUT 600)
rvs_c_test(gpu_stream test_gpu_stream LABELS gpu TIMEOUT 600)
rvs_sh_test(regress_trial_cache_rescan regress_process.sh ARGS trial_cache_rescan TIMEOUT 600)
