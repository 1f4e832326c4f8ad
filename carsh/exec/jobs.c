#include "exec/jobs.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "util/alloc.h"

struct jobs {
	pthread_mutex_t lock;
	struct job *head;
};

struct jobs *jobs_new(void)
{
	struct jobs *js = xcalloc(1, sizeof(*js));

	pthread_mutex_init(&js->lock, NULL);
	return js;
}

static void job_free(struct job *j)
{
	proc_result_free(j->res);
	free(j->label);
	free(j->message);
	free(j);
}

void jobs_free(struct jobs *js)
{
	if (!js)
		return;
	while (js->head) {
		struct job *j = js->head;

		js->head = j->next;
		job_free(j);
	}
	pthread_mutex_destroy(&js->lock);
	free(js);
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

int jobs_add_process(struct jobs *js, pid_t pid, struct job_result *res, const char *label)
{
	struct job *j = xcalloc(1, sizeof(*j)), **tail;

	j->pid = pid;
	j->res = res;
	j->label = xstrdup(label);
	pthread_mutex_lock(&js->lock);
	j->id = next_id(js);
	for (tail = &js->head; *tail; tail = &(*tail)->next)
		;
	*tail = j;
	pthread_mutex_unlock(&js->lock);
	return j->id;
}

void job_finish(struct job *j, int wstatus)
{
	char desc[64];

	j->done = true;
	j->status = proc_status(wstatus);
	if (j->status == 0 && j->res && j->res->status != 0)
		j->status = 1;
	if (j->status == 0) {
		snprintf(j->how, sizeof(j->how), "Done");
	} else if (WIFSIGNALED(wstatus)) {
		proc_describe(wstatus, desc, sizeof(desc));
		snprintf(j->how, sizeof(j->how), "%c%s", 'K', desc + 1);
	} else {
		snprintf(j->how, sizeof(j->how), "Exit %d", j->status);
	}
	if (j->res && j->res->msg[0])
		j->message = xstrdup(j->res->msg);
}

static void poll_locked(struct jobs *js)
{
	for (struct job *j = js->head; j; j = j->next) {
		int ws;

		if (!j->done && proc_wait(j->pid, false, &ws) == 1)
			job_finish(j, ws);
	}
}

void jobs_poll(struct jobs *js)
{
	pthread_mutex_lock(&js->lock);
	poll_locked(js);
	pthread_mutex_unlock(&js->lock);
}

static void remove_reported(struct jobs *js)
{
	struct job **pp = &js->head;

	while (*pp) {
		struct job *j = *pp;

		if (j->done && j->reported) {
			*pp = j->next;
			job_free(j);
		} else {
			pp = &j->next;
		}
	}
}

void jobs_report(struct jobs *js, FILE *out, FILE *err)
{
	pthread_mutex_lock(&js->lock);
	poll_locked(js);
	for (struct job *j = js->head; j; j = j->next) {
		if (!j->done || j->reported)
			continue;
		fprintf(out, "[%d]+ %-6s %s\n", j->id, j->how, j->label);
		if (j->message)
			fprintf(err, "carsh: job [%d] %s: %s\n", j->id, j->label, j->message);
		j->reported = true;
	}
	fflush(out);
	remove_reported(js);
	pthread_mutex_unlock(&js->lock);
}

void jobs_print(struct jobs *js, FILE *out)
{
	pthread_mutex_lock(&js->lock);
	poll_locked(js);
	for (const struct job *j = js->head; j; j = j->next)
		fprintf(out, "[%d]  %-8d %-7s %s\n", j->id, (int)j->pid,
		        j->done ? j->how : "Running", j->label);
	pthread_mutex_unlock(&js->lock);
}

static struct job *find_locked(struct jobs *js, int id)
{
	for (struct job *j = js->head; j; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

/* Waiting happens without the lock so that other threads may add jobs meanwhile. */
static void wait_job(struct jobs *js, struct job *j)
{
	int ws;

	if (j->done)
		return;
	if (proc_wait(j->pid, true, &ws) == 1) {
		pthread_mutex_lock(&js->lock);
		job_finish(j, ws);
		pthread_mutex_unlock(&js->lock);
	}
}

static int sync_one(struct jobs *js, struct job *j, struct cs_err *e, int failed)
{
	wait_job(js, j);
	pthread_mutex_lock(&js->lock);
	j->reported = true;
	if (j->status != 0 && failed == 0) {
		failed = j->status;
		err_set(e, "job [%d] %s: %s%s%s", j->id, j->label, j->how, j->message ? ": " : "",
		        j->message ? j->message : "");
	}
	pthread_mutex_unlock(&js->lock);
	return failed;
}

int jobs_sync(struct jobs *js, int id, struct cs_err *e)
{
	struct job *j;
	int failed = 0;

	if (id) {
		pthread_mutex_lock(&js->lock);
		j = find_locked(js, id);
		pthread_mutex_unlock(&js->lock);
		if (!j)
			return err_set(e, "no such job %%%d (see 'jobs')", id);
		failed = sync_one(js, j, e, 0);
	} else {
		for (;;) {
			pthread_mutex_lock(&js->lock);
			for (j = js->head; j && j->reported; j = j->next)
				;
			pthread_mutex_unlock(&js->lock);
			if (!j)
				break;
			failed = sync_one(js, j, e, failed);
		}
	}
	pthread_mutex_lock(&js->lock);
	remove_reported(js);
	pthread_mutex_unlock(&js->lock);
	return failed;
}

int jobs_running(struct jobs *js)
{
	int n = 0;

	pthread_mutex_lock(&js->lock);
	poll_locked(js);
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
