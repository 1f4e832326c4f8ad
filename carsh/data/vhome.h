/*
 * Where each virtual buffer's current data is (issue 36, docs/executors.md "What moves
 * when"): its shared-memory object, the device memory of one warm worker, both, or nowhere
 * (lost with a worker that ended while it held the only current copy). One table per
 * session, keyed by the buffer's shared-memory object (a swap exchanges names, the data
 * stays with its object), that the process executor, the runner's host readers and writers
 * and the ranks ask; it moves no data itself.
 *
 * A buffer the table does not know is in shared memory only, at generation 0. Every write
 * (a job's on a device, the host's) makes a new generation: a worker is told to use its
 * device copy only when it holds the current generation.
 */
#ifndef CARSH_DATA_VHOME_H
#define CARSH_DATA_VHOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "util/error.h"

enum vhome_where {
	VHOME_HOST,   /* shared memory only (or a worker's copy, stale) */
	VHOME_DEVICE, /* the holder's device only: shared memory is stale */
	VHOME_BOTH,   /* shared memory and the holder's device */
	VHOME_LOST,   /* the only current copy ended with its worker */
};

#define VHOME_DEVICE_MAX 160
#define VHOME_LOST_MAX   512
#define VHOME_VALUE_MAX  128 /* the largest element (a double16) */

/* Whether bytes of one value of size bytes repeated can be made by OpenCL's fill: its pattern
 * is a power of two of up to 128 bytes that divides the buffer. */
static inline bool vhome_fill_fits(size_t size, size_t bytes)
{
	return size && size <= VHOME_VALUE_MAX && (size & (size - 1)) == 0 && bytes % size == 0;
}

struct vhome_state {
	enum vhome_where where;
	uint64_t gen;
	uint64_t holder;               /* the worker with the device copy (DEVICE, BOTH) */
	char device[VHOME_DEVICE_MAX]; /* its device, "NAME (PLATFORM)" */
	/* HOST or BOTH: shared memory holds value (uniform bytes) repeated, as after a creation
	 * (zeros) or a value fill, so a device copy is made by filling it there instead of
	 * copying; 0: any data. */
	size_t uniform;
	unsigned char value[VHOME_VALUE_MAX];
	/* HOST or BOTH: shared memory's own pages are stale; the buffer's data is its pixels
	 * (data/vpixels.h: 8-bit samples of a PGM fill) widened to scalars of kind scalar. A
	 * worker widens them on its device, a host reader into shared memory first. */
	bool pixels;
	enum scalar scalar;
	/* HOST or BOTH: shared memory's own pages are stale; the buffer's data is value
	 * (uniform bytes) repeated, kept here only (a value fill between a window's jobs,
	 * vhome_host_valued). A worker fills its device copy with it, a host reader has it
	 * written into shared memory first (exec/homes.h). */
	bool value_only;
	/* LOST: why ("its newest data was on ..."); last, and copied out only then: a job
	 * reads a few states of the table, every one of which would carry it. */
	char lost[VHOME_LOST_MAX];
};

struct vhome;

struct vhome *vhome_new(void);
void vhome_free(struct vhome *h);

/* The state of shm (HOST at generation 0 when unknown). */
void vhome_get(struct vhome *h, const char *shm, struct vhome_state *out);
/* -1 with "virtual buffer 'NAME' was lost: ..." (docs/errors.md) when shm is LOST. */
int vhome_check(struct vhome *h, const char *shm, const char *name, struct cs_err *e);

/* A job on worker holder read shm there at its current generation: the holder's copy is
 * current (beside shared memory when that was). */
void vhome_device_read(struct vhome *h, const char *shm, uint64_t holder, const char *device);
/* A job on holder wrote shm: a new generation, there only. Returns it. */
uint64_t vhome_device_wrote(struct vhome *h, const char *shm, uint64_t holder, const char *device);
/* A window's job on holder about to be sent (exec/homes.h's homes_assume): shm's state
 * before it into before (as vhome_get), then as vhome_device_wrote or vhome_device_read
 * with no device name, under one look-up. */
void vhome_device_use(struct vhome *h, const char *shm, uint64_t holder, bool wrote,
                      struct vhome_state *before);
/* A job on holder failed while it may have written its copy of shm (how: its message): a
 * copy that shared memory also has is dropped, one that only the holder had is lost. */
void vhome_device_failed(struct vhome *h, const char *shm, uint64_t holder, const char *how);
/* shm is current on its holder and in shared memory (BOTH): shared memory is counted stale
 * from now on, the holder's copy the only current one (DEVICE), at the same generation. A
 * fill of shared memory that goes between a window's jobs does so first, so that where it is
 * undone the holder's copy is the data again (exec/jobwin.c). */
void vhome_host_stale(struct vhome *h, const char *shm);
/* The holder wrote its copy back: shared memory is current too. */
void vhome_host_current(struct vhome *h, const char *shm);
/* The host wrote shared memory (a fill, a rank's copy received): a new generation there
 * only; a lost buffer is whole again. */
void vhome_host_wrote(struct vhome *h, const char *shm);
/* The host made shared memory value (size bytes: a power of two up to VHOME_VALUE_MAX)
 * repeated: a creation, a value fill. As vhome_host_wrote, and the table knows the value. */
void vhome_host_filled(struct vhome *h, const char *shm, const void *value, size_t size);
/* As vhome_host_filled, without writing shared memory: the table keeps the value
 * (value_only) until a host reader needs it there. */
void vhome_host_valued(struct vhome *h, const char *shm, const void *value, size_t size);
/* The host wrote a value_only buffer's value into its shared memory: that is current again
 * (the same data: the generation stays). */
void vhome_host_value_written(struct vhome *h, const char *shm);
/* The host put a PGM fill's samples in shm's pixels (data/vpixels.h), leaving its shared
 * memory as it was: as vhome_host_wrote, and the data is the pixels widened to kind s. */
void vhome_host_pixels(struct vhome *h, const char *shm, enum scalar s);
/* The host widened shm's pixels into its shared memory: that is current again (the same
 * data: the generation stays). */
void vhome_host_widened(struct vhome *h, const char *shm);
/* Whether shared memory is known to hold value (size bytes) repeated already (a fill with it
 * would change nothing there); not where the table alone holds it (value_only). */
bool vhome_holds_value(struct vhome *h, const char *shm, const void *value, size_t size);
/* Worker holder ended (how: "killed by SIGSEGV (kernel 'k' on DEV)"): what only it held is
 * lost, what shared memory held too is there only. Returns how many buffers were lost. */
size_t vhome_holder_ended(struct vhome *h, uint64_t holder, const char *how);
/* shm's state is st again, as vhome_get gave it: a job counted on as run (a window of jobs
 * in flight, exec/jobwin.h) did not run, or did not end well. */
void vhome_restore(struct vhome *h, const char *shm, const struct vhome_state *st);
/* The buffer was deleted. */
void vhome_forget(struct vhome *h, const char *shm);
/* The objects whose shared memory is not current: their only current copy is on a device,
 * or their data is their pixels or a value the table keeps (free each and the array). */
size_t vhome_on_devices(struct vhome *h, char ***shms);

#endif
