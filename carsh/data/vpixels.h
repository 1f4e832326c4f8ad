/*
 * A virtual buffer's 8-bit pixels kept beside it (docs/executors.md "What moves when"): a
 * shared-memory object of one byte an element, named after the buffer's own object, that
 * holds the samples of a PGM fill (the buffer's data is then these bytes, widened: its own
 * pages are not written until a host reader needs them) or the pixels a worker narrowed on
 * its device for a PGM dump. The object goes with its buffer (vbuf_delete, the table's end)
 * and, as any of the session's objects, with a master that died (vbuf_remove_stale).
 */
#ifndef CARSH_DATA_VPIXELS_H
#define CARSH_DATA_VPIXELS_H

#include <stdbool.h>
#include <stddef.h>

#include "data/types.h"
#include "util/error.h"

/* The object's name for buffer object shm (free it). */
char *vpixels_name(const char *shm);

/* The n bytes of shm's pixels mapped (vbuf_unmap(p, n)); with create the object is made or
 * resized first. NULL with e. */
unsigned char *vpixels_map(const char *shm, size_t n, bool create, bool writable, struct cs_err *e);

/* The pixels widened into the buffer's own shared memory (one scalar of kind s each), over
 * the cores: the buffer's data, as a host reader wants it. */
int vpixels_widen(const char *shm, enum scalar s, struct cs_err *e);

/* Remove the object, when there is one. */
void vpixels_unlink(const char *shm);

#endif
