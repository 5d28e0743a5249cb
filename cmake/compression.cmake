# compression.cmake - the decoders of compressed text input besides zlib's gzip (bzip2, xz,
# zstd; libformat/mm_codec.c), each used when its Debian -dev package is found. Sets
#   RVS_CODEC_LIBRARIES   the libraries found (full paths: the exported targets carry them)
#   RVS_CODEC_PC          the same as -l flags for rvskit.pc's Libs.private
#   RVS_CODEC_DEFINES     the definitions below, for tests that compress with the libraries
#   RVS_CODEC_FOUND       the formats this build reads: gzip and those found (the tests' list)
# and the RVS_HAVE_BZIP2 / RVS_HAVE_LZMA / RVS_HAVE_ZSTD definitions of mm_codec.c alone.
# -DRVS_WITH_COMPRESSION=OFF builds without them (those inputs then say "unsupported
# compression"; the tests check that message in such a build).
option(RVS_WITH_COMPRESSION "read .bz2/.xz/.zst input when libbz2/liblzma/libzstd are found" ON)
set(RVS_CODEC_LIBRARIES "")
set(RVS_CODEC_PC "")
set(RVS_CODEC_DEFINES "")
set(RVS_CODEC_FOUND gzip)
if(RVS_WITH_COMPRESSION)
  # name  header  library  definition
  foreach(codec "bzip2;bzlib.h;bz2;RVS_HAVE_BZIP2" "xz;lzma.h;lzma;RVS_HAVE_LZMA" "zstd;zstd.h;zstd;RVS_HAVE_ZSTD")
    list(GET codec 0 name)
    list(GET codec 1 header)
    list(GET codec 2 lib)
    list(GET codec 3 def)
    find_path(RVS_${def}_INCLUDE_DIR ${header})
    find_library(RVS_${def}_LIBRARY ${lib})
    if(RVS_${def}_INCLUDE_DIR AND RVS_${def}_LIBRARY)
      list(APPEND RVS_CODEC_LIBRARIES ${RVS_${def}_LIBRARY})
      string(APPEND RVS_CODEC_PC " -l${lib}")
      list(APPEND RVS_CODEC_DEFINES ${def}=1)
      set_property(SOURCE ${PROJECT_SOURCE_DIR}/libformat/mm_codec.c APPEND PROPERTY COMPILE_DEFINITIONS ${def}=1)
      list(APPEND RVS_CODEC_FOUND ${name})
    endif()
  endforeach()
endif()
string(REPLACE ";" " " RVS_CODEC_WORDS "${RVS_CODEC_FOUND}")
message(STATUS "rvskit: compressed input: ${RVS_CODEC_WORDS}")
