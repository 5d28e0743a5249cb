# hardening.cmake - the builds that look for defects: sanitizers, libFuzzer targets (tests/fuzz)
# and allocation-failure injection (tests/faults/fault_alloc.c). README.md "Tests" says how to use them.
option(RVS_SANITIZE "build with AddressSanitizer and UndefinedBehaviorSanitizer, no recovery" OFF)
option(RVS_FUZZ "build the libFuzzer targets of tests/fuzz (clang; implies RVS_SANITIZE)" OFF)
option(RVS_FAULT_INJECT "build the allocation-failure test (link-time malloc wrappers, GNU ld)" ON)

if(RVS_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "RVS_FUZZ needs clang with libFuzzer: configure with CC=clang (./setup installs it)")
  endif()
  set(RVS_SANITIZE ON)
  add_compile_definitions(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
  # coverage feedback for the fuzzer in every object; the targets link libFuzzer's main
  add_compile_options($<$<COMPILE_LANGUAGE:C>:-fsanitize=fuzzer-no-link> $<$<COMPILE_LANGUAGE:C>:-Wno-pass-failed>)
endif()

if(RVS_SANITIZE)
  # GPU code is checked by compute-sanitizer on a GPU machine, not here
  set(RVS_WITH_CUDA OFF)
  set(RVS_SAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:C>:${RVS_SAN_FLAGS}>")
  add_link_options(${RVS_SAN_FLAGS})
  message(STATUS "rvskit: sanitizers ${RVS_SAN_FLAGS}")
endif()
