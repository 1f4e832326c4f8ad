/*
 * A client of the user's carsh server (server/server.h, docs/server.md): the connection to
 * it, started on demand, and its state. Here, below the server, because the workers of
 * exec/workers.h borrow from it.
 */
#ifndef CARSH_EXEC_SERVERCLIENT_H
#define CARSH_EXEC_SERVERCLIENT_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/error.h"

/* A connection to the server (a new socket, close-on-exec), started first when there is
 * none and start is set; *pid is the server's. -1 with e; with start unset, e says "no carsh
 * server running" when none listens. */
int server_connect(bool start, pid_t *pid, struct cs_err *e);

/* Whether the process pid (the server) sees the files this process sees: a client in a
 * mount namespace of its own (unshare -m, a container) has files the server's workers
 * cannot reach, and runs its jobs itself. */
bool server_same_mounts(pid_t pid);

/* The server's state as "name value" lines (a new string), or, with stop set, the same
 * once more and the server stopped (its end waited for, 5 s at most). NULL with e. */
char *server_query(bool stop, struct cs_err *e);

#endif
