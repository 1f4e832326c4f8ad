/* Whether the disk of PoCL's kernel cache is full: PoCL writes every program it builds
 * there, and on a full disk its compiler ends the process (exit 1) or the build fails with
 * no log, neither saying why. */
#ifndef CARSH_RUNTIME_CACHEDISK_H
#define CARSH_RUNTIME_CACHEDISK_H

#include <stdbool.h>
#include <stddef.h>

/* True when the file system of PoCL's kernel cache (runtime/pocltemp.h; the nearest folder
 * of it that exists) has less than a program's room left, with note set to "the disk of
 * PoCL's kernel cache DIR is full (N KiB free): ...what to do". False (note untouched)
 * otherwise, or where the cache cannot be named or its file system read. */
bool rt_kcache_disk_full(char *note, size_t n);

#endif
