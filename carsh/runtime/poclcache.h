/* Why PoCL's kernel cache cannot be made, for the message of a platform with no device. */
#ifndef CARSH_RUNTIME_POCLCACHE_H
#define CARSH_RUNTIME_POCLCACHE_H

#include <stddef.h>

/* PoCL starts no device when it cannot make its kernel cache (rt_pocl_kcache_dir()): a
 * part of the path that exists and is no directory. Writes "'/p' is not a directory" into
 * buf and returns 1 when so; 0 when the path looks fit (or none can be named). */
int rt_pocl_cache_unfit(char *buf, size_t n);

#endif
