/*
 * The job table: background jobs as a POSIX shell shows them (`[N] PID`, `jobs`, `sync`,
 * `[N]+ Done  file` before the next prompt). Thread-safe: background batches add jobs too.
 */
#ifndef CARSH_EXEC_JOBS_H
#define CARSH_EXEC_JOBS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "exec/process.h"

struct job {
	int id; /* [N] */
	char *label;
	pid_t pid;
	struct job_result *res;
	bool done;
	int status;       /* shell status once done */
	char how[96];     /* "Done", "Exit 1", "Killed by SIGSEGV" */
	char *message;    /* the job's error message, or NULL */
	bool reported;    /* its end was shown (or waited for by sync) */
	struct job *next; /* in id order */
};

struct jobs;

struct jobs *jobs_new(void);
/* Waits for nothing: callers sync first. Kills nothing. */
void jobs_free(struct jobs *js);

/* A new background process job; returns its id. */
int jobs_add_process(struct jobs *js, pid_t pid, struct job_result *res, const char *label);

/* Collect background children that ended, without blocking. */
void jobs_poll(struct jobs *js);

/* Print "[N]+ Done  label" (and error messages) for jobs that ended and were not shown yet,
 * then forget them. */
void jobs_report(struct jobs *js, FILE *out, FILE *err);

/* The `jobs` listing. */
void jobs_print(struct jobs *js, FILE *out);

/* Wait for job id (every job when id is 0). Returns 0 when they all succeeded, else the
 * status of the first that failed, with "job [N] label: how: message" in e. Unknown id:
 * -1 with "no such job %N". Waited jobs are not reported again. */
int jobs_sync(struct jobs *js, int id, struct cs_err *e);

/* Number of jobs still running (after a poll). */
int jobs_running(struct jobs *js);

/* Send sig to every running job's process group (master exit on SIGTERM/SIGHUP). */
void jobs_signal_all(struct jobs *js, int sig);

/* Describe how a job ended from its waitpid status and result. */
void job_finish(struct job *j, int wstatus);

#endif
