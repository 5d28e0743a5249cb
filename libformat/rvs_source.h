/* rvs_source.h - what the matrix was read from: the ancillary chunk 'mmhd' of rvs.5 */
#ifndef RVS_SOURCE_H
#define RVS_SOURCE_H

#include "rvs_mm.h"
#include "rvs_stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Type of the chunk that records a Matrix Market source: its banner's object, format, field
 * and symmetry words, lower case, separated by single blanks ("matrix coordinate integer
 * symmetric"). Ancillary: readers that do not know it pass it on. */
#define RVS_CHUNK_MM_SOURCE "mmhd"
#define RVS_MM_SOURCE_MAX 64

/* Record in S, as its mmhd chunk (replacing one already there), the banner of the Matrix
 * Market file described by info (format, field, symmetry). */
rvs_status rvs_stream_set_mm_source(rvs_stream *S, const rvs_mm_info *info, rvs_error *err);

/* Fill info's format, field and symmetry from S's mmhd chunk (sizes are left zero): 1, or 0
 * when S has none or it is not four known words. */
int rvs_stream_mm_source(const rvs_stream *S, rvs_mm_info *info);

/* The same, from a chunk payload (for programs that walk chunks themselves). */
int rvs_mm_source_parse(const void *payload, uint64_t len, rvs_mm_info *info);

#ifdef __cplusplus
}
#endif
#endif
