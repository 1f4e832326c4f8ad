/* A warm worker's resident buffers (exec/workerres.h). */
#include "exec/workerres.h"

#include <stdlib.h>
#include <string.h>

#include "exec/jobcopies.h"
#include "exec/resident.h"
#include "exec/stage.h"
#include "runtime/feeder.h"
#include "util/alloc.h"
#include "util/clock.h"

/* The generation of each buffer's copies here, as the shell counts them. */
struct held {
	char *shm;
	uint64_t gen;
	struct held *next;
};

/* Devices with jobs' work still queued, not yet waited for (there are few devices). */
#define QUEUED_MAX 16

struct wres {
	struct resident *r; /* the device copies, and which of them are current */
	struct held *held;
	struct rt_dev *queued[QUEUED_MAX];
	size_t nqueued;
	bool faulted; /* queued work failed: nothing on these devices is to be trusted */
};

struct wres *wres_new(void)
{
	struct wres *w = xcalloc(1, sizeof(*w));

	w->r = resident_new();
	resident_guard_cpu(w->r);
	return w;
}

static void held_free(struct held *h)
{
	while (h) {
		struct held *next = h->next;

		free(h->shm);
		free(h);
		h = next;
	}
}

void wres_free(struct wres *w)
{
	if (!w)
		return;
	resident_free(w->r);
	held_free(w->held);
	free(w);
}

static struct held *held_of(struct wres *w, const char *shm, bool make)
{
	struct held *h;

	for (h = w->held; h; h = h->next)
		if (strcmp(h->shm, shm) == 0)
			return h;
	if (!make)
		return NULL;
	h = xcalloc(1, sizeof(*h));
	h->shm = xstrdup(shm);
	h->next = w->held;
	w->held = h;
	return h;
}

void wres_drop(struct wres *w, const char *shm)
{
	struct held **pp;

	if (!shm) {
		resident_forget_all(w->r);
		held_free(w->held);
		w->held = NULL;
		return;
	}
	resident_forget(w->r, shm);
	for (pp = &w->held; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->shm, shm) == 0) {
			struct held *h = *pp;

			*pp = h->next;
			h->next = NULL;
			held_free(h);
			return;
		}
}

/* Wait for the work queued by earlier jobs; its failure (a kernel fault found only now)
 * is reported once, and the worker is not trusted after it (wres_faulted). */
static int finish_queued(struct wres *w, struct cs_err *e)
{
	struct cs_err dev_err;
	int rc = 0;

	for (size_t i = 0; i < w->nqueued; i++)
		if (rt_dev_finish(w->queued[i], rc ? &dev_err : e) && rc == 0)
			rc = -1;
	w->nqueued = 0;
	if (rc) {
		w->faulted = true;
		return err_prefix(e, "the work an earlier job queued failed: ");
	}
	return 0;
}

/* The job left work queued on dev (rt_exec.unfinished): waited for at the next wait. */
static int note_queued(struct wres *w, struct rt_dev *dev, struct cs_err *e)
{
	for (size_t i = 0; i < w->nqueued; i++)
		if (w->queued[i] == dev)
			return 0;
	if (w->nqueued == QUEUED_MAX)
		return rt_dev_finish(dev, e);
	w->queued[w->nqueued++] = dev;
	return 0;
}

int wres_finish(struct wres *w, struct cs_err *e)
{
	return finish_queued(w, e);
}

bool wres_faulted(const struct wres *w)
{
	return w->faulted;
}

int wres_write_back(struct wres *w, const char *shm, uint64_t gen, struct cs_err *e)
{
	struct held *h = held_of(w, shm, false);

	if (finish_queued(w, e))
		return -1;
	if (!h || h->gen != gen)
		return err_set(e, "worker: no copy of buffer %s at generation %llu here", shm,
		               (unsigned long long)gen);
	return resident_to_host_again(w->r, shm, e);
}

int wres_narrow(struct wres *w, const char *shm, uint64_t gen, struct cs_err *e)
{
	struct held *h = held_of(w, shm, false);

	if (finish_queued(w, e))
		return -1;
	if (!h || h->gen != gen)
		return err_set(e, "worker: no copy of buffer %s at generation %llu here", shm,
		               (unsigned long long)gen);
	return resident_narrow(w->r, shm, e);
}

/* ---- one job ---- */

struct wjob {
	struct wres *w;
	struct job_plan *jp;
	const struct job_home *homes;
	struct rt_exec *x;
	cl_mem *own; /* private copies of read-only inputs of swap pairs */
	struct run_stats *st;
	/* Per argument: the generation kept here for its buffer, found while acquiring it (a
	 * copy said to be here), so that the store does not look it up again; else NULL. */
	struct held **held;
};

/* The shell's word on where the data is: a copy said to be here must be, at that
 * generation; one said to be in shared memory makes the copies here stale. */
static int agree(struct wres *w, const char *shm, const struct job_home *home, struct held **found,
                 struct cs_err *e)
{
	struct held *h;

	if (!home->here) {
		resident_host_wrote(w->r, shm);
		return 0;
	}
	h = held_of(w, shm, false);
	*found = h;
	if (!h || h->gen != home->gen)
		return err_set(e, "worker: no copy of buffer %s at generation %llu here", shm,
		               (unsigned long long)home->gen);
	return 0;
}

static int acquire(struct wjob *j, size_t i, struct cs_err *e)
{
	const struct kernel_arg *a = &j->jp->kp.args[i];
	const char *shm = j->jp->binds[i].shm;

	const struct job_home *home = &j->homes[i];

	/* Read for an Output too: it starts as the buffer's contents (docs/formats.md), so the
	 * elements its kernel does not write keep their values. Contents that are one value
	 * repeated (a new buffer's zeros, a value fill) are made on the device: nothing moves. */
	if (agree(j->w, shm, home, &j->held[i], e))
		return -1;
	if (!home->here && home->pixels) {
		if (resident_acquire_widened(j->w->r, shm, a->bytes, j->x->dev, home->scalar,
		                             &j->x->given[i], &j->st->h2d_ms, e))
			return -1;
	} else if (job_home_filled(home, a->bytes)) {
		if (resident_acquire_filled(j->w->r, shm, a->bytes, j->x->dev, home->value,
		                            home->uniform, &j->x->given[i], e))
			return -1;
	} else if (resident_acquire(j->w->r, shm, a->bytes, j->x->dev, true, &j->x->given[i],
	                            &j->st->h2d_ms, e)) {
		return -1;
	}
	if (a->kind == ARG_INPUT && job_pair_input(&j->jp->kp, i)) {
		if (job_private_copy(j->x->dev, &j->x->given[i], a->bytes, e))
			return -1;
		j->own[i] = j->x->given[i];
		/* The feeder borrows the buffers it is given, and a private copy ends with the
		 * job. */
		j->x->feed = false;
	}
	return 0;
}

/* Runs once the device has accepted the plan (rt_exec.stage): a plan it cannot run fails
 * before any data moves. */
static int stage_hook(void *arg, struct cs_err *e)
{
	struct wjob *j = arg;
	double t0;
	int rc;

	for (size_t i = 0; i < j->jp->kp.nargs; i++)
		if (job_bound_to_buffer(j->jp, i) && acquire(j, i, e))
			return err_prefix(e, "stream '%s': ", j->jp->kp.args[i].name);
	t0 = clock_ms();
	rc = stage_in_files(j->jp, e);
	j->st->in_ms += stage_files_ms(j->jp, t0);
	return rc;
}

static bool among(cl_mem m, const cl_mem *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == m)
			return true;
	return false;
}

/* Whether every argument ends on the buffer it was given (no swaps moved them). */
static bool finals_given(const cl_mem *final, const cl_mem *given, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (final[i] && final[i] != given[i])
			return false;
	return true;
}

/* What the job wrote becomes the buffers' copies here, one generation on; what it read is
 * current here at its generation. After swaps a buffer's old copy may be another's new
 * one: every final buffer is held until each copy has its new one. Without swaps each copy
 * keeps its buffer, and nothing is held: no reference counting per job, which NVIDIA's
 * driver serialises with launches. */
static void store(struct wjob *j, cl_mem *final)
{
	struct job_plan *jp = j->jp;
	size_t n = jp->kp.nargs;
	bool hold = !finals_given(final, j->x->given, n);

	for (size_t i = 0; hold && i < n; i++)
		if (final[i])
			(void)clRetainMemObject(final[i]);
	for (size_t i = 0; i < n; i++) {
		bool wrote = jp->kp.args[i].kind != ARG_INPUT;

		if (!job_bound_to_buffer(jp, i))
			continue;
		if (wrote && final[i])
			resident_store(j->w->r, jp->binds[i].shm, j->x->dev, final[i], NULL);
		(j->held[i] ? j->held[i] : held_of(j->w, jp->binds[i].shm, true))->gen =
		        j->homes[i].gen + (wrote ? 1 : 0);
	}
	for (size_t i = 0; i < n; i++) {
		if (!final[i])
			continue;
		if (hold)
			(void)clReleaseMemObject(final[i]);
		if (!among(final[i], j->x->given, n))
			(void)clReleaseMemObject(final[i]);
		final[i] = NULL;
	}
}

/* Whether a job on dev may return with its kernels queued. Not on a CPU device: its kernels
 * run in this process, and one that faults kills it — waiting makes the crash that job's,
 * reported with its kernel's name, instead of the next one's. A GPU's fault comes back as
 * an error at the next wait. CARSH_QUEUE_CPU=1 (a test hook) queues on a CPU too. */
static bool may_queue(const struct rt_dev *dev)
{
	const char *hook = getenv("CARSH_QUEUE_CPU");

	return !(dev->info->type & CL_DEVICE_TYPE_CPU) || (hook && strcmp(hook, "1") == 0);
}

/* The plan's device and kernel: those kept with it, else the session's, then kept. A kept
 * plan's program was found in the session before: the statistics say so, as the look-up
 * would. */
static int resolve(struct rt_session *s, struct wjob *j, struct plan_bound *bound, struct cs_err *e)
{
	struct job_plan *jp = j->jp;

	if (bound && bound->dev) {
		j->x->dev = bound->dev;
		j->x->kern = bound->kern;
		memcpy(j->st->device, bound->dev->label, sizeof(j->st->device));
		j->st->cache_hit = true;
		return 0;
	}
	if (rt_session_device(s, &jp->kp, &j->x->dev, j->st, e) ||
	    rt_session_kernel(s, j->x->dev, &jp->kp, &j->x->kern, j->st, e)) {
		kernel_plan_err_label(&jp->kp, e);
		return -1;
	}
	if (bound)
		*bound = (struct plan_bound){j->x->dev, j->x->kern};
	return 0;
}

static int run_on_device(struct rt_session *s, struct wjob *j, struct plan_bound *bound,
                         struct cs_err *e)
{
	struct job_plan *jp = j->jp;
	double t0;
	int rc;

	if (resolve(s, j, bound, e))
		return -1;
	j->x->wait = j->x->profile || !may_queue(j->x->dev);
	if (rt_execute(j->x, j->st, e))
		return -1;
	store(j, j->x->final);
	t0 = clock_ms();
	rc = stage_out(jp, e) ? err_prefix(e, "%s: ", jp->kp.label) : 0;
	j->st->out_ms += stage_files_ms(jp, t0);
	return rc;
}

/* After the job's device work: what it left queued is noted; a job that waited (an
 * output on the host) waits for what earlier jobs queued too, and fails with their fault. */
static int settle_queue(struct wres *w, struct rt_exec *x, struct run_stats *st, struct cs_err *e)
{
	int rc = 0;

	if (x->done)
		(void)clReleaseEvent(x->done);
	x->done = NULL;
	if (x->pending)
		rc = rt_pending_harvest(x->pending, st, e);
	x->pending = NULL;
	if (rc == 0 && x->unfinished)
		return note_queued(w, x->unfinished, e);
	return rc ? rc : finish_queued(w, e);
}

/* Up to this many arguments a job's per-argument arrays are on the stack. */
#define FEW_ARGS 16

int wres_run(struct wres *w, struct rt_session *s, struct job_plan *jp, struct plan_bound *bound,
             const struct job_home *homes, bool profile, struct job_result *res)
{
	size_t n = jp->kp.nargs ? jp->kp.nargs : 1;
	/* given, final and own side by side; most kernels have few arguments: no allocation. */
	cl_mem few[3 * FEW_ARGS] = {NULL};
	struct held *few_held[FEW_ARGS] = {NULL};
	cl_mem *given = n <= FEW_ARGS ? few : xcalloc(3 * n, sizeof(cl_mem));
	struct held **held = n <= FEW_ARGS ? few_held : xcalloc(n, sizeof(*held));
	/* Profiled work is waited for: its times are the job's answer. A plain launch goes
	 * through the device's feeder (runtime/feeder.h), as the thread executor's: the driver's
	 * enqueue (about 9 us a job on NVIDIA's) overlaps the worker reading and decoding the
	 * next job. */
	struct rt_exec x = {.kp = &jp->kp,
	                    .wait = true,
	                    .profile = profile,
	                    .feed = !profile,
	                    .given = given,
	                    .final = given + n,
	                    .stage = stage_hook};
	struct wjob j = {w, jp, homes, &x, given + 2 * n, &res->stats, held};
	double t0 = clock_ms();
	struct cs_err e, ignored;
	int rc;

	err_clear(&e);
	x.stage_arg = &j;
	memset(&res->stats, 0, sizeof(res->stats));
	rc = run_on_device(s, &j, bound, &e);
	if (settle_queue(w, &x, &res->stats, rc ? &ignored : &e) && rc == 0)
		rc = -1;
	res->has_stats = rc == 0;
	/* final holds references only to what the runtime made for this job (on an error,
	 * what store did not get to). */
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		if (x.final[i] && !among(x.final[i], given, jp->kp.nargs))
			(void)clReleaseMemObject(x.final[i]);
		if (j.own[i])
			(void)clReleaseMemObject(j.own[i]);
	}
	stage_release(jp);
	if (given != few) {
		free(given);
		free(held);
	}
	res->stats.wall_ms = clock_ms() - t0;
	job_result_set_msg(res, &e);
	return rc ? 1 : 0;
}
