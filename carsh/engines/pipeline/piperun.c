/* Running items under one configuration (engines/pipeline/piperun.h). */
#include "engines/pipeline/piperun.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/clock.h"

static double now_s(void)
{
	return clock_ms() / 1000.0;
}

unsigned prun_threads(const struct prun_env *env, const struct prun_policy *pol)
{
	unsigned n = pol->c.mg ? env->dv->nc + 1 : pol->c.threads;

	return n < env->nslots ? n : env->nslots;
}

/* ---- a batch of items started at once (the training's experiments) ---- */

/* The threads of a batch wait at the gate until all of them exist. */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open, abort;
};

struct bjob {
	struct pworker w;
	struct pitem *it;
	struct prun_item *rec;
	struct gate *gate;
	size_t seq; /* items this thread runs one after the other: its own and the next seq-1 */
	double end;
	double cpu; /* the thread's CPU time over its items, seconds */
	int rc;
	struct cs_err err;
	pthread_t th;
};

/* The calling thread's CPU time in seconds (0 where the clock is missing). */
static double thread_cpu_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *batch_thread(void *arg)
{
	struct bjob *j = arg;
	double cpu0;
	bool go;

	pthread_mutex_lock(&j->gate->lock);
	while (!j->gate->open)
		pthread_cond_wait(&j->gate->cond, &j->gate->lock);
	go = !j->gate->abort;
	pthread_mutex_unlock(&j->gate->lock);
	cpu0 = thread_cpu_s();
	for (size_t i = 0; go && i < j->seq && j->rc == 0; i++)
		j->rc = pstage_item(&j[i].w, j[i].it, j[i].rec, &j->err);
	j->cpu = thread_cpu_s() - cpu0;
	j->end = now_s();
	return NULL;
}

static void gate_open(struct gate *g, bool abort)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	g->abort = abort;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/* Start the n threads together (a thread with seq > 1 runs the jobs after its own too). */
static int batch_go(struct bjob *j, size_t n, struct energy_meter *m, struct prun_batch *out,
                    struct cs_err *e)
{
	struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false};
	size_t started = 0;
	double t0;
	int rc = 0;

	for (size_t i = 0; i < n; i += j[i].seq) {
		j[i].gate = &g;
		if (pthread_create(&j[i].th, NULL, batch_thread, &j[i]) != 0)
			break;
		started = i + j[i].seq;
	}
	if (started < n)
		rc = err_set(e, "cannot start worker thread %zu", started + 1);
	if (m && rc == 0)
		energy_start(m);
	t0 = now_s();
	gate_open(&g, rc != 0);
	for (size_t i = 0; i < started; i += j[i].seq) {
		pthread_join(j[i].th, NULL);
		if (j[i].end - t0 > out->wall)
			out->wall = j[i].end - t0;
		out->cpu += j[i].cpu;
		if (j[i].rc && rc == 0)
			rc = err_set(e, "%s", j[i].err.msg);
	}
	if (m && started == n)
		energy_stop(m, &out->en);
	pthread_mutex_destroy(&g.lock);
	pthread_cond_destroy(&g.cond);
	return rc;
}

/* The serial stages of a batch, one item after the other, outside its timed part. */
static int batch_serial(struct bjob *j, size_t n, size_t first, bool in, struct prun_batch *out,
                        struct cs_err *e)
{
	for (size_t i = 0; i < n; i++) {
		double t = now_s();
		const struct pipe_plan *pp = j[i].w.env->pp;
		int rc = in ? pstage_read(pp, j[i].it, first + i, e) : pstage_write(pp, j[i].it, e);

		if (in)
			out->t_in += j[i].rec->t_in = now_s() - t;
		else
			out->t_out += now_s() - t;
		if (rc)
			return -1;
	}
	return 0;
}

/* The GPU's feeder beside a batch: one more thread that runs an item through every stage on
 * the GPU again and again, its results thrown away, from before the batch's threads start
 * until they are done — the GPU path of a coupled run beside its CPU threads. Its first item
 * warms up, untimed; the next PRUN_ALONE run alone, back to back, timed (a DP run's GPU path
 * with no CPU thread beside it); then the batch starts. */
#define PRUN_ALONE 3

struct feeder {
	struct pworker w;
	struct pitem *it;
	size_t index;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool fed, stop; /* fed: its items alone are done (the batch may start) */
	size_t items;
	double alone[PRUN_ALONE]; /* the items alone, wall time in pstage_item */
	double *beside;           /* each item's wall time beside the batch */
	size_t nbeside, cap;
	int rc;
	struct cs_err err;
	pthread_t th;
};

static const struct prun_policy warm_gpu = {.c = {false, false, 1, 0}, .gpu_all = true};

static int warm_once(struct pworker *w, struct pitem *it, size_t index, struct prun_item *rec,
                     struct cs_err *e);

static void *feeder_thread(void *arg)
{
	struct feeder *f = arg;
	struct prun_item rec;
	bool stop = false;

	memset(&rec, 0, sizeof(rec));
	while (!stop) {
		int rc = warm_once(&f->w, f->it, f->index, &rec, &f->err);

		pthread_mutex_lock(&f->lock);
		f->rc = rc;
		if (f->fed) {
			f->beside = xgrow(f->beside, &f->cap, f->nbeside + 1, sizeof(*f->beside));
			f->beside[f->nbeside++] = rec.wall;
		} else if (f->items > 0)
			f->alone[f->items - 1] = rec.wall;
		f->items++;
		f->fed = f->fed || f->items > PRUN_ALONE || rc;
		stop = f->stop || rc;
		pthread_cond_broadcast(&f->cond);
		pthread_mutex_unlock(&f->lock);
	}
	return NULL;
}

/* Start the feeder on slot `slot` and wait for its items alone; 0, or -1 with e set. */
static int feeder_start(struct feeder *f, struct prun_env *env, unsigned slot, size_t index,
                        struct cs_err *e)
{
	pworker_init(&f->w, env, &warm_gpu, &env->slots[slot], slot);
	f->it = pitem_get(env->pool);
	f->index = index;
	if (pthread_create(&f->th, NULL, feeder_thread, f) != 0) {
		pitem_put(env->pool, f->it);
		return err_set(e, "cannot start the GPU's feeder thread");
	}
	pthread_mutex_lock(&f->lock);
	while (!f->fed)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
	return 0;
}

/* Stop the feeder after its current item; its error, if any, into e (rc is the batch's). */
static int feeder_stop(struct feeder *f, struct prun_env *env, int rc, struct cs_err *e)
{
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->th, NULL);
	pitem_put(env->pool, f->it);
	if (f->rc && rc == 0)
		rc = err_set(e, "the GPU's feeder: %s", f->err.msg);
	return rc;
}

static int batch_run(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t n,
                     bool one_thread, struct feeder *fd, struct energy_meter *m,
                     struct prun_batch *out, struct cs_err *e)
{
	struct bjob *j;
	double t = now_s();
	int rc;

	memset(out, 0, sizeof(*out));
	if (n == 0 || (!one_thread && n + (fd ? 1 : 0) > env->nslots) ||
	    n + (fd ? 1 : 0) > env->pool->n)
		return err_set(e, "internal error: a batch of %zu items", n);
	out->rec = xcalloc(n, sizeof(*out->rec));
	j = xcalloc(n, sizeof(*j));
	for (size_t i = 0; i < n; i++) {
		unsigned slot = one_thread ? 0 : (unsigned)i;

		pworker_init(&j[i].w, env, pol, &env->slots[slot], slot);
		j[i].rec = &out->rec[i];
		j[i].it = pitem_get(env->pool);
		j[i].seq = one_thread ? n - i : 1;
	}
	rc = batch_serial(j, n, first, true, out, e);
	if (rc == 0 && fd)
		rc = feeder_start(fd, env, (unsigned)n, first, e);
	if (rc == 0) {
		rc = batch_go(j, n, m, out, e);
		if (fd)
			rc = feeder_stop(fd, env, rc, e);
	}
	if (rc == 0)
		rc = batch_serial(j, n, first, false, out, e);
	for (size_t i = 0; i < n; i++)
		pitem_put(env->pool, j[i].it);
	free(j);
	out->total = now_s() - t;
	return rc;
}

int prun_batch(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t n,
               struct energy_meter *m, struct prun_batch *out, struct cs_err *e)
{
	return batch_run(env, pol, first, n, false, NULL, m, out, e);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0 .. n-1] (sorted in place); 0 for none. */
static double median_of(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int prun_batch_beside(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t n,
                      struct energy_meter *m, struct prun_batch *out, struct prun_fed *fed,
                      struct cs_err *e)
{
	struct feeder f = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
	double sum = 0;
	int rc;

	*fed = (struct prun_fed){0, 0, 0};
	if (!env->dv->has_gpu)
		return err_set(e, "internal error: a batch beside the GPU without one");
	rc = batch_run(env, pol, first, n, false, &f, m, out, e);
	for (size_t i = 0; i < f.nbeside; i++)
		sum += f.beside[i];
	fed->item = f.nbeside ? sum / (double)f.nbeside : 0;
	fed->median = median_of(f.beside, f.nbeside);
	fed->alone = f.items > PRUN_ALONE ? median_of(f.alone, PRUN_ALONE) : 0;
	free(f.beside);
	pthread_mutex_destroy(&f.lock);
	pthread_cond_destroy(&f.cond);
	return rc;
}

int prun_sequence(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t n,
                  struct energy_meter *m, struct prun_batch *out, struct cs_err *e)
{
	return batch_run(env, pol, first, n, true, NULL, m, out, e);
}

/* ---- a stream of items (the running phase) ---- */

struct stream {
	struct prun_env *env;
	const struct prun_policy *pol;
	pthread_mutex_t lock; /* what follows, but the serial Input stage's own */
	pthread_mutex_t in;   /* the serial Input stage */
	pthread_cond_t ready; /* an item waits for the Output stage, or the workers are done */
	size_t next, end;
	bool stop, failed, workers_done;
	struct cs_err err;
	double t0;
	size_t cap;
	struct pitem **outq; /* items done by the workers, for the Output stage, FIFO */
	size_t out_head, out_n;
	const struct prun_limits *lim;
	bool fed; /* the Input stage has given its last item: res->t_fed is set */
	struct prun_stream *res;
};

struct sworker {
	struct stream *st;
	struct pworker w;
	pthread_t th;
	bool started;
};

static void stream_fail(struct stream *st, const struct cs_err *e)
{
	pthread_mutex_lock(&st->lock);
	if (!st->failed)
		memcpy(st->err.msg, e->msg, sizeof(e->msg));
	st->failed = st->stop = true;
	pthread_mutex_unlock(&st->lock);
}

/* The next item's number, or SIZE_MAX when there is none to take; *t: when (seconds from the
 * start). The first refusal ends the time in which the pipeline was fed. */
static size_t take_item(struct stream *st, double *t)
{
	size_t i = SIZE_MAX;

	pthread_mutex_lock(&st->lock);
	*t = now_s() - st->t0;
	if (st->env->interrupted && *st->env->interrupted)
		st->stop = true;
	if (st->lim->deadline > 0 && *t >= st->lim->deadline)
		st->stop = true;
	if (!st->stop && st->next < st->end)
		i = st->next++;
	else if (!st->fed) {
		st->fed = true;
		st->res->t_fed = *t;
	}
	pthread_mutex_unlock(&st->lock);
	return i;
}

static void path_add(struct prun_path *p, const struct prun_item *rec, size_t nstages)
{
	p->items++;
	p->wall += rec->wall;
	for (size_t k = 0; k < nstages; k++)
		p->stage[k] += rec->stage[k];
}

/* A worker's item is on the host: the Output stage's turn. */
static void hand_over(struct stream *st, struct pitem *it, double t_in, const struct prun_item *rec)
{
	struct prun_stream *r = st->res;
	size_t n = st->env->pool->n;

	pthread_mutex_lock(&st->lock);
	st->outq[(st->out_head + st->out_n++) % n] = it;
	r->t_in += t_in;
	path_add(rec->gpu ? &r->gpu : &r->cpu, rec, st->env->pp->nstages);
	pthread_cond_signal(&st->ready);
	pthread_mutex_unlock(&st->lock);
}

/* The test hook's wait after an item (prun_policy.delay). */
static void test_delay(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};

	while (secs > 0 && nanosleep(&ts, &ts) != 0)
		continue; /* EINTR: the rest of it */
}

static void *stream_thread(void *arg)
{
	struct sworker *sw = arg;
	struct stream *st = sw->st;
	struct cs_err e;

	for (;;) {
		struct pitem *it = pitem_get(st->env->pool);
		struct prun_item rec;
		size_t i;
		double t;
		int rc;

		memset(&rec, 0, sizeof(rec));
		pthread_mutex_lock(&st->in);
		i = take_item(st, &it->t_take);
		t = now_s();
		rc = i == SIZE_MAX ? 0 : pstage_read(st->env->pp, it, i, &e);
		t = now_s() - t;
		pthread_mutex_unlock(&st->in);
		if (i == SIZE_MAX) {
			pitem_put(st->env->pool, it);
			break;
		}
		if (rc || pstage_item(&sw->w, it, &rec, &e)) {
			pitem_put(st->env->pool, it);
			stream_fail(st, &e);
			break;
		}
		test_delay(sw->w.pol->delay);
		hand_over(st, it, t, &rec);
	}
	return NULL;
}

/* Item it written: its times, the progress line, the caller's stop rule. */
static void completed(struct stream *st, const struct pitem *it)
{
	struct prun_stream *r = st->res;
	double t = now_s() - st->t0;

	if (r->done == st->cap) {
		size_t cap = st->cap;

		r->t_done = xgrow(r->t_done, &st->cap, r->done + 1, sizeof(double));
		r->t_take = xgrow(r->t_take, &cap, r->done + 1, sizeof(double));
	}
	r->t_take[r->done] = it->t_take;
	r->t_done[r->done++] = t;
	if (st->env->progress)
		st->env->progress(st->env->progress_arg, r->done);
	if (st->lim->stop && !st->stop && st->lim->stop(st->lim->stop_arg, t, r->done))
		st->stop = r->stopped = true;
}

/* The serial Output stage: items in the order the workers finish them (each goes to a file
 * of its own). After a failure it only gives the tokens back. */
static void *output_thread(void *arg)
{
	struct stream *st = arg;
	size_t n = st->env->pool->n;
	struct cs_err e;

	pthread_mutex_lock(&st->lock);
	for (;;) {
		struct pitem *it;
		double t;
		int rc = 0;

		while (st->out_n == 0 && !st->workers_done)
			pthread_cond_wait(&st->ready, &st->lock);
		if (st->out_n == 0)
			break;
		it = st->outq[st->out_head];
		st->out_head = (st->out_head + 1) % n;
		st->out_n--;
		if (!st->failed) {
			pthread_mutex_unlock(&st->lock);
			t = now_s();
			rc = pstage_write(st->env->pp, it, &e);
			t = now_s() - t;
			pthread_mutex_lock(&st->lock);
			st->res->t_out += t;
			if (rc) {
				if (!st->failed)
					memcpy(st->err.msg, e.msg, sizeof(e.msg));
				st->failed = st->stop = true;
			} else {
				completed(st, it);
			}
		}
		pthread_mutex_unlock(&st->lock);
		pitem_put(st->env->pool, it);
		pthread_mutex_lock(&st->lock);
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

static int stream_status(struct stream *st, struct cs_err *e)
{
	if (st->failed) {
		memcpy(e->msg, st->err.msg, sizeof(e->msg));
		return 1;
	}
	if (st->env->interrupted && *st->env->interrupted) {
		err_set(e, "interrupted");
		return 130;
	}
	return 0;
}

static void stream_workers(struct stream *st, struct sworker *sw, unsigned nw)
{
	for (unsigned i = 0; i < nw; i++) {
		sw[i].st = st;
		pworker_init(&sw[i].w, st->env, st->pol, &st->env->slots[i], i);
		if (pthread_create(&sw[i].th, NULL, stream_thread, &sw[i]) != 0) {
			struct cs_err why;

			err_set(&why, "cannot start worker thread %u", i + 1);
			stream_fail(st, &why);
			break;
		}
		sw[i].started = true;
	}
	for (unsigned i = 0; i < nw; i++)
		if (sw[i].started)
			pthread_join(sw[i].th, NULL);
}

int prun_stream(struct prun_env *env, const struct prun_policy *pol, size_t first, size_t end,
                const struct prun_limits *lim, struct energy_meter *m, struct prun_stream *out,
                struct cs_err *e)
{
	unsigned nw = prun_threads(env, pol);
	struct sworker *sw = xcalloc(nw, sizeof(*sw));
	struct stream st;
	pthread_t writer;
	bool writing;
	int rc;

	memset(out, 0, sizeof(*out));
	st = (struct stream){
	        .env = env, .pol = pol, .next = first, .end = end, .lim = lim, .res = out};
	st.outq = xcalloc(env->pool->n, sizeof(*st.outq));
	pthread_mutex_init(&st.lock, NULL);
	pthread_mutex_init(&st.in, NULL);
	pthread_cond_init(&st.ready, NULL);
	env->pool->limit = lim->tokens < env->pool->n ? lim->tokens : env->pool->n;
	if (m)
		energy_start(m);
	st.t0 = now_s();
	writing = pthread_create(&writer, NULL, output_thread, &st) == 0;
	if (writing) {
		stream_workers(&st, sw, nw);
	} else {
		struct cs_err why;

		err_set(&why, "cannot start the output thread");
		stream_fail(&st, &why);
	}
	pthread_mutex_lock(&st.lock);
	st.workers_done = true;
	pthread_cond_signal(&st.ready);
	pthread_mutex_unlock(&st.lock);
	if (writing)
		pthread_join(writer, NULL);
	out->wall = now_s() - st.t0;
	if (!st.fed)
		out->t_fed = out->wall; /* every worker failed before asking again */
	if (m)
		energy_stop(m, &out->en);
	env->pool->limit = env->pool->n;
	rc = stream_status(&st, e);
	pthread_mutex_destroy(&st.lock);
	pthread_mutex_destroy(&st.in);
	pthread_cond_destroy(&st.ready);
	free(st.outq);
	free(sw);
	return rc;
}

/* ---- warm-up ---- */

/* Item index once through w, untimed (rec is scratch). */
static int warm_once(struct pworker *w, struct pitem *it, size_t index, struct prun_item *rec,
                     struct cs_err *e)
{
	return pstage_read(w->env->pp, it, index, e) || pstage_item(w, it, rec, e) ? -1 : 0;
}

int prun_warm_up(struct prun_env *env, size_t index, struct cs_err *e)
{
	static const struct prun_policy cg = {.c = {false, false, 1, 0}};
	static const struct prun_policy mg = {.c = {false, true, 1, 0}};
	struct pitem *it = pitem_get(env->pool);
	struct pworker w;
	struct prun_item rec;
	int rc = 0;

	memset(&rec, 0, sizeof(rec));
	/* Every core's queue, then every slot's whole-CPU and GPU queues. */
	for (unsigned c = 0; c < env->dv->nc && rc == 0; c++) {
		pworker_init(&w, env, &cg, &env->slots[0], c);
		w.pin = (int)c;
		rc = warm_once(&w, it, index, &rec, e);
	}
	for (unsigned sl = 0; sl < env->nslots && rc == 0; sl++)
		for (int p = 0; p < (env->dv->has_gpu ? 2 : 1) && rc == 0; p++) {
			pworker_init(&w, env, p ? &warm_gpu : &mg, &env->slots[sl], sl);
			rc = warm_once(&w, it, index, &rec, e);
		}
	pitem_put(env->pool, it);
	return rc ? err_prefix(e, "warm-up: ") : 0;
}

int prun_warm_gpu(struct prun_env *env, size_t index, unsigned n, struct cs_err *e)
{
	struct pitem *it = pitem_get(env->pool);
	struct pworker w;
	struct prun_item rec;
	int rc = 0;

	memset(&rec, 0, sizeof(rec));
	pworker_init(&w, env, &warm_gpu, &env->slots[0], 0);
	for (unsigned i = 0; i < n && rc == 0; i++)
		rc = warm_once(&w, it, index, &rec, e);
	pitem_put(env->pool, it);
	return rc ? err_prefix(e, "warming the GPU up: ") : 0;
}
