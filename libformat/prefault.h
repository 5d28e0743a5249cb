/* prefault.h - private: commit fresh memory ahead of the code that fills it, on a helper thread */
#ifndef RVS_PREFAULT_H
#define RVS_PREFAULT_H

#include <stddef.h>

/* First touch of fresh anonymous memory costs a page fault per 4 KiB page, and on virtual
 * machines that fault is dearer than the copy that follows it (measured 0.86 GB/s by faults
 * against 3.0 GB/s by MADV_POPULATE_WRITE on the 2-core build machine). A prefaulter commits
 * the pages of a buffer a window ahead of the position being filled, so a reader fills pages
 * that are already there. Populating never changes the content of a page, so a request racing
 * with the fill is harmless; the only rule is that the buffer must stay mapped while a request
 * for it stands (call rvs_prefault_stop_range before realloc or free). */
typedef struct rvs_prefault rvs_prefault;

/* Below this many bytes a buffer is filled without help. */
#define RVS_PREFAULT_MIN ((size_t)8 << 20)
/* How far ahead of the fill position pages are committed. */
#define RVS_PREFAULT_AHEAD ((size_t)32 << 20)

/* Start a helper thread; NULL when the kernel cannot populate (before Linux 5.14) or no
 * thread can be had: callers then simply go without. */
rvs_prefault *rvs_prefault_start(void);

/* About to fill [base + from, base + to): commit what the helper has not reached of it now, on
 * this thread (one call instead of a fault per page), and have the helper commit up to
 * base + ahead_to in the background. Calls for one buffer go forward; another base, or a
 * from behind the helper, starts a new request. */
void rvs_prefault_fill(rvs_prefault *pf, void *base, size_t from, size_t to, size_t ahead_to);

/* Withdraw the standing request and wait until the helper no longer touches it. */
void rvs_prefault_stop_range(rvs_prefault *pf);

/* Stop the helper thread and free pf (NULL is fine). */
void rvs_prefault_stop(rvs_prefault *pf);

/* Commit pages of [p, p + n) now, on this thread (no-op where the kernel cannot). */
void rvs_prefault_now(void *p, size_t n);

#endif
