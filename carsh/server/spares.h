/*
 * The server's spare session workers (docs/server.md, `carsh -T` through the server): fresh
 * carsh processes that have opened their devices already and wait for one whole session
 * each. They are kept by job environment (exec/workerwire.h), which an OpenCL loader reads
 * once: a spare is lent only to a session of the environment it started with. When one is
 * lent, the next is started at once; at most SPARES_MAX wait, the oldest going first. A
 * session worker whose session succeeded comes back as a spare of its environment
 * (spares_put) and is lent before the others, its devices open: back-to-back sessions of
 * one environment run in one worker and pay no device start-up after the first.
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
 * (*warm set; *again when it served a session before) or a new one, after which a spare
 * for key is started unless one waits. NULL with e. The worker is the caller's:
 * workers_give ends it, spares_put keeps it. */
struct worker *spares_take(struct spares *sp, const char *key, bool *warm, bool *again,
                           struct cs_err *e);
/* wk, a session worker that answered its session and waits for another (WORKER_DONE_AGAIN,
 * exec/workerwire.h), waits as a spare of its environment, the first lent. */
void spares_put(struct spares *sp, struct worker *wk);
unsigned spares_waiting(const struct spares *sp);

#endif
