/*
 * `carsh -T` through the user's server (docs/server.md): a non-interactive thread-executor
 * session runs whole in a session worker of the server, a fresh carsh that opened its
 * devices before the session was asked for; the carsh the user started is its client. It
 * passes its command line, directory, environment and umask, and its standard input,
 * output and error, forwards SIGINT, SIGTERM and SIGHUP, and ends with the session's exit
 * status.
 */
#ifndef CARSH_SERVER_SERVED_H
#define CARSH_SERVER_SERVED_H

#include <sys/types.h>

#include "server/sessionwire.h"
#include "util/error.h"
#include "util/wire.h"

/* A session worker's socket, as the server's start of it leaves it. */
#define SERVED_SOCK 3

/* The client: run the session argv (argc words, argv[0] included) in a session worker.
 * Returns 1 with *status when it ran there, or ran and failed there (e then holds the
 * client's one line, or is empty: the worker said it); 0 when no session worker can be had
 * (e says why, or is empty when this process just cannot use the server): run it here. */
int served_session_run(int argc, char **argv, int *status, struct cs_err *e);

/* On srv, a connection to the server (pid spid): borrow a session worker of this process's
 * job environment, its pid and socket; -1 with e (the server refused, or went away). */
int served_borrow(int srv, pid_t spid, pid_t *pid, int *sock, struct cs_err *e);
/* A lent worker whose socket ended: the server kills and reaps it; *ws its wait status.
 * -1 with e when the server is gone, -2 when it answers garbage. */
int served_ended(int srv, pid_t pid, int *ws, struct cs_err *e);

/* The worker (`carsh --session-worker`, on descriptor 3 its socket): open the devices, wait
 * for a session and take on its client's directory, environment, umask and descriptors.
 * Returns 0 with r (the caller's; its argv is the session's); ends the process when no
 * session comes (the server let it go); -1 with e for a garbled session, after which
 * served_worker_done reports it. Returns 1 when a program's server machine came instead
 * (API_OPEN, server/apiwire.h): *api is its frame, to serve on SERVED_SOCK (api/api-serve.c). */
int served_worker_begin(struct session_req *r, struct wire_msg *api, struct cs_err *e);
/* Answer the session's exit status (its output flushed) and end. */
void __attribute__((noreturn)) served_worker_done(int status);
/* Answer the session's exit status and, when the session succeeded and its runtime session
 * is kept (exec/threadexec.h), return to serve another (served_worker_begin again) with the
 * last client's descriptors and directory dropped: the answer says so
 * (WORKER_DONE_AGAIN), and the client gives the worker back to the server's spares instead
 * of ending it. Otherwise as served_worker_done. */
void served_worker_again(int status);

#endif
