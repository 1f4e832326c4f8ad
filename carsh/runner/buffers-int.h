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

/* Bring the current data of the named buffers to rank `to` (runner/replicas.h): the
 * holder sends, `to` receives into its own copy, every rank notes it. A local failure
 * (a mapping refused, an interrupt) ends the job: the peer waits for the other half. */
void buffers_bring(struct run_ctx *c, char *const *names, size_t n, int to);

#endif
