/*
 * Host access to a virtual buffer, as the typed buffer service takes it (buffers.c) and
 * gives it to the moves across MPI ranks (mpi/bufmoves.h, through struct bufmove_host): the
 * hazard claim, and the device copies kept right around it. The runner's own; below
 * buffers.c, so that it never calls buffers.c back.
 */
#ifndef CARSH_RUNNER_BUFHOST_H
#define CARSH_RUNNER_BUFHOST_H

#include <stdbool.h>

#include "data/vbuf.h"
#include "exec/hazard.h"
#include "exec/resident.h"
#include "runner/context.h"

/* The thread executor's resident copies, once it has started; NULL before. */
struct resident *buffers_resident(const struct run_ctx *c);

/* A hazard claim on v for host access, registered and waited for: NULL when interrupted. */
struct claim *buffers_claim_one(struct run_ctx *c, const struct vbuf *v, bool writes,
                                struct cs_err *e);

/* The current data may be on a device (the thread executor's, after `partition` a rank's
 * shell is on it, or a warm worker's): the host copy of v made current before it is read or
 * sent, and the device copies marked stale after the host copy was written or received. */
int buffers_host_current(struct run_ctx *c, const struct vbuf *v, struct cs_err *e);
void buffers_host_wrote(struct run_ctx *c, const struct vbuf *v);
/* The host made v's shared memory value (size bytes) repeated, as a creation (zeros) or a
 * value fill does: as buffers_host_wrote, and a warm worker makes its device copy by filling
 * it there (data/vhome.h) instead of copying it. */
void buffers_host_filled(struct run_ctx *c, const struct vbuf *v, const void *value, size_t size);
/* A value fill that goes between a window's jobs (c->window_group): the table of homes keeps
 * the value, and shared memory is written only when a host reader needs it (data/vhome.h's
 * value_only). false where the value is none a device can be filled with (then write it and
 * call buffers_host_filled). */
bool buffers_host_valued(struct run_ctx *c, const struct vbuf *v, const void *value, size_t size);

#endif
