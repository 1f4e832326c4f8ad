/*
 * Virtual buffers across MPI ranks (docs/scale-out.md "What moves when"): the data of a buffer
 * moves only when a job on another rank reads it, or when rank 0 dumps it, straight between
 * the two shared-memory objects. The runner's buffer service (runner/buffers.h) calls these
 * with its own host access to a buffer (struct bufmove_host), so that a move waits on the
 * same hazard claims as any host access and keeps the device copies right around it.
 */
#ifndef CARSH_MPI_BUFMOVES_H
#define CARSH_MPI_BUFMOVES_H

#include <stdbool.h>
#include <stddef.h>

#include "data/vbuf.h"
#include "exec/hazard.h"
#include "exec/jobplan.h"
#include "mpi/replicas.h"

/* The host access to a buffer's copy on this rank, as the buffer service takes it. */
struct bufmove_host {
	struct vbuf_table *vbufs;
	struct replicas *replicas; /* where each buffer's data is current */
	struct hazards *hz;
	/* A hazard claim on v for host access, registered and waited for: NULL when
	 * interrupted. */
	struct claim *(*claim)(void *arg, const struct vbuf *v, bool writes, struct cs_err *e);
	/* The host copy of v made current before it is sent (its data may be on a device). */
	int (*current)(void *arg, const struct vbuf *v, struct cs_err *e);
	/* The host copy of v was received: the device copies are stale. */
	void (*wrote)(void *arg, const struct vbuf *v);
	void *arg;
};

/* Bring the current data of the named buffers to rank `to` (mpi/replicas.h): the holder
 * sends, `to` receives into its own copy, every rank notes it. A local failure (a mapping
 * refused, an interrupt) ends the job: the peer waits for the other half. */
void bufmove_bring(const struct bufmove_host *h, char *const *names, size_t n, int to);
/* For every job on every rank, before the job runs on rank: the buffers it reads are
 * brought there, and what it writes will be current there only. */
void bufmove_place_plan(const struct bufmove_host *h, const struct job_plan *jp, int rank);
/* For a job every rank runs a part of (partition across ranks): what it reads is brought to
 * every rank, what it writes will be current on rank 0 only, which gathers it. */
void bufmove_place_everywhere(const struct bufmove_host *h, const struct job_plan *jp);

#endif
