/*
 * Large mappings unmapped by a thread of their own. Tearing down a 64 MiB mapping of shared
 * memory (its 16384 page-table entries, and the TLB of every core the process ran on) takes
 * milliseconds, which a fill or a dump would otherwise wait for before it returns; the pages
 * belong to the object, not to the mapping, so nothing a reader sees changes when the mapping
 * goes a moment later.
 */
#ifndef CARSH_UTIL_UNMAPLATER_H
#define CARSH_UTIL_UNMAPLATER_H

#include <stddef.h>

/* Unmap [p, p + bytes) soon: by the thread where the mapping is large and the thread has
 * room in its queue, at once otherwise (and in a forked child, which has no such thread). The
 * caller never touches the range again. The mapping is kept out of children forked before it
 * goes (MADV_DONTFORK): a job's process must not hold a deleted buffer's pages. */
void unmap_later(void *p, size_t bytes);

/* Wait until every mapping handed over is gone: before the room left in shared memory is
 * judged, since a deleted buffer's pages count there until their last mapping goes. */
void unmap_wait(void);

#endif
