# python.cmake - the Python module's computing half over librvskit (issue 36): every function
# against scipy on the shared and generated matrices, bad input, the ctypes layouts against C's
# (py_layout); the GPU half (CuPy where installed) carries the label gpu.
add_executable(py_layout ${PROJECT_SOURCE_DIR}/tests/py_layout.c)
target_link_libraries(py_layout PRIVATE rvstest)
if(RVS_HAVE_CUDA)
  set_target_properties(py_layout PROPERTIES LINKER_LANGUAGE CUDA)
endif()
rvs_sh_test(python_compute python.sh ARGS test_python_compute.py cpu TIMEOUT 600)
rvs_sh_test(gpu_python python.sh LABELS gpu ARGS test_python_compute.py gpu TIMEOUT 600)
