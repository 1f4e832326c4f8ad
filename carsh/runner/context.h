/*
 * What a running command, batch step or graph run sees: the session, the parameters in
 * scope, its standard streams, where its jobs go and where their statistics add up. The
 * runners take one of these; the builtins derive theirs from the dispatcher's.
 */
#ifndef CARSH_RUNNER_CONTEXT_H
#define CARSH_RUNNER_CONTEXT_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "data/params.h"
#include "exec/executor.h"
#include "exec/jobs.h"
#include "runner/shellstate.h"
#include "runtime/runtime.h"

struct placement;

/* Statistics of the foreground jobs a command ran (for `time` and `set stats=on`). */
struct stats_acc {
	int jobs;
	struct run_stats sum;
	int placed;      /* jobs whose device `auto` chose */
	char place[200]; /* why the last of them went where it did (runner/devplace.h) */
};

/* The batch files being run, innermost first: nested batch recursion is refused with the
 * chain. */
struct batch_frame {
	dev_t dev; /* the file's identity: a path, a link to it and a hard link are one batch */
	ino_t ino;
	const char *shown;
	const struct batch_frame *up;
};

struct run_ctx {
	struct session *s;
	const char *origin;         /* where the command was written, or NULL */
	const struct scope *caller; /* parameters for `run` and ${NAME}: batch, then shell */
	struct params *vars;        /* what `set` and `unset` change */
	FILE *in;                   /* after redirections */
	FILE *out;
	struct stats_acc *stats; /* where foreground jobs add their statistics */
	struct jobs *jobs;       /* where its background jobs go: the shell's or a batch's */
	bool background;         /* the command ended with '&' */
	bool timed;              /* `time` already prints the statistics */
	bool profile;            /* inside `time` (not --wall): the OpenCL times are read */
	bool quiet;              /* no "[N] PID" notices (inside a batch) */
	bool detached; /* in a background job's thread: no Ctrl-C, children in their own group */
	volatile sig_atomic_t *interrupted; /* NULL when detached */
	int depth;                          /* nesting of source and batches */
	int rank; /* under MPI, where its jobs run: a rank (0, the shell, unless a batch step
	             placed it) or RANK_AUTO (mpi/placement.h) */
	struct placement *placed; /* the batch that placed its <Exec> step, or NULL */
	/* The builtin being run, as the dispatcher got it (its name first), for an engine that
	 * runs it again in a process of its own (runner/engineproc.h); NULL elsewhere. */
	int argc;
	char **argv;
	const struct batch_frame *frames;
	bool moves_by_caller; /* under MPI: the caller brings the data a job reads to its rank
	                         and agrees on the outcome (mpi/graphranks.c); the job runs
	                         on its rank, nothing else */
	/* A batch's window of jobs in flight (exec/jobwin.h), NULL elsewhere: window_tag names
	 * the step whose job is sent next; window_drain(window_arg, e) collects the window
	 * (the batch's: a job that failed is named with its step, e located), returning 0 or
	 * that job's status. Whatever waits for buffers or reads them collects it first. */
	struct job_window *window;
	const void *window_tag;
	int (*window_drain)(void *arg, struct cs_err *e);
	void *window_arg;
	/* Nonzero while a host write runs between the window's jobs without collecting them
	 * (jobwin_host_write): its hazard claim is in that group. */
	uint64_t window_group;
};

/* Collect c's window, if it has one in use: 0, or the status of a job in it that failed
 * (its message in e). */
int run_window_drain(struct run_ctx *c, struct cs_err *e);

/* The environment the executors need, for this context. */
struct exec_env run_exec_env(const struct run_ctx *c);
/* A child's standard input and output: the context's. */
struct child_io run_child_io(const struct run_ctx *c);

/* A stream of the job's own, a copy of f (for a background job: the command's redirection
 * is closed when the command returns); /dev/null for reading when devnull. */
FILE *run_own_stream(FILE *f, const char *mode, bool devnull);

/* The body of a background job: runs in the job's thread with a context of its own (a
 * snapshot of the parameters, its own streams and job table); returns the status with the
 * message in e. */
typedef int (*bg_body)(struct run_ctx *c, void *arg, struct cs_err *e);

/* Start body(arg) as a background job of c->jobs, labelled label; free_arg(arg) runs when
 * the job ends (or here, if it cannot start). Prints "[N] PID" unless c->quiet. */
int run_background(struct run_ctx *c, const char *label, bg_body body, void *arg,
                   void (*free_arg)(void *), struct cs_err *e);

#endif
