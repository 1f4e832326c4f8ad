#include "exec/jobs.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"

struct jobs {
	pthread_mutex_t lock;
	pthread_cond_t ended;
	struct job *head;
};

/* What a job's thread needs. */
struct launch {
	struct jobs *js;
	struct job *job;
	job_body body;
	void *arg;
	void (*free_arg)(void *);
};

struct jobs *jobs_new(void)
{
	struct jobs *js = xcalloc(1, sizeof(*js));
	pthread_condattr_t monotonic;

	pthread_mutex_init(&js->lock, NULL);
	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&js->ended, &monotonic);
	pthread_condattr_destroy(&monotonic);
	return js;
}

static void job_free(struct job *j)
{
	free(j->label);
	free(j->message);
	free(j->note);
	free(j);
}

void jobs_free(struct jobs *js)
{
	if (!js)
		return;
	while (js->head) {
		struct job *j = js->head;

		js->head = j->next;
		pthread_join(j->thread, NULL);
		job_free(j);
	}
	pthread_cond_destroy(&js->ended);
	pthread_mutex_destroy(&js->lock);
	free(js);
}

void job_status_text(int status, char *buf, size_t len)
{
	if (status == 0)
		snprintf(buf, len, "Done");
	else if (status > 128 && sigabbrev_np(status - 128))
		snprintf(buf, len, "Killed by SIG%s", sigabbrev_np(status - 128));
	else
		snprintf(buf, len, "Exit %d", status);
}

static void *job_thread(void *p)
{
	struct launch *l = p;
	struct cs_err *e = xmalloc(sizeof(*e));
	int status;

	err_clear(e);
	status = l->body(l->arg, l->job->id, e);
	pthread_mutex_lock(&l->js->lock);
	l->job->status = status;
	job_status_text(status, l->job->how, sizeof(l->job->how));
	if (status != 0 && e->msg[0])
		l->job->message = xstrdup(e->msg);
	l->job->done = true;
	pthread_cond_broadcast(&l->js->ended);
	pthread_mutex_unlock(&l->js->lock);
	/* After `done`: whoever waited for what free_arg releases (a job's buffers) finds the
	 * job finished. */
	if (l->free_arg)
		l->free_arg(l->arg);
	free(e);
	free(l);
	return NULL;
}

/* Ids restart at 1 once every job has been shown, as in POSIX shells. */
static int next_id(const struct jobs *js)
{
	int id = 0;

	for (const struct job *j = js->head; j; j = j->next)
		if (j->id > id)
			id = j->id;
	return id + 1;
}

static void append(struct jobs *js, struct job *j)
{
	struct job **tail;

	for (tail = &js->head; *tail; tail = &(*tail)->next)
		;
	*tail = j;
}

int jobs_start(struct jobs *js, const char *label, pid_t pid, job_body body, void *arg,
               void (*on_id)(void *arg, int id), void (*free_arg)(void *), struct cs_err *e)
{
	struct job *j = xcalloc(1, sizeof(*j));
	struct launch *l = xmalloc(sizeof(*l));
	int id, rc;

	j->label = xstrdup(label);
	j->pid = pid;
	*l = (struct launch){js, j, body, arg, free_arg};
	pthread_mutex_lock(&js->lock);
	id = j->id = next_id(js);
	if (on_id)
		on_id(arg, id);
	rc = pthread_create(&j->thread, NULL, job_thread, l);
	if (rc == 0)
		append(js, j);
	pthread_mutex_unlock(&js->lock);
	if (rc != 0) {
		errno = rc;
		err_errno(e, "cannot start a thread for job %s", label);
		job_free(j);
		free(l);
		return -1;
	}
	return id;
}

/* Forget jobs that are over and shown; their threads have ended or are about to. */
static void remove_reported(struct jobs *js)
{
	struct job **pp = &js->head;

	while (*pp) {
		struct job *j = *pp;

		if (j->done && j->reported) {
			*pp = j->next;
			pthread_join(j->thread, NULL);
			job_free(j);
		} else {
			pp = &j->next;
		}
	}
}

/* "job [N] LABEL: Exit 1: MESSAGE": what a failed job says, whether its end is reported by a
 * wait (sync, the end of input) or by a notice or listing (which came first is a race). A
 * job killed by a signal has a message that says so ("killed by SIGSEGV (kernel ...)"): its
 * state word ("Killed by SIGSEGV") is not said again before it. */
static void job_failure_text(const struct job *j, char *buf, size_t len)
{
	bool killed = j->status > 128 && j->message;

	snprintf(buf, len, "job [%d] %s: %s%s%s", j->id, j->label, killed ? "" : j->how,
	         j->message && !killed ? ": " : "", j->message ? j->message : "");
}

/* A finished job's message, as a wait would report it. */
static void print_message(const struct job *j, FILE *err)
{
	char text[CS_ERR_MAX];

	if (!j->message)
		return;
	job_failure_text(j, text, sizeof(text));
	fprintf(err, "carsh: %s\n", text);
}

int jobs_report(struct jobs *js, FILE *out, FILE *err, bool failures_only)
{
	int failed = 0;

	pthread_mutex_lock(&js->lock);
	for (struct job *j = js->head; j; j = j->next) {
		if (!j->done || j->reported)
			continue;
		if (!failures_only || j->status != 0)
			fprintf(out, "[%d]+ %-6s %s\n", j->id, j->how, j->label);
		print_message(j, err);
		if (failed == 0)
			failed = j->status;
		j->reported = true;
	}
	fflush(out);
	remove_reported(js);
	pthread_mutex_unlock(&js->lock);
	return failed;
}

/* A finished job is listed once, as bash's `jobs` does: listing it is its report (with its
 * failure's message), so neither the next listing nor the prompt's notice shows it again. */
void jobs_print(struct jobs *js, FILE *out, FILE *err)
{
	pthread_mutex_lock(&js->lock);
	for (struct job *j = js->head; j; j = j->next) {
		if (j->reported)
			continue;
		fprintf(out, "[%d]  %-8d %-9s %s%s%s%s\n", j->id, (int)(j->pid ? j->pid : getpid()),
		        j->done ? j->how : "Running", j->label, j->note ? "  (" : "",
		        j->note ? j->note : "", j->note ? ")" : "");
		if (j->done)
			print_message(j, err);
		j->reported = j->done;
	}
	fflush(out);
	remove_reported(js);
	pthread_mutex_unlock(&js->lock);
}

static struct job *find_locked(struct jobs *js, int id)
{
	for (struct job *j = js->head; j; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

void jobs_set_note(struct jobs *js, int id, const char *note)
{
	struct job *j;

	pthread_mutex_lock(&js->lock);
	j = find_locked(js, id);
	if (j) {
		free(j->note);
		j->note = note && *note ? xstrdup(note) : NULL;
	}
	pthread_mutex_unlock(&js->lock);
}

/* Until job j is done (lock held): true, or false once *interrupted is set (never when
 * interrupted is NULL). A signal handler cannot signal a condition variable, so an
 * interruptible wait looks at the flag every 50 ms. */
static bool wait_done_locked(struct jobs *js, struct job *j, volatile sig_atomic_t *interrupted)
{
	while (!j->done) {
		struct timespec t;

		if (!interrupted) {
			pthread_cond_wait(&js->ended, &js->lock);
			continue;
		}
		if (*interrupted)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += 50 * 1000 * 1000;
		if (t.tv_nsec >= 1000 * 1000 * 1000) {
			t.tv_sec++;
			t.tv_nsec -= 1000 * 1000 * 1000;
		}
		pthread_cond_timedwait(&js->ended, &js->lock, &t);
	}
	return true;
}

/* Job j has ended and is waited for: note its failure if it is the first. */
static int note_synced_locked(struct job *j, int failed, struct cs_err *e)
{
	j->reported = true;
	if (j->status != 0 && failed == 0) {
		failed = j->status;
		job_failure_text(j, e->msg, sizeof(e->msg));
	}
	return failed;
}

/* Ctrl-C in a wait stops the jobs waited for, as it stops a foreground job: SIGINT to their
 * process groups. A job run by a thread of the shell (pid 0) cannot be stopped and runs on.
 * They are not marked waited for: their end is reported as any other. */
static int interrupt_locked(struct jobs *js, int id, struct cs_err *e)
{
	for (struct job *j = js->head; j; j = j->next)
		if ((id == 0 || j->id == id) && !j->done && !j->reported && j->pid > 0)
			kill(-j->pid, SIGINT);
	err_set(e, "interrupted");
	return JOBS_INTERRUPTED;
}

static struct job *first_unsynced(struct jobs *js)
{
	for (struct job *j = js->head; j; j = j->next)
		if (!j->reported)
			return j;
	return NULL;
}

static int sync_locked(struct jobs *js, int id, volatile sig_atomic_t *interrupted,
                       struct cs_err *e)
{
	struct job *j;
	int failed = 0;

	if (id) {
		j = find_locked(js, id);
		if (!j)
			return err_set(e, "no such job %%%d (see 'jobs')", id);
		if (!wait_done_locked(js, j, interrupted))
			return interrupt_locked(js, id, e);
		return note_synced_locked(j, 0, e);
	}
	/* Jobs started meanwhile (by a background batch) are waited for too. */
	while ((j = first_unsynced(js)) != NULL) {
		if (!wait_done_locked(js, j, interrupted))
			return interrupt_locked(js, 0, e);
		failed = note_synced_locked(j, failed, e);
	}
	return failed;
}

int jobs_sync_interruptible(struct jobs *js, int id, volatile sig_atomic_t *interrupted,
                            struct cs_err *e)
{
	int rc;

	pthread_mutex_lock(&js->lock);
	rc = sync_locked(js, id, interrupted, e);
	remove_reported(js);
	pthread_mutex_unlock(&js->lock);
	return rc;
}

int jobs_sync(struct jobs *js, int id, struct cs_err *e)
{
	return jobs_sync_interruptible(js, id, NULL, e);
}

int jobs_sync_ended(struct jobs *js, struct cs_err *e)
{
	int failed = 0;

	pthread_mutex_lock(&js->lock);
	for (struct job *j = js->head; j; j = j->next)
		if (j->done && !j->reported)
			failed = note_synced_locked(j, failed, e);
	remove_reported(js);
	pthread_mutex_unlock(&js->lock);
	return failed;
}

int jobs_running(struct jobs *js)
{
	int n = 0;

	pthread_mutex_lock(&js->lock);
	for (const struct job *j = js->head; j; j = j->next)
		n += !j->done;
	pthread_mutex_unlock(&js->lock);
	return n;
}

void jobs_signal_all(struct jobs *js, int sig)
{
	pthread_mutex_lock(&js->lock);
	for (const struct job *j = js->head; j; j = j->next)
		if (!j->done && j->pid > 0)
			kill(-j->pid, sig);
	pthread_mutex_unlock(&js->lock);
}
