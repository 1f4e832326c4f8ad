/*
 * The user's carsh server (docs/server.md): one process per user and build that keeps warm
 * workers (exec/workers.h) for every carsh of that user, so that a carsh started from a
 * shell script finds a worker whose OpenCL context and programs are ready, instead of paying
 * the start-up (about 0.3 s on NVIDIA) again. It lends a worker to a client for one job: the
 * client gets the worker's socket and result area and talks to the worker as to its own;
 * the server only reaps workers and stops those of a client that went away.
 *
 * It listens on a Unix socket in the user's server directory (exec/serverdir.h), serves only
 * its own user (SO_PEERCRED), is started on demand, detached, by the first client that finds
 * none, and ends after CARSH_SERVER_IDLE seconds without a client, or when told to stop.
 */
#ifndef CARSH_SERVER_SERVER_H
#define CARSH_SERVER_SERVER_H

#include "util/error.h"

/* How long a server with no client lives, in seconds, when CARSH_SERVER_IDLE is not set. */
#define SERVER_IDLE_DEFAULT 300

/* Serve until stopped or idle (`carsh server run`, which the start on demand executes):
 * 0, or -1 with e when the socket cannot be set up or a server runs already. */
int server_main(struct cs_err *e);

#endif
