/* One job's whole life in the process that runs it: data in, kernel, data out. The fork-per-
 * job child and a warm worker (exec/worker.h) both run jobs through it. */
#ifndef CARSH_EXEC_PLANRUN_H
#define CARSH_EXEC_PLANRUN_H

#include "exec/jobplan.h"
#include "exec/process.h"
#include "runtime/session.h"

/* Run jp on the devices of s (NULL: a session of its own, freed after); the statistics and
 * the message go to res as the run goes (a crash leaves the device named there). Returns
 * the job's exit status, 0 or 1. */
int plan_run_in(struct rt_session *s, struct job_plan *jp, struct job_result *res);

#endif
