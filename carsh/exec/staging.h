/*
 * Transfers of a buffer between host memory (a virtual buffer's shared memory) and a device
 * that is not the CPU, in pieces through two pinned staging areas of the device's context
 * (CL_MEM_ALLOC_HOST_PTR, mapped once). A driver copies from pageable memory through a
 * staging area of its own, one piece at a time; here the copy into (or out of) one piece runs
 * over the cores while the device moves the other, so the transfer runs at the bus's pinned
 * speed instead of a pageable one's. CARSH_STAGED=0 turns it off (direct transfers);
 * CARSH_STAGED=1 uses it on a CPU device too (a test hook: PoCL's CPU device gains nothing).
 */
#ifndef CARSH_EXEC_STAGING_H
#define CARSH_EXEC_STAGING_H

#include <stddef.h>

#include "runtime/session.h"

struct staging;

struct staging *staging_new(void);
/* Releases the staging areas (the devices' queues must have no transfer of them pending:
 * every transfer here waits for its own end). */
void staging_free(struct staging *s);

/* Host to device: src's bytes into dst on dev, waited for. 1 done; 0 not staged (a CPU
 * device, a small buffer, staging off or unavailable: the caller transfers directly); -1 with
 * e. */
int staging_write(struct staging *s, struct rt_dev *dev, cl_mem dst, const void *src, size_t bytes,
                  struct cs_err *e);
/* Device to host: src's bytes on dev (after wait, when not NULL) into dst, waited for. The
 * same returns. */
int staging_read(struct staging *s, struct rt_dev *dev, cl_mem src, cl_event wait, void *dst,
                 size_t bytes, struct cs_err *e);

#endif
