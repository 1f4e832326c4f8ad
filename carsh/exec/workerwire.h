/* The messages between the shell and a warm worker (exec/workers.h). */
#ifndef CARSH_EXEC_WORKERWIRE_H
#define CARSH_EXEC_WORKERWIRE_H

#include <stddef.h>

#include "exec/jobplan.h"
#include "util/wire.h"
#include "util/wirebuf.h"

enum {
	WORKER_JOB = 1,  /* shell -> worker: the directory and the plan; fds: stdin, stdout */
	WORKER_DONE = 2, /* worker -> shell: the job's exit status (uint32) */
};

/* worker_run's return when the worker could not take the job (it died while idle). */
#define WORKER_NOT_TAKEN (-2)

void workerwire_encode_job(const char *cwd, const struct job_plan *jp, struct wbuf *out);
/* A new *cwd and *jp (job_plan_free), or -1 with e. */
int workerwire_decode_job(const void *buf, size_t len, char **cwd, struct job_plan **jp,
                          struct cs_err *e);

#endif
