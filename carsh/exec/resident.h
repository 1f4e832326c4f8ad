/*
 * Device-resident virtual buffers for the thread executor (DESIGN §5): each buffer has its
 * shared-memory copy and a copy on each device that used it, and knows which are current.
 * Data moves only when something needs it where it is not current: a job on a device where
 * it is stale, the host (dump, fill), a job on another device.
 */
#ifndef CARSH_EXEC_RESIDENT_H
#define CARSH_EXEC_RESIDENT_H

#include <stdbool.h>

#include "data/types.h"
#include "runtime/session.h"

struct resident;

struct resident *resident_new(void);
/* Copies on CPU devices made from now on live in memory with an inaccessible page on each
 * side (a warm worker's: a kernel that writes past a buffer faults, killing only its
 * worker, instead of changing another buffer unnoticed). */
void resident_guard_cpu(struct resident *r);
/* Waits for pending work on the buffers, then releases them (the shm objects stay). */
void resident_free(struct resident *r);

/* The buffer of shm on dev for a job, borrowed: it stays until a job's store replaces it or
 * the buffer is deleted, both of which drain the device's feeder first. With read, it holds
 * the current data (moved there if needed; the time goes to *h2d_ms). */
int resident_acquire(struct resident *r, const char *shm, size_t bytes, struct rt_dev *dev,
                     bool read, cl_mem *out, double *h2d_ms, struct cs_err *e);

/* resident_acquire with read, where shared memory holds value (vsize bytes, a power of two up
 * to 128 that divides bytes) repeated: a device copy that is not current is filled on dev,
 * queued in order before the job's kernels, instead of copied (shared memory is not read). */
int resident_acquire_filled(struct resident *r, const char *shm, size_t bytes, struct rt_dev *dev,
                            const void *value, size_t vsize, cl_mem *out, struct cs_err *e);

/* resident_acquire with read, where the buffer's data is its pixels (data/vpixels.h) widened
 * to kind s (devpixels_widens(s)): a device copy that is not current is made from them on dev
 * (their transfer's time goes to *h2d_ms); shared memory is not read, and is stale. */
int resident_acquire_widened(struct resident *r, const char *shm, size_t bytes, struct rt_dev *dev,
                             enum scalar s, cl_mem *out, double *h2d_ms, struct cs_err *e);

/* The current device copy of shm, a float buffer, narrowed on its device into the buffer's
 * pixels (data/vpixels.h: made or resized), as pixels_to_bytes() would; shared memory is not
 * touched. */
int resident_narrow(struct resident *r, const char *shm, struct cs_err *e);

/* A job on dev wrote shm's data into mem (borrowed; the copy takes a reference when mem is
 * not already its buffer): mem becomes the device copy, every other copy stale. The data is
 * complete once done has completed (it is retained; NULL when it already is, or when the
 * device's in-order queue orders every reader after it). */
void resident_store(struct resident *r, const char *shm, struct rt_dev *dev, cl_mem mem,
                    cl_event done);

/* Fill a buffer that has a device copy with one element (pattern, psize bytes: a power of two
 * up to 128) on that device, without waiting: 1 when done so, 0 when the buffer has no
 * device copy (fill the shared memory instead), -1 on an error. */
int resident_fill(struct resident *r, const char *shm, const void *pattern, size_t psize,
                  struct cs_err *e);

/* Make the shared-memory copy current (before the host reads it). */
int resident_to_host(struct resident *r, const char *shm, struct cs_err *e);
/* As resident_to_host, copied from the device even where shared memory was current when
 * this process last saw it: a warm worker's write-back, asked for by the shell whose table
 * of homes says shared memory is stale (a fill there that the worker never saw). */
int resident_to_host_again(struct resident *r, const char *shm, struct cs_err *e);
/* The host changed the shared-memory copy: every device copy is stale. */
void resident_host_wrote(struct resident *r, const char *shm);
/* The host put a PGM fill's samples in shm's pixels (data/vpixels.h), as widened to kind s
 * (devpixels_widens(s)) its new data, leaving shared memory as it was: every copy is stale; a
 * device copy is widened from them on its device, shared memory on the host when read. */
void resident_host_pixels(struct resident *r, const char *shm, size_t bytes, enum scalar s);
/* For a PGM dump: 1 when shm's pixels hold its data narrowed (a PGM fill's samples, or, with
 * narrow (a float buffer) and its only current copy on a device, narrowed there now); 0 not
 * so (make shared memory current and convert it). */
int resident_dump_pixels(struct resident *r, const char *shm, bool narrow, struct cs_err *e);
/* The buffer was deleted. */
void resident_forget(struct resident *r, const char *shm);
/* Every buffer was (a session's end): the copies go, what is kept for transfers stays. */
void resident_forget_all(struct resident *r);

#endif
