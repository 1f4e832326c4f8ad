/*
 * memcpy over several threads, for copies of tens of megabytes between steps: one core
 * copies about 5 GB/s, so the 64 MiB of a 4096² float grid took 12 ms, where the memory
 * bus gives several times that to several cores (on one core the partition engine's swap
 * between Jacobi steps was a third of the run).
 */
#ifndef CARSH_UTIL_PARCOPY_H
#define CARSH_UTIL_PARCOPY_H

#include <stddef.h>
#include <sys/types.h>

/* Copies n bytes from src to dst (not overlapping) with up to max_threads threads (0: one
 * per online core), none for
 * less than PARCOPY_MIN bytes; where a thread cannot be started its part is copied by the
 * caller's, so the copy always completes. */
#define PARCOPY_MIN ((size_t)4 << 20)
void par_memcpy(void *dst, const void *src, size_t n, unsigned max_threads);

/* Reads n bytes of fd from offset into dst with the same threads (pread, each its part),
 * so that the copy out of the page cache and the taking of dst's new pages (a new buffer's
 * shared memory: about 40 ms for 64 MiB on one core, 13 over eight) go over the cores.
 * 0, or -1 with errno set (0 for a file that ended early: a short read). */
int par_pread(int fd, void *dst, size_t n, off_t offset, unsigned max_threads);

#endif
