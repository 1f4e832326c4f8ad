/* What the per-job device choice learns from each job's end (runner/devplace-int.h,
 * docs/auto.md "The forecast"). */
#include <stdlib.h>
#include <string.h>

#include "data/profstore.h"
#include "runner/devplace-int.h"
#include "util/clock.h"
#include "util/hash.h"

static uint64_t job_kind(const struct inflight *j)
{
	uint64_t h = fnv64(FNV64_INIT, j->keys[0], strlen(j->keys[0]) + 1);

	h = fnv64(h, j->keys[1], strlen(j->keys[1]) + 1);
	return fnv64(h, &j->size, sizeof(j->size));
}

/* The device time a job costs: its run less the once-per-worker set-up; queued behind jobs
 * of its kind, the mean time of their back-to-back run so far. Not the time since the one
 * before ended: the ends the shell sees come in bursts, and Mandelbrot jobs of 0.8 ms each
 * on 16 PoCL cores were learnt at 0.01-0.04 ms (docs/auto.md). */
static double job_ms(struct placer *p, const struct inflight *j, const struct run_stats *st)
{
	struct backlog *b = &p->backlog[j->dev];
	double ms = st->wall_ms - st->build_ms - st->platform_ms - st->context_ms, now = clock_ms();
	uint64_t kind = job_kind(j);

	if (p->last_end[j->dev] > j->placed_at && b->n > 0 && b->kind == kind) {
		double mean = (now - b->start) / ++b->n;

		return mean < ms ? mean : ms;
	}
	/* Its run began when it was placed, or when the job before it on the device ended; its
	 * set-up (a program build the jobs behind it waited for too) is no part of the run. */
	if (p->last_end[j->dev] > j->placed_at && now - p->last_end[j->dev] < ms)
		ms = now - p->last_end[j->dev];
	else if (p->last_end[j->dev] <= j->placed_at && now - j->placed_at < ms)
		ms = now - j->placed_at;
	ms = ms > 0.001 ? ms : 0.001;
	*b = (struct backlog){.kind = kind, .n = 1, .start = now - ms};
	return ms;
}

/* A device's first jobs in a shell wait for its compiler (PoCL compiles a kernel at its
 * first launch, outside the program build: 8 jobs of 0.2 ms on two cores were learnt at
 * 1.3 s). The jobs placed behind the first teach only a device without a record, and the
 * next warm job replaces what they taught; the first itself too, unless it ran within 4
 * times the record (a shell that runs one job, as a script's `carsh run` does, still
 * teaches). */
static bool cold(const struct inflight *j, double record_ms, double ms)
{
	if (j->when == J_BEHIND_FIRST)
		return true;
	return j->when == J_FIRST && ms > 4 * record_ms;
}

/* A counter whose devices ran nothing of this shell's during a job's span (none in flight,
 * none ended since it was placed) read their idle power: the mean of the last few, W. */
static void learn_idle(struct placer *p, const struct inflight *j, double g, double cpu,
                       double span)
{
	double now[2] = {g, cpu}, then[2] = {j->gpu_j0, j->cpu_j0};
	bool busy[2] = {false, false};
	int k = placer_counter_of(p, (size_t)j->dev);

	if (k >= 0)
		busy[k] = true;
	for (size_t d = 0; d < p->ndev; d++)
		if ((k = placer_counter_of(p, d)) >= 0 && p->last_end[d] > j->placed_at)
			busy[k] = true;
	for (const struct inflight *o = p->jobs; o; o = o->next)
		if (o != j && (k = placer_counter_of(p, (size_t)o->dev)) >= 0)
			busy[k] = true;
	for (k = 0; k < 2; k++) {
		double w;

		if (busy[k] || then[k] < 0 || now[k] < then[k] || span <= 0)
			continue;
		w = (now[k] - then[k]) * 1000 / span;
		p->idle_w[k] = p->idle_w[k] > 0 ? (3 * p->idle_w[k] + w) / 4 : w;
	}
}

/* What the run measured goes into the history; the job leaves the device's queue. */
static void learn(struct inflight *j, int status, const struct run_stats *st)
{
	struct placer *p = j->p;
	bool gpu = p->devs[j->dev].type & CL_DEVICE_TYPE_GPU;
	double g, cpu, span, mj = -1, j0;
	bool found;
	struct profstore *ps = status == 0 && st ? placer_history(p) : NULL;
	struct cs_err e;

	g = cpu = -1;
	if (j->gpu_j0 >= 0 || j->cpu_j0 >= 0)
		placer_counters(p, &g, &cpu);
	span = clock_ms() - j->placed_at;
	learn_idle(p, j, g, cpu, span);
	j0 = gpu ? j->gpu_j0 : j->cpu_j0;
	if (ps) {
		const char *keys[] = {j->keys[0], j->keys[1], j->keys[2]};
		const struct prof_rec *lo, *hi;
		double v[3] = {0, -1, 1};

		v[V_TIME] = job_ms(p, j, st);
		found = profstore_near(ps, KIND, keys, j->size, &lo, &hi) && lo == hi;
		if (found && cold(j, lo->v[V_TIME], v[V_TIME]))
			return;
		/* The device's power over the job's span, times its own run time (docs/auto.md). */
		if (j0 >= 0 && (gpu ? g : cpu) >= 0 && span > 0)
			mj = ((gpu ? g : cpu) - j0) * 1000 / span * v[V_TIME];
		v[V_ENERGY] = mj;
		if (!found && j->when != J_WARM)
			v[V_RUNS] = 0;
		else if (found) {
			double n = lo->v[V_RUNS] < KEEP_RUNS ? lo->v[V_RUNS] : KEEP_RUNS;

			v[V_TIME] = (lo->v[V_TIME] * n + v[V_TIME]) / (n + 1);
			if (mj >= 0 && lo->v[V_ENERGY] >= 0)
				v[V_ENERGY] = (lo->v[V_ENERGY] * n + mj) / (n + 1);
			else if (mj < 0)
				v[V_ENERGY] = lo->v[V_ENERGY]; /* not measured this time */
			v[V_RUNS] = lo->v[V_RUNS] + 1;
		}
		profstore_put(ps, KIND, keys, j->size, v);
		if (clock_ms() - p->saved_at >= SAVE_EVERY_MS) {
			(void)profstore_save(ps, &e); /* a lost measurement is only a lost one */
			p->saved_at = clock_ms();
		}
	}
}

void placer_job_ended(void *arg, int status, const struct run_stats *st)
{
	struct inflight *j = arg, **pp;
	struct placer *p = j->p;

	pthread_mutex_lock(&p->lock);
	learn(j, status, st);
	for (pp = &p->jobs; *pp && *pp != j; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = j->next;
	p->last_end[j->dev] = clock_ms();
	p->ended[j->dev]++;
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < 3; i++)
		free(j->keys[i]);
	free(j);
}
