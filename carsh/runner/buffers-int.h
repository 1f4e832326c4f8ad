/* Inside the typed buffer service: what buffers.c and bufranks.c share. */
#ifndef CARSH_RUNNER_BUFFERS_INT_H
#define CARSH_RUNNER_BUFFERS_INT_H

#include <stdbool.h>

#include "data/vbuf.h"
#include "exec/hazard.h"
#include "runner/context.h"

/* A hazard claim on v for host access, registered and waited for: NULL when interrupted. */
struct claim *buffers_claim_one(struct run_ctx *c, const struct vbuf *v, bool writes,
                                struct cs_err *e);

/* The thread executor's resident copies (after `partition` a rank's shell is on it): the
 * host copy of v made current before it is sent, and the device copies marked stale after
 * the host copy was received. */
int buffers_host_current(struct run_ctx *c, const struct vbuf *v, struct cs_err *e);
void buffers_host_wrote(struct run_ctx *c, const struct vbuf *v);

/* Bring the current data of the named buffers to rank `to` (mpi/replicas.h): the
 * holder sends, `to` receives into its own copy, every rank notes it. A local failure
 * (a mapping refused, an interrupt) ends the job: the peer waits for the other half. */
void buffers_bring(struct run_ctx *c, char *const *names, size_t n, int to);

#endif
