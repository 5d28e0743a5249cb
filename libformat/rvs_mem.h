/* rvs_mem.h - the memory this process may hold, and claims checked against it before allocating */
#ifndef RVS_MEM_H
#define RVS_MEM_H

#include <stdint.h>
#include <stddef.h>
#include "rvs_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes this process may hold: the least of physical memory, its cgroup's memory limit, the
 * address-space and data rlimits (ulimit -v, -d, less what is already mapped), the environment
 * variable RVS_MEMORY_LIMIT (bytes, suffix K, M or G allowed: a limit for claims alone, which
 * sanitizer builds use where ulimit -v cannot be), and the limit set by rvs_mem_set_limit.
 * Memory over-commits: a process that allocates beyond it is killed later, by the kernel, with
 * nothing said; a claim checked against it fails now, with a message. */
uint64_t rvs_mem_limit(void);

/* Lower the limit for this process (0: none but the machine's). For tests and fuzzing. */
void rvs_mem_set_limit(uint64_t bytes);

/* RVS_OK when `bytes` (what a build will hold at its peak, every array counted) fit under
 * rvs_mem_limit(); else RVS_ERR_OVERFLOW with "WHAT need 48.0 GB, more than the 25.2 GB of
 * memory available". Doubles: a sum of sizes cannot overflow. */
rvs_status rvs_mem_claim(double bytes, const char *what, rvs_error *err);

/* Give back to the system the whole pages inside [p, p + n) of memory this process owns
 * (malloc'd or mapped): they stop counting in its resident set, and read as zeros (anonymous
 * memory) or as the file (a private file mapping) if touched again. For data already consumed. */
void rvs_mem_give_back(const void *p, size_t n);

/* The resident and peak memory (VmRSS and VmHWM of /proc/self/status, MiB) after step what,
 * handed to the sink a program set with rvs_mem_trace_to (the programs print it with
 * RVS_TRACE_MEM set), to see which step of a run sets its peak. Without a sink, nothing: the
 * library never prints. */
typedef void (*rvs_mem_trace_fn)(const char *what, double resident_mib, double peak_mib);
void rvs_mem_trace_to(rvs_mem_trace_fn sink);
void rvs_mem_trace(const char *what);

/* "48.0 GB": bytes in decimal units, into out[n]. */
void rvs_mem_format(char *out, size_t n, double bytes);

#ifdef __cplusplus
}
#endif
#endif
