/*
 * The server's spare session workers (docs/server.md, `carsh -T` through the server): fresh
 * carsh processes that have opened their devices already and wait for one whole session
 * each. They are kept by job environment (exec/workerwire.h), which an OpenCL loader reads
 * once: a spare is lent only to a session of the environment it started with. When one is
 * lent, the next is started at once; at most SPARES_MAX wait, the oldest of another
 * environment going first.
 */
#ifndef CARSH_SERVER_SPARES_H
#define CARSH_SERVER_SPARES_H

#include <stdbool.h>

#include "exec/workers.h"

#define SPARES_MAX 2

struct spares;

/* Spares forked by pool's spawner (workers_spawn_session); pool outlives them. */
struct spares *spares_new(struct workers *pool);
/* Ends every waiting spare. */
void spares_free(struct spares *sp);

/* A session worker for the job environment key ("NAME=VALUE" lines): a waiting spare
 * (*warm set) or a new one, after which a spare for key is started. NULL with e. The worker
 * is the caller's: workers_give ends it. */
struct worker *spares_take(struct spares *sp, const char *key, bool *warm, struct cs_err *e);
unsigned spares_waiting(const struct spares *sp);

#endif
