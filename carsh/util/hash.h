/* FNV-1a, 64 bit: cache file names and checksums (the cache also compares the full key). */
#ifndef CARSH_UTIL_HASH_H
#define CARSH_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV64_INIT 0xcbf29ce484222325ULL

uint64_t fnv64(uint64_t h, const void *data, size_t n);

#endif
