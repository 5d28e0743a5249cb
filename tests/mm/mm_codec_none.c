/* mm_codec_none.c - the codec layer as a build without libbz2, liblzma and libzstd has it, for
 * test_mm_codec_none (its definitions take the place of libformat's) */
#undef RVS_HAVE_BZIP2
#undef RVS_HAVE_LZMA
#undef RVS_HAVE_ZSTD
#include "../../libformat/mm_codec.c"
