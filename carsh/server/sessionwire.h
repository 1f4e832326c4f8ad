/*
 * A whole carsh session handed to a session worker of the user's server (docs/server.md,
 * `carsh -T` through the server): what the client's process was about to run and where.
 * Sent by the client to the worker as WORKER_SESSION (exec/workerwire.h) with its standard
 * input, output and error as descriptors; the worker answers WORKER_DONE with the exit
 * status once the session has ended (its background jobs waited for, its virtual buffers
 * removed).
 */
#ifndef CARSH_SERVER_SESSIONWIRE_H
#define CARSH_SERVER_SESSIONWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/strvec.h"
#include "util/wirebuf.h"

struct session_req {
	uint32_t client;    /* its pid: the virtual buffers are named from it */
	uint32_t umask;     /* the client's */
	char *cwd;          /* relative paths are the client's */
	struct strvec env;  /* its whole environment, "NAME=VALUE" */
	struct strvec argv; /* its command line, argv[0] included */
};

void sessionwire_encode(const struct session_req *r, struct wbuf *out);
/* Fills r (sessionwire_free), or -1 with e for a truncated or garbled message: no
 * directory, no command line, a count past the message's end, bytes left over. */
int sessionwire_decode(const void *buf, size_t len, struct session_req *r, struct cs_err *e);
void sessionwire_free(struct session_req *r);

#endif
