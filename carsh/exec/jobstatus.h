/* What a job came to, in both executors and a batch's window (exec/jobwin.h): its status and
 * message from how its process ended, and the hazard claim it takes. */
#ifndef CARSH_EXEC_JOBSTATUS_H
#define CARSH_EXEC_JOBSTATUS_H

#include "exec/hazard.h"
#include "exec/jobplan.h"
#include "exec/process.h"
#include "util/error.h"

/* A job's status from how its process ended (wstatus as from waitpid) and what it left in
 * res, with its message in e: 0, 1, or 128+signal (141, quiet, for SIGPIPE). */
int exec_job_status(const struct job_plan *jp, int ws, const struct job_result *res,
                    struct cs_err *e);

/* The hazard claim of a plan: every stream bound to a virtual buffer. */
struct claim *plan_claim(const struct job_plan *jp, const char *label);
/* The same, labelled jp's label, borrowing jp's strings: released before jp is freed or
 * lent again (a window's job, exec/jobwin.c). */
struct claim *plan_claim_borrowed(const struct job_plan *jp);

#endif
