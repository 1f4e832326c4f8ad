/*
 * A job plan as bytes, for a worker process (issue 18): the whole kernel plan and the binds,
 * in util/wirebuf.h's encoding, so that a worker can stage, run and deliver the job as the
 * process executor does in its fork.
 *
 * What a worker cannot use does not travel: the host buffers (the worker stages its own;
 * host_owned, host_mapped and host_shared are false on the other side) and in/out (NULL
 * there: "-" is the worker's stdin and stdout, which the caller passes as fds). A decoded
 * plan owns all of its strings (source_kept false) and is freed with job_plan_free.
 */
#ifndef CARSH_EXEC_PLANWIRE_H
#define CARSH_EXEC_PLANWIRE_H

#include <stddef.h>

#include "exec/jobplan.h"
#include "util/error.h"
#include "util/wirebuf.h"

/* Append jp's encoding to out. */
void planwire_encode(const struct job_plan *jp, struct wbuf *out);

/* A new plan from buf (exactly one encoded plan). Errors: "job plan message: truncated"
 * (also for an argument or pair count larger than the rest of the message could hold:
 * refused before anything is allocated for it); "job plan message: malformed WHAT" for a
 * value out of range (version, dimensions, an enum, a type, a line, a pair index), a NUL
 * byte inside a string, bytes after the plan. */
int planwire_decode(const void *buf, size_t len, struct job_plan **out, struct cs_err *e);

#endif
