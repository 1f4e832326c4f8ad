/* What both executors and a batch's window of jobs in flight (exec/jobwin.h) are given to
 * run a job with: the session's hazards, Ctrl-C, its warm workers and the table of where
 * each buffer's data is. */
#ifndef CARSH_EXEC_EXECENV_H
#define CARSH_EXEC_EXECENV_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "data/vhome.h"
#include "exec/hazard.h"

struct workers;
struct job_window;

struct exec_env {
	struct hazards *hz;
	volatile sig_atomic_t *interrupted; /* Ctrl-C for the foreground */
	FILE *notices;                      /* hazard waits are announced here */
	bool own_group; /* run children in their own process group (from a background job) */
	volatile sig_atomic_t
	        *fg_pid; /* where the foreground child's pid is published, so that
	                   Ctrl-C can be passed on to it; NULL from a background job */
	bool profile;    /* someone reads the OpenCL times (time, stats=on) */
	/* The shell's warm workers (exec/workers.h): process-executor jobs run in them; NULL: a
	 * fresh fork per job. */
	struct workers *workers;
	/* Where each virtual buffer's data is (data/vhome.h): jobs in warm workers keep it on
	 * their devices. NULL: always shared memory. */
	struct vhome *homes;
	/* A batch's window of jobs in flight (exec/jobwin.h), or NULL: a foreground job that
	 * may join it keeps its worker there. */
	struct job_window *window;
};

#endif
