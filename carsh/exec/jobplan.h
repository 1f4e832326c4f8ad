/*
 * A job plan: a kernel plan plus where each stream's data comes from and goes to. The model
 * layer builds it; the executors stage the data, run the kernel plan and deliver the results.
 */
#ifndef CARSH_EXEC_JOBPLAN_H
#define CARSH_EXEC_JOBPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data/binio.h"
#include "runtime/plan.h"
#include "runtime/runtime.h"

enum bind_kind { BIND_FILE, BIND_BUFFER, BIND_FILL, BIND_DISCARD };

struct stream_bind {
	enum bind_kind how;
	char *path;                         /* BIND_FILE: CSV file, "-" for stdin/stdout */
	size_t columns;                     /* BIND_FILE outputs: values per row */
	bool columns_given;                 /* columns= was written (a PGM needs it) */
	char *buffer;                       /* BIND_BUFFER: virtual buffer name */
	char *shm;                          /* BIND_BUFFER: its shared-memory object */
	unsigned char fill[TYPE_MAX_BYTES]; /* BIND_FILL: one element */
	bool host_owned;                    /* kp.args[i].host was malloc'ed by staging */
	bool host_mapped;                   /* kp.args[i].host maps the buffer's object */
	struct bin_map file_map;            /* kp.args[i].host lies in this mapped file */
};

struct job_plan {
	struct kernel_plan kp;
	struct stream_bind *binds; /* one per kp.args entry; used for streams */
	/* What "-" reads and writes; NULL: stdin and stdout (a process job's, redirected by
	 * the fork). A job run in a thread of the shell gets the command's own. */
	FILE *in;
	FILE *out;
	/* Called once when the job is over, by whoever ran it: its status and statistics
	 * (NULL: none), st->wall_ms the time from its start to the end of its device work.
	 * job_plan_free calls it with -1 when the job never ran. The runner that chose the
	 * job's device learns from it (runner/devplace.h). */
	void (*on_end)(void *arg, int status, const struct run_stats *st);
	void *on_end_arg;
	/* Seconds the job may run in its worker (`set timeout=S`); 0: no limit. */
	unsigned timeout_s;
	/* A plan lent by a keeper (runner/plancache.h) for one job: job_plan_free hands it
	 * back to give_back instead of freeing it. NULL: the plan is its holder's. */
	void (*give_back)(void *arg, struct job_plan *jp);
	void *give_back_arg;
	/* A keeper's name for the plan's content but its bound objects (binds[i].shm), never
	 * reused in the process (runner/plancache.h): every copy it lends of one plan has the
	 * same; 0: none. The process executor keeps a window job's encoded plan by it and the
	 * objects (exec/workers.c). */
	uint64_t stamp;
};

/* Call jp->on_end once (see above); nothing when it is not set. */
void job_plan_ended(struct job_plan *jp, int status, const struct run_stats *st);
/* A lent plan (give_back set) goes back to its keeper, on_end called as for any. */
void job_plan_free(struct job_plan *jp);
const char *bind_kind_name(enum bind_kind k);

#endif
