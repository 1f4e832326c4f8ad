/* Inside the typed buffer service: the moves across ranks (mpi/bufmoves.h, given the host
 * access of bufhost.c) that buffers.c and untilcheck.c call. */
#ifndef CARSH_RUNNER_BUFFERS_INT_H
#define CARSH_RUNNER_BUFFERS_INT_H

#include <stddef.h>

#include "runner/context.h"

/* Bring the current data of the named buffers to rank `to` (mpi/replicas.h): the
 * holder sends, `to` receives into its own copy, every rank notes it. A local failure
 * (a mapping refused, an interrupt) ends the job: the peer waits for the other half. */
void buffers_bring(struct run_ctx *c, char *const *names, size_t n, int to);

#endif
