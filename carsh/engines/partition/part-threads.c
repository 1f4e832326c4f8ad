/* The partition engine's device threads (003 §3: one host thread per core and one per GPU):
 * each waits for a step, takes chunks from the scheduler until it has none for it, and
 * reports the step done; one step is every thread's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/partition/partition-int.h"
#include "util/alloc.h"
#include "util/clock.h"

/* Copies shorter than this are left out of the scheduler's times (0.01 ms). */
#define COPY_NOTED_MS 0.01

static void draw_progress(struct prun *r, bool force)
{
	size_t total = r->items * r->steps;

	if (!progress_due(&r->progress, force))
		return;
	fprintf(stderr, "\r%s", r->what);
	progress_bar(r->done_items, total, 30);
	fprintf(stderr, " %3d%%  step %u/%u", (int)((double)r->done_items * 100.0 / (double)total),
	        r->step + 1, r->steps);
	fflush(stderr);
}

static void trace_add(struct prun *r, unsigned dev, const struct sched_chunk *c, double a, double b)
{
	if (r->ntrace == r->cap)
		r->trace = xgrow(r->trace, &r->cap, r->ntrace + 1, sizeof(*r->trace));
	r->trace[r->ntrace++] = (struct part_trace){r->step,   dev,       c->offset, c->size,
	                                            a - r->t0, b - r->t0, c->phase};
}

/* Each device thread has its own wake-up: a step wakes only the devices the scheduler uses
 * in it. One wake-up for all had every core's thread wake, take the run's lock, find itself
 * sitting out and report its step done, at every step, and the step end waited for the last
 * of them: on SpMV, whose steps are one GPU chunk each, LogFit took 5-10 % longer than Static
 * at 100 %, which runs the GPU's thread alone. */
struct worker {
	struct prun *r;
	unsigned dev;
	pthread_t th;
	bool started;
	pthread_cond_t go;
	unsigned gen;  /* the last step generation it is to take part in */
	unsigned born; /* the generation when it was started: a step may begin before it runs */
};

static enum sched_answer next_chunk(struct prun *r, unsigned dev, struct sched_chunk *c)
{
	enum sched_answer ans;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (r->failed || part_interrupted(r)) {
			ans = SCHED_DONE;
			break;
		}
		ans = sched_next(r->sched, dev, c);
		/* Nothing in flight means nothing can change what the scheduler says. */
		if (ans != SCHED_WAIT || r->in_flight == 0)
			break;
		pthread_cond_wait(&r->cond, &r->lock);
	}
	if (ans == SCHED_CHUNK) {
		r->in_flight++;
		c->offset += r->begin; /* the scheduler's space is this engine's rows */
		part_head_wait(r, c);
	} else
		ans = SCHED_DONE;
	pthread_mutex_unlock(&r->lock);
	return ans;
}

static void fail_run(struct prun *r, const struct cs_err *e)
{
	if (!r->failed) {
		r->failed = true;
		memcpy(r->err.msg, e->msg, sizeof(e->msg));
	}
}

/* A chunk ran in [a, b): the scheduler learns its time; the trace, the device's statistics
 * and the progress bar count it. Under the run's lock. */
static void chunk_done(struct prun *r, unsigned dev, const struct sched_chunk *c, double a,
                       double b)
{
	struct pdev *d = &r->dev[dev];
	struct sched_chunk own = {c->offset - r->begin, c->size, c->phase};

	sched_done(r->sched, dev, &own, b - a);
	trace_add(r, dev, c, a, b);
	d->st.chunks++;
	d->st.items += c->size;
	d->st.busy_ms += b - a;
	d->st.last_chunk = c->size;
	r->done_items += c->size;
	draw_progress(r, false);
}

/* One device's part of one step: its context's copy streams, then chunks until the scheduler
 * has none for it. The copies come before the first chunk is asked for: a GPU that took its
 * chunk first and then spent 12 ms writing a 64 MiB copy stream (PCIe, pageable memory) held
 * that chunk while the cores ran out of work and waited (Jacobi 4096²: the cores idle for
 * half of each step). */
static void device_step(struct prun *r, unsigned dev)
{
	struct pdev *d = &r->dev[dev];
	struct sched_chunk c;
	struct cs_err e;
	double t0 = clock_ms();
	int rc = part_ensure_copies(r, d, &e);
	double copy_ms = clock_ms() - t0;
	/* The scheduler was made before this step's threads were let go, under the run's lock. */
	bool want_fixed = sched_learns_fixed(r->sched);

	/* The scheduler learns what the copies took (LogFit counts it in a chunk's time); the
	 * cores' copies are the host's memory, and take no lock for nothing. */
	if (rc || copy_ms > COPY_NOTED_MS) {
		pthread_mutex_lock(&r->lock);
		if (rc) {
			fail_run(r, &e);
			pthread_cond_broadcast(&r->cond);
		} else {
			sched_copied(r->sched, dev, copy_ms);
		}
		pthread_mutex_unlock(&r->lock);
	}
	if (rc)
		return;
	while (next_chunk(r, dev, &c) == SCHED_CHUNK) {
		struct chunk_times t = {want_fixed, 0, 0};
		double a, b;

		a = clock_ms();
		rc = part_run_chunk(r, d, &c, true, &t, &e);
		b = clock_ms();
		/* The chunk starts when the gate lets it: a core's 128 items that waited out a
		 * core standing in for the GPU took 199 ms, and as its throughput (0.6 items/ms)
		 * reached the knowledge base, the cores sat out of every later run. */
		a += t.gate_ms;
		pthread_mutex_lock(&r->lock);
		r->in_flight--;
		if (rc)
			fail_run(r, &e);
		if (rc == 0 && t.fixed_ms >= 0)
			sched_fixed(r->sched, dev, t.fixed_ms);
		if (rc == 0)
			chunk_done(r, dev, &c, a, b);
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		if (rc)
			break;
	}
}

/* A device's host thread for the whole run (003 §3: one thread per core and one for the
 * GPU): it waits for each step it takes part in, takes chunks, and reports the step done. */
static void *device_thread(void *arg)
{
	struct worker *w = arg;
	struct prun *r = w->r;
	unsigned seen = w->born;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		while (w->gen == seen && !r->quit)
			pthread_cond_wait(&w->go, &r->lock);
		if (r->quit) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		seen = w->gen;
		pthread_mutex_unlock(&r->lock);
		device_step(r, w->dev);
		pthread_mutex_lock(&r->lock);
		r->finished++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
}

/* A host thread per device, waiting for the first step (part_run_step); NULL (none left
 * running) on failure. Stop them with part_stop_threads. */
struct worker *part_start_threads(struct prun *r, struct cs_err *e)
{
	struct worker *w = xcalloc(r->ndev, sizeof(*w));

	r->quit = false;
	for (unsigned i = 0; i < r->ndev; i++) {
		/* The generation runs on across the runs of a static profile: a thread that
		 * started from 0 would take the last run's step for a new one and report it
		 * finished before it had taken its chunks. */
		w[i] = (struct worker){
		        .r = r, .dev = i, .gen = r->generation, .born = r->generation};
		pthread_cond_init(&w[i].go, NULL);
		if (pthread_create(&w[i].th, NULL, device_thread, &w[i]) != 0) {
			pthread_cond_destroy(&w[i].go);
			err_set(e, "cannot start a host thread for %s", r->dev[i].st.label);
			part_stop_threads(r, w);
			return NULL;
		}
		w[i].started = true;
	}
	r->workers = w;
	return w;
}

/* The run ends: every thread returns, and w is freed. */
void part_stop_threads(struct prun *r, struct worker *w)
{
	pthread_mutex_lock(&r->lock);
	r->quit = true;
	for (unsigned i = 0; i < r->ndev; i++)
		if (w[i].started)
			pthread_cond_signal(&w[i].go);
	pthread_mutex_unlock(&r->lock);
	for (unsigned i = 0; i < r->ndev; i++)
		if (w[i].started) {
			pthread_join(w[i].th, NULL);
			pthread_cond_destroy(&w[i].go);
		}
	r->workers = NULL;
	free(w);
}

/* One step: every device thread takes chunks until the space is handed out. */
int part_run_step(struct prun *r, struct cs_err *e)
{
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	sched_step_begin(r->sched);
	part_head_close(r);
	r->finished = 0;
	r->generation++;
	for (unsigned i = 0; i < r->ndev; i++) {
		if (!sched_uses(r->sched, i)) {
			r->finished++;
			continue;
		}
		r->workers[i].gen = r->generation;
		pthread_cond_signal(&r->workers[i].go);
	}
	while (r->finished < r->ndev)
		pthread_cond_wait(&r->cond, &r->lock);
	sched_step_end(r->sched);
	pthread_mutex_unlock(&r->lock);
	if (r->failed) {
		memcpy(e->msg, r->err.msg, sizeof(e->msg));
		rc = 1;
	} else if (part_interrupted(r)) {
		err_set(e, "interrupted");
		rc = 130;
	} else if (sched_assigned(r->sched) != r->len) {
		err_set(e, "internal error: the %s scheduler handed out %zu of %zu items",
		        sched_name(r->o->sched), sched_assigned(r->sched), r->len);
		rc = 1;
	}
	return rc;
}
