/*
 * The job table: background jobs as a POSIX shell shows them (`[N] PID`, `jobs`, `sync`,
 * `[N]+ Done  file` before the next prompt). Every background job has a thread of its own:
 * for a flow-model it waits for the child process; for a command (a batch, `repeat ...`) it
 * runs the command. A batch keeps its own table for the jobs its steps start.
 */
#ifndef CARSH_EXEC_JOBS_H
#define CARSH_EXEC_JOBS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/error.h"

struct job {
	int id; /* [N] */
	char *label;
	pid_t pid; /* the job's process group, or 0 for a command run by the thread */
	bool done;
	bool reported; /* its end was shown, or waited for by sync */
	int status;    /* shell status once done */
	char how[96];  /* "Done", "Exit 1", "Killed by SIGSEGV" */
	char *message; /* the job's error message, or NULL */
	char *note;    /* where it runs and why (`auto: gpu, ...`), or NULL */
	struct job *next;
	pthread_t thread;
};

/* A background job's work, in its own thread: returns the job's status (0, 1, 128+signal)
 * with the message in e. id is the job's [N]. */
typedef int (*job_body)(void *arg, int id, struct cs_err *e);

struct jobs;

struct jobs *jobs_new(void);
/* Frees the table; callers sync first. */
void jobs_free(struct jobs *js);

/* Start body(arg) as a background job; free_arg(arg) runs when it is over (may be NULL).
 * pid is what `jobs` and the "[N] PID" notice show. on_id(arg, id), when given, runs once the
 * id is known and before the job's thread starts. Returns the id, or -1 with e set when no
 * thread could be started (body and free_arg are then not called; on_id may have been). */
int jobs_start(struct jobs *js, const char *label, pid_t pid, job_body body, void *arg,
               void (*on_id)(void *arg, int id), void (*free_arg)(void *), struct cs_err *e);

/* Print "[N]+ Done  label" (and error messages) for jobs that ended and were not shown yet,
 * then forget them. With failures_only, successful ones are forgotten silently (scripts).
 * Returns the status of the first failed job shown, 0 when none failed. */
int jobs_report(struct jobs *js, FILE *out, FILE *err, bool failures_only);

/* The `jobs` listing: running jobs, and finished ones not yet reported (which it reports:
 * their failure's message goes to err). */
void jobs_print(struct jobs *js, FILE *out, FILE *err);

/* Wait for job id (every job when id is 0). Returns 0 when they all succeeded, else the
 * status of the first that failed, with "job [N] label: how: message" in e. Unknown id: -1
 * with "no such job %N (see 'jobs')". Waited jobs are not reported again. */
int jobs_sync(struct jobs *js, int id, struct cs_err *e);

/* jobs_sync for the jobs that have ended, without waiting for the others: a runner that
 * starts jobs for as long as a stream lasts forgets them as they end and sees a failure
 * at once (a pipeline graph across ranks). */
int jobs_sync_ended(struct jobs *js, struct cs_err *e);

/* What jobs_sync_interruptible returns when *interrupted was set while it waited. */
#define JOBS_INTERRUPTED 130

/* jobs_sync that gives up when *interrupted becomes set (Ctrl-C): it then sends SIGINT to the
 * process groups of the jobs it waited for, leaves them to be reported when they end, and
 * returns JOBS_INTERRUPTED with "interrupted" in e. */
int jobs_sync_interruptible(struct jobs *js, int id, volatile sig_atomic_t *interrupted,
                            struct cs_err *e);

/* What `jobs` shows after the job's label, in parentheses (NULL or "": nothing). */
void jobs_set_note(struct jobs *js, int id, const char *note);

/* Number of jobs still running. */
int jobs_running(struct jobs *js);

/* Send sig to every running job's process group (master exit on SIGTERM/SIGHUP). */
void jobs_signal_all(struct jobs *js, int sig);

/* "Done", "Exit 3", "Killed by SIGSEGV" for a status. */
void job_status_text(int status, char *buf, size_t len);

#endif
