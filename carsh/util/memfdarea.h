#ifndef CARSH_UTIL_MEMFDAREA_H
#define CARSH_UTIL_MEMFDAREA_H

#include <stddef.h>

#include "util/error.h"

/* BYTES of zeros in a memfd named NAME (close-on-exec), mapped shared: an area a forked
 * child shares, and that another process can map from *fd (a worker's result area, the
 * engine's report). WHAT names it in errors ("cannot create WHAT"). NULL with e on failure,
 * nothing left open. */
void *memfd_area(const char *name, size_t bytes, const char *what, int *fd, struct cs_err *e);

#endif
