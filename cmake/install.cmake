# install.cmake - what `cmake --install` puts under the prefix (included by CMakeLists.txt):
#   lib/         librvskit.so.MAJOR (SONAME) and librvskit.a: libformat + kernels + engine,
#                the objects the in-tree static libraries are built from (compiled once)
#   include/rvskit/   the public headers, rvskit.h including them all, rvskit_config.h
#   share/man/man3/   the library's pages: rvskit(3), rvs_spmv_op(3), rvs_mm_read(3), ...
#   lib/pkgconfig/rvskit.pc, lib/cmake/rvskit/   pkg-config and CMake package (rvskit::rvskit,
#                rvskit::rvskit_static, carrying OpenMP, zlib, CXSparse, GraphBLAS, CUDA)
#   libexec/rvskit/   the programs under their own names (pmf, partition, ...): the card's
#                pipeline works as written with this folder first on PATH
#   bin/         rvs-pmf, rvs-partition, rvs-convert, rvs-spmv, rvs-spgemm, rvsgen, rvsinfo:
#                links into libexec/rvskit; a name not starting with "rvs" gets "rvs-", so no
#                command of another package (ImageMagick's convert) is shadowed
#   share/man/   man pages under the installed names; share/bash-completion, share/rvskit/plots,
#                share/doc/rvskit/examples; the Python module in RVS_PYTHON_DIR
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# -- the library ------------------------------------------------------------------------------
set(RVS_PUBLIC_PARTS rvsformat rvskernels rvsgpu rvsengine)
set_target_properties(${RVS_PUBLIC_PARTS} PROPERTIES POSITION_INDEPENDENT_CODE ON)
set(RVS_PUBLIC_OBJECTS "")
foreach(t ${RVS_PUBLIC_PARTS})
  list(APPEND RVS_PUBLIC_OBJECTS $<TARGET_OBJECTS:${t}>)
endforeach()

# Libraries without a CMake package on Debian get target names that the exported targets use
# and rvskitConfig.cmake defines again.
add_library(rvskit::CXSparse UNKNOWN IMPORTED)
set_target_properties(rvskit::CXSparse PROPERTIES IMPORTED_LOCATION ${CXSPARSE_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${CXSPARSE_INCLUDE_DIR})
set(RVSKIT_HAVE_GRAPHBLAS 0)
set(RVS_LIB_DEPS OpenMP::OpenMP_C ZLIB::ZLIB rvskit::CXSparse m ${RVS_CODEC_LIBRARIES})
set(RVS_PC_LIBS_PRIVATE "-lcxsparse -lm -fopenmp${RVS_CODEC_PC}")
if(GRAPHBLAS_LIBRARY AND GRAPHBLAS_INCLUDE_DIR)
  set(RVSKIT_HAVE_GRAPHBLAS 1)
  add_library(rvskit::GraphBLAS UNKNOWN IMPORTED)
  set_target_properties(rvskit::GraphBLAS PROPERTIES IMPORTED_LOCATION ${GRAPHBLAS_LIBRARY})
  list(APPEND RVS_LIB_DEPS rvskit::GraphBLAS)
  string(APPEND RVS_PC_LIBS_PRIVATE " -lgraphblas")
endif()
set(RVSKIT_HAVE_METIS 0)
if(RVS_HAVE_METIS)
  set(RVSKIT_HAVE_METIS 1)
  add_library(rvskit::METIS UNKNOWN IMPORTED)
  set_target_properties(rvskit::METIS PROPERTIES IMPORTED_LOCATION ${METIS_LIBRARY})
  list(APPEND RVS_LIB_DEPS rvskit::METIS)
  string(APPEND RVS_PC_LIBS_PRIVATE " -lmetis")
endif()
set(RVSKIT_HAVE_CUDA 0)
if(RVS_HAVE_CUDA)
  set(RVSKIT_HAVE_CUDA 1)
  # the kernels are C++: a C program linking the static library needs its runtime too
  list(APPEND RVS_LIB_DEPS CUDA::cudart CUDA::cusparse stdc++)
  string(APPEND RVS_PC_LIBS_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcusparse -lcudart -lstdc++")
endif()

add_library(rvskit SHARED ${RVS_PUBLIC_OBJECTS})
add_library(rvskit_static STATIC ${RVS_PUBLIC_OBJECTS})
set_target_properties(rvskit PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
                      INSTALL_RPATH_USE_LINK_PATH TRUE)
set_target_properties(rvskit_static PROPERTIES OUTPUT_NAME rvskit)
foreach(t rvskit rvskit_static)
  target_link_libraries(${t} PRIVATE ${RVS_LIB_DEPS})
  target_include_directories(${t} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

configure_file(${PROJECT_SOURCE_DIR}/cmake/rvskit_config.h.in
               ${PROJECT_BINARY_DIR}/include/rvskit/rvskit_config.h @ONLY)
# The public headers, those rvskit.h includes and what they include; the others (the kernels',
# the GPU layer's, the engine's plans and runner, rvs.h) are internal and stay in the tree.
set(RVS_PUBLIC_HEADERS "")
foreach(h libformat/rvs_status.h libformat/rvs_csr.h libformat/rvs_mm.h libformat/rvs_edges.h
          libformat/rvs_pmf.h libformat/rvs_partition.h libformat/rvs_format.h libformat/rvs_stream.h
          libformat/rvs_spgemm_pre.h kernels/cpu/rvs_spgemm.h kernels/gpu/rvs_gpu_tune.h
          engine/rvs_spmv_op.h engine/rvs_spgemm_run.h)
  list(APPEND RVS_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/${h})
endforeach()
install(FILES ${RVS_PUBLIC_HEADERS} ${PROJECT_SOURCE_DIR}/include/rvskit/rvskit.h
              ${PROJECT_BINARY_DIR}/include/rvskit/rvskit_config.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/rvskit)
install(TARGETS rvskit rvskit_static EXPORT rvskitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(RVS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/rvskit)
install(EXPORT rvskitTargets NAMESPACE rvskit:: DESTINATION ${RVS_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/rvskitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/rvskitConfig.cmake INSTALL_DESTINATION ${RVS_CMAKE_DIR})
# 0.x: minor versions may change the API
write_basic_package_version_file(${PROJECT_BINARY_DIR}/rvskitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/rvskitConfig.cmake ${PROJECT_BINARY_DIR}/rvskitConfigVersion.cmake
        DESTINATION ${RVS_CMAKE_DIR})
# rvskit.pc names the prefix it is installed under (cmake --install --prefix may change it)
set(RVS_PC_PREFIX "@RVS_PC_PREFIX@")
configure_file(${PROJECT_SOURCE_DIR}/cmake/rvskit.pc.in ${PROJECT_BINARY_DIR}/rvskit.pc.in @ONLY)
install(CODE "
  set(RVS_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(\"${PROJECT_BINARY_DIR}/rvskit.pc.in\" \"${PROJECT_BINARY_DIR}/rvskit.pc\" @ONLY)")
install(FILES ${PROJECT_BINARY_DIR}/rvskit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# -- the programs, under names that shadow nobody ----------------------------------------------
set(RVS_INSTALLED_PROGRAMS "")
foreach(src ${RVS_PROGRAMS})
  get_filename_component(prog ${src} NAME_WE)
  list(APPEND RVS_INSTALLED_PROGRAMS ${prog})
endforeach()
list(APPEND RVS_INSTALLED_PROGRAMS rvsgen)
set(RVS_LIBEXEC ${CMAKE_INSTALL_LIBEXECDIR}/rvskit)
set_target_properties(${RVS_INSTALLED_PROGRAMS} PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS ${RVS_INSTALLED_PROGRAMS} RUNTIME DESTINATION ${RVS_LIBEXEC})
file(RELATIVE_PATH RVS_BIN_TO_LIBEXEC /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${RVS_LIBEXEC})
file(RELATIVE_PATH RVS_COMPLETION_DIR_REL /prefix /prefix/${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
set(RVS_RENAMED "")
foreach(prog ${RVS_INSTALLED_PROGRAMS})
  if(prog MATCHES "^rvs")
    set(cmd ${prog})
  else()
    set(cmd rvs-${prog})
    list(APPEND RVS_RENAMED ${prog})
  endif()
  install(CODE "
    set(d \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
    file(MAKE_DIRECTORY \"\${d}/${CMAKE_INSTALL_BINDIR}\" \"\${d}/${RVS_COMPLETION_DIR_REL}\")
    message(STATUS \"Installing: \${d}/${CMAKE_INSTALL_BINDIR}/${cmd} -> ${RVS_BIN_TO_LIBEXEC}/${prog}\")
    file(CREATE_LINK \"${RVS_BIN_TO_LIBEXEC}/${prog}\" \"\${d}/${CMAKE_INSTALL_BINDIR}/${cmd}\" SYMBOLIC)
    file(CREATE_LINK rvskit \"\${d}/${RVS_COMPLETION_DIR_REL}/${cmd}\" SYMBOLIC)")
endforeach()

# -- man pages, rewritten for the installed names ----------------------------------------------
file(GLOB RVS_MAN_PAGES ${PROJECT_SOURCE_DIR}/man/man1/*.1 ${PROJECT_SOURCE_DIR}/man/man3/*.3
     ${PROJECT_SOURCE_DIR}/man/man5/*.5 ${PROJECT_SOURCE_DIR}/man/man7/*.7)
if(NOT RVS_HAVE_MPI) # spmv-mpi is not built without MPI: nor is its page installed
  list(FILTER RVS_MAN_PAGES EXCLUDE REGEX "/spmv-mpi\\.1$")
endif()
set(RVS_MAN_OUT "")
foreach(page ${RVS_MAN_PAGES})
  get_filename_component(name ${page} NAME_WE)
  get_filename_component(file ${page} NAME)
  string(REGEX REPLACE ".*\\." "" section ${file})
  if(name IN_LIST RVS_RENAMED)
    set(file rvs-${file})
  endif()
  set(out ${PROJECT_BINARY_DIR}/man/man${section}/${file})
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DIN=${page} -DOUT=${out} "-DRENAMED=${RVS_RENAMED}"
            -P ${PROJECT_SOURCE_DIR}/cmake/man_rename.cmake
    DEPENDS ${page} ${PROJECT_SOURCE_DIR}/cmake/man_rename.cmake VERBATIM)
  list(APPEND RVS_MAN_OUT ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(rvs_man ALL DEPENDS ${RVS_MAN_OUT})

# -- completion, plots, examples, the Python module -------------------------------------------
install(FILES ${PROJECT_SOURCE_DIR}/completion/rvskit.bash RENAME rvskit
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
file(GLOB RVS_PLOT_SCRIPTS ${PROJECT_SOURCE_DIR}/plots/*.sh)
file(GLOB RVS_PLOT_GP ${PROJECT_SOURCE_DIR}/plots/*.gp)
install(PROGRAMS ${RVS_PLOT_SCRIPTS} DESTINATION ${CMAKE_INSTALL_DATADIR}/rvskit/plots)
install(FILES ${RVS_PLOT_GP} DESTINATION ${CMAKE_INSTALL_DATADIR}/rvskit/plots)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# Debian's Python looks in lib/python3/dist-packages under /usr and in
# lib/python3.X/dist-packages under /usr/local; elsewhere PYTHONPATH must name the folder.
find_program(RVS_PYTHON3 NAMES python3)
set(RVS_PY_VERSION 3)
if(RVS_PYTHON3)
  execute_process(COMMAND ${RVS_PYTHON3} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE RVS_PY_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(RVS_PYTHON_DEFAULT lib/python3/dist-packages)
elseif(CMAKE_INSTALL_PREFIX STREQUAL "/usr/local")
  set(RVS_PYTHON_DEFAULT lib/python${RVS_PY_VERSION}/dist-packages)
else()
  set(RVS_PYTHON_DEFAULT lib/python${RVS_PY_VERSION}/site-packages)
endif()
set(RVS_PYTHON_DIR ${RVS_PYTHON_DEFAULT} CACHE STRING "where the Python module rvskit is installed, under the prefix")
file(GLOB RVS_PYTHON_FILES ${PROJECT_SOURCE_DIR}/python/rvskit/*.py)
install(FILES ${RVS_PYTHON_FILES} DESTINATION ${RVS_PYTHON_DIR}/rvskit)
