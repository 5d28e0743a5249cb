# python/ - the Python module: reading and writing streams (test_python.py), and its computing
# half over librvskit (test_python_compute.py): every function against scipy on the shared and
# generated matrices, bad input, the ctypes layouts against C's (py_layout); the GPU half (CuPy
# where installed) carries the label gpu.
add_executable(py_layout ${CMAKE_CURRENT_LIST_DIR}/py_layout.c)
target_link_libraries(py_layout PRIVATE rvstest)
if(RVS_HAVE_CUDA)
  set_target_properties(py_layout PROPERTIES LINKER_LANGUAGE CUDA)
endif()
rvs_sh_test(python python.sh TIMEOUT 300)
rvs_sh_test(python_compute python.sh ARGS test_python_compute.py cpu TIMEOUT 600)
rvs_sh_test(gpu_python python.sh LABELS gpu ARGS test_python_compute.py gpu TIMEOUT 600)
