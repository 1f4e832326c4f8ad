/*
 * Page tables filled ahead of use. A fresh mapping of shared memory faults once a 4 KiB page on
 * its first touch; taking those faults inside a copy or the OpenCL runtime's transfer costs
 * several times the copy itself, where the kernel fills the same tables in one call far faster.
 */
#ifndef CARSH_UTIL_PREFAULT_H
#define CARSH_UTIL_PREFAULT_H

#include <stdbool.h>
#include <stddef.h>

/* Fill the page tables of [p, p + bytes) over the cores, for writing when writable. Only a
 * hint: where the kernel cannot (before Linux 5.14, or out of memory) the pages fault on
 * first touch as they would have, and any real error shows there. */
void prefault(void *p, size_t bytes, bool writable);

/* The same for every size, and checked: 0, or -1 with errno (EFAULT where a page could not be
 * given, as when a shared-memory file system is full: the access that would have raised
 * SIGBUS is an error here instead; EINVAL before Linux 5.14). */
int prefault_checked(void *p, size_t bytes, bool writable);

#endif
