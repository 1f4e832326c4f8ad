#include "runtime/feeder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"

/* How long an idle feeder polls before it sleeps: a batch hands launches over every few
 * microseconds, and waking a sleeping thread costs about as much as the launch itself. */
#define SPIN_NS 200000L

/* A value argument as last set on a clone: the object keeps it, so setting it again to the
 * same bytes is skipped (NVIDIA spends host time on every clSetKernelArg; a batch sets the
 * same sizes and counts launch after launch). Buffers are always set: a released buffer's
 * handle may come back for a new one, which the driver must be told of. Values longer than
 * this are always set. */
#define KEPT_BYTES 16
#define KEPT_ARGS  16

struct kept_arg {
	size_t size; /* 0: not set yet, or not set with a value kept here */
	unsigned char bytes[KEPT_BYTES];
};

/* The feeder's own object of a session kernel: the session's is shared with the jobs that
 * set arguments themselves, under the kernel's lock, which the feeder must never wait for. */
struct clone {
	cl_kernel of;
	cl_kernel own;
	struct kept_arg kept[KEPT_ARGS];
	struct clone *next;
};

struct rt_feeder {
	struct rt_dev *dev;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work; /* something was handed over, or stop */
	pthread_cond_t idle; /* nothing handed over is left to queue */
	struct feed_launch *head, *tail;
	/* Queued launches, freed by the next thread that hands one over: the memory goes back
	 * to the thread that took it, where a free from the feeder would contend with the
	 * shell's next malloc for the arena's lock (a futex call on both sides). */
	struct feed_launch *done;
	int has_work; /* read without the lock while polling */
	bool busy, sleeping, stopping;
	bool nudged; /* woken with nothing to do: it polls again (rt_feeder_wake) */
	/* Read by the feeder without the lock: a failure not reported yet; the hand-overs up to
	 * the last report (what was handed over before a failure was reported is dropped). */
	bool failed;
	unsigned long handed, drop_upto;
	struct cs_err error; /* the first failure, until reported */
	struct clone *clones;
};

/* 0 off, 1 on, 2 auto; -1 not read yet. Read again by each thread-executor session, so a
 * session worker that serves a second session warns that session too. */
static _Atomic int feeder_env = -1;

void rt_feeder_read_env(void)
{
	const char *v = getenv("CARSH_FEEDER");

	if (!v || !v[0] || strcmp(v, "auto") == 0)
		feeder_env = 2;
	else if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0)
		feeder_env = v[1] == 'n';
	else {
		fprintf(stderr, "carsh: CARSH_FEEDER='%s' is not on, off or auto; using auto\n", v);
		feeder_env = 2;
	}
}

bool rt_feeder_wanted(const struct rt_devinfo *info)
{
	if (feeder_env < 0)
		rt_feeder_read_env();
	return feeder_env == 2 ? !(info->type & CL_DEVICE_TYPE_CPU) : feeder_env == 1;
}

struct feed_launch *feed_launch_new(cl_uint nargs, size_t value_bytes)
{
	struct feed_launch *l =
	        xcalloc(1, sizeof(*l) + nargs * sizeof(struct feed_arg) + value_bytes);

	l->nargs = nargs;
	l->args = (struct feed_arg *)(l + 1);
	l->values = (unsigned char *)(l->args + nargs);
	return l;
}

void feed_launch_free(struct feed_launch *l)
{
	free(l); /* its buffers are borrowed */
}

static int fail(struct rt_feeder *f, const struct feed_launch *l, const char *what, cl_int err)
{
	pthread_mutex_lock(&f->lock);
	if (!f->failed) {
		if (l->kernel)
			err_set(&f->error, "kernel '%s' on %s: %s failed: %s", l->name,
			        f->dev->info->name, what, rt_cl_error_name(err));
		else
			err_set(&f->error, "filling a virtual buffer on '%s': %s failed: %s",
			        f->dev->info->name, what, rt_cl_error_name(err));
		__atomic_store_n(&f->failed, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&f->lock);
	return -1;
}

static struct clone *own_kernel(struct rt_feeder *f, cl_kernel of, cl_int *err)
{
	struct clone *c;
	cl_program prog;
	cl_kernel k;
	char name[256];

	for (c = f->clones; c; c = c->next)
		if (c->of == of)
			return c;
	*err = clGetKernelInfo(of, CL_KERNEL_PROGRAM, sizeof(prog), &prog, NULL);
	if (*err == CL_SUCCESS)
		*err = clGetKernelInfo(of, CL_KERNEL_FUNCTION_NAME, sizeof(name), name, NULL);
	if (*err != CL_SUCCESS)
		return NULL;
	k = clCreateKernel(prog, name, err);
	if (*err != CL_SUCCESS)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->of = of;
	c->own = k;
	c->next = f->clones;
	f->clones = c;
	return c;
}

/* Whether argument i of c already holds a's value; else it is remembered as set (when it
 * fits) and false. A failed set is forgotten by the caller. */
static bool already_set(struct clone *c, cl_uint i, const struct feed_arg *a)
{
	struct kept_arg *k = i < KEPT_ARGS ? &c->kept[i] : NULL;

	if (!k)
		return false;
	if (a->kind == FEED_VALUE && k->size == a->size && memcmp(k->bytes, a->value, a->size) == 0)
		return true;
	k->size = a->kind == FEED_VALUE && a->size <= KEPT_BYTES ? a->size : 0;
	if (k->size)
		memcpy(k->bytes, a->value, a->size);
	return false;
}

static int queue_launch(struct rt_feeder *f, const struct feed_launch *l)
{
	cl_int err = CL_SUCCESS;
	struct clone *c = own_kernel(f, l->kernel, &err);

	if (!c)
		return fail(f, l, "clCreateKernel", err);
	for (cl_uint i = 0; i < l->nargs; i++) {
		const struct feed_arg *a = &l->args[i];
		const void *v = a->kind == FEED_MEM ? (const void *)&a->mem : a->value;

		if (already_set(c, i, a))
			continue;
		err = clSetKernelArg(c->own, i, a->size, v);
		if (err != CL_SUCCESS) {
			if (i < KEPT_ARGS)
				c->kept[i].size = 0;
			return fail(f, l, "clSetKernelArg", err);
		}
	}
	err = clEnqueueNDRangeKernel(f->dev->q, c->own, l->dims, NULL, l->global,
	                             l->has_local ? l->local : NULL, 0, NULL, NULL);
	return err == CL_SUCCESS ? 0 : fail(f, l, "clEnqueueNDRangeKernel", err);
}

/* A fill is a launch without a kernel: args[0] is the buffer, values the pattern, and
 * global[0] the bytes to fill. */
static int queue_fill(struct rt_feeder *f, const struct feed_launch *l)
{
	cl_int err = clEnqueueFillBuffer(f->dev->q, l->args[0].mem, l->values, l->args[0].size, 0,
	                                 l->global[0], 0, NULL, NULL);

	return err == CL_SUCCESS ? 0 : fail(f, l, "clEnqueueFillBuffer", err);
}

/* Queues the list l; returns its last element (l's memory stays the caller's to pass on). */
static struct feed_launch *queue_all(struct rt_feeder *f, struct feed_launch *l)
{
	for (;; l = l->next) {
		/* After a failure the rest is dropped: it may depend on what failed. */
		if (!__atomic_load_n(&f->failed, __ATOMIC_ACQUIRE) &&
		    l->seq > __atomic_load_n(&f->drop_upto, __ATOMIC_ACQUIRE))
			(void)(l->kernel ? queue_launch(f, l) : queue_fill(f, l));
		if (!l->next)
			return l;
	}
}

static void free_list(struct feed_launch *l)
{
	while (l) {
		struct feed_launch *next = l->next;

		feed_launch_free(l);
		l = next;
	}
}

/* A spinning thread's hint to the core: the feeder and the thread polling for it may be two
 * hardware threads of one core, where a tight loop takes the issue slots of the enqueue it
 * waits for. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Poll for up to SPIN_NS until done(f). */
static bool poll_until(struct rt_feeder *f, bool (*done)(struct rt_feeder *))
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (done(f))
			return true;
		cpu_relax();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < SPIN_NS);
	return false;
}

static bool work_handed(struct rt_feeder *f)
{
	return __atomic_load_n(&f->has_work, __ATOMIC_ACQUIRE);
}

static bool all_queued(struct rt_feeder *f)
{
	return !__atomic_load_n(&f->has_work, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&f->busy, __ATOMIC_ACQUIRE);
}

/* Everything handed over so far, or NULL when stopping. Called with the lock held. */
static struct feed_launch *take_work(struct rt_feeder *f)
{
	for (;;) {
		struct feed_launch *l = f->head;

		if (l) {
			f->head = f->tail = NULL;
			/* busy before has_work goes: a polling drain must never see neither */
			__atomic_store_n(&f->busy, true, __ATOMIC_RELEASE);
			__atomic_store_n(&f->has_work, 0, __ATOMIC_RELEASE);
			return l;
		}
		__atomic_store_n(&f->busy, false, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&f->idle);
		if (f->stopping)
			return NULL;
		pthread_mutex_unlock(&f->lock);
		bool soon = poll_until(f, work_handed);
		pthread_mutex_lock(&f->lock);
		while (!soon && !f->head && !f->stopping && !f->nudged) {
			f->sleeping = true;
			pthread_cond_wait(&f->work, &f->lock);
			f->sleeping = false;
		}
		f->nudged = false;
	}
}

static void *feeder_main(void *arg)
{
	struct rt_feeder *f = arg;
	struct feed_launch *l;

	pthread_mutex_lock(&f->lock);
	while ((l = take_work(f)) != NULL) {
		struct feed_launch *last;

		pthread_mutex_unlock(&f->lock);
		last = queue_all(f, l);
		pthread_mutex_lock(&f->lock);
		last->next = f->done;
		f->done = l;
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

/* The shell and the feeder each hold the lock for a few instructions; a thread that blocked
 * on it would cost the other a wake-up system call, so it spins a little first (glibc's
 * adaptive mutex). */
static void init_lock(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
	(void)pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

static int feeder_start(struct rt_dev *d, struct cs_err *e)
{
	struct rt_feeder *f;
	int rc = 0;

	pthread_mutex_lock(&d->feeder_lock);
	if (d->feeder)
		goto out;
	f = xcalloc(1, sizeof(*f));
	f->dev = d;
	init_lock(&f->lock);
	pthread_cond_init(&f->work, NULL);
	pthread_cond_init(&f->idle, NULL);
	rc = pthread_create(&f->thread, NULL, feeder_main, f);
	if (rc != 0) {
		pthread_cond_destroy(&f->idle);
		pthread_cond_destroy(&f->work);
		pthread_mutex_destroy(&f->lock);
		free(f);
		rc = err_set(e,
		             "device '%s': cannot start its feeder thread: %s (CARSH_FEEDER=off "
		             "runs without it)",
		             d->info->name, strerror(rc));
		goto out;
	}
	__atomic_store_n(&d->feeder, f, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&d->feeder_lock);
	return rc;
}

/* The kept error into e, cleared. Called with the lock held. */
static int take_error(struct rt_feeder *f, struct cs_err *e)
{
	if (!f->failed)
		return 0;
	memcpy(e->msg, f->error.msg, sizeof(e->msg));
	__atomic_store_n(&f->drop_upto, f->handed, __ATOMIC_RELEASE);
	__atomic_store_n(&f->failed, false, __ATOMIC_RELEASE);
	return -1;
}

static int hand_over(struct rt_dev *d, struct feed_launch *l, struct cs_err *e)
{
	struct feed_launch *done;
	struct rt_feeder *f;
	int rc;

	if (!__atomic_load_n(&d->feeder, __ATOMIC_ACQUIRE) && feeder_start(d, e)) {
		feed_launch_free(l);
		return -1;
	}
	f = d->feeder;
	pthread_mutex_lock(&f->lock);
	rc = take_error(f, e);
	if (rc) {
		err_prefix(e, "an earlier launch failed: ");
	} else {
		l->seq = ++f->handed;
		l->next = NULL;
		if (f->tail)
			f->tail->next = l;
		else
			f->head = l;
		f->tail = l;
		__atomic_store_n(&f->has_work, 1, __ATOMIC_RELEASE);
		if (f->sleeping)
			pthread_cond_signal(&f->work);
		l = NULL;
	}
	done = f->done;
	f->done = NULL;
	pthread_mutex_unlock(&f->lock);
	feed_launch_free(l);
	free_list(done);
	return rc;
}

int rt_feed_launch(struct rt_dev *d, struct feed_launch *l, struct cs_err *e)
{
	return hand_over(d, l, e);
}

int rt_feed_fill(struct rt_dev *d, cl_mem mem, const void *pattern, size_t psize, size_t bytes,
                 struct cs_err *e)
{
	struct feed_launch *l;
	cl_int err;

	if (!__atomic_load_n(&d->feeder, __ATOMIC_ACQUIRE)) {
		err = clEnqueueFillBuffer(d->q, mem, pattern, psize, 0, bytes, 0, NULL, NULL);
		return err == CL_SUCCESS ? 0
		                         : err_set(e, "filling a virtual buffer on '%s': %s",
		                                   d->info->name, rt_cl_error_name(err));
	}
	l = feed_launch_new(1, psize);
	l->args[0] = (struct feed_arg){FEED_MEM, psize, mem, NULL};
	memcpy(l->values, pattern, psize);
	l->global[0] = bytes;
	return hand_over(d, l, e);
}

/* A short poll first: the feeder is usually a launch or two behind, and a wake-up after
 * cond_wait can take longer than that. */
static void drain(struct rt_feeder *f)
{
	if (poll_until(f, all_queued))
		return;
	pthread_mutex_lock(&f->lock);
	while (f->head || f->busy)
		pthread_cond_wait(&f->idle, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

cl_command_queue rt_dev_queue(struct rt_dev *d)
{
	struct rt_feeder *f = __atomic_load_n(&d->feeder, __ATOMIC_ACQUIRE);

	if (f)
		drain(f);
	return d->q;
}

int rt_dev_finish(struct rt_dev *d, struct cs_err *e)
{
	struct rt_feeder *f = __atomic_load_n(&d->feeder, __ATOMIC_ACQUIRE);
	cl_int err;
	int rc = 0;

	if (f) {
		drain(f);
		pthread_mutex_lock(&f->lock);
		rc = take_error(f, e);
		pthread_mutex_unlock(&f->lock);
	}
	err = clFinish(d->q);
	if (err != CL_SUCCESS && rc == 0)
		rc = err_set(e, "device '%s': clFinish failed: %s", d->info->name,
		             rt_cl_error_name(err));
	return rc;
}

void rt_feeder_wake(struct rt_dev *d)
{
	struct rt_feeder *f = __atomic_load_n(&d->feeder, __ATOMIC_ACQUIRE);

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	if (f->sleeping) {
		f->nudged = true;
		pthread_cond_signal(&f->work);
	}
	pthread_mutex_unlock(&f->lock);
}

void rt_feeder_stop(struct rt_dev *d)
{
	struct rt_feeder *f = d->feeder;

	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	pthread_cond_signal(&f->work);
	pthread_mutex_unlock(&f->lock);
	(void)pthread_join(f->thread, NULL);
	free_list(f->done);
	while (f->clones) {
		struct clone *c = f->clones;

		f->clones = c->next;
		(void)clReleaseKernel(c->own);
		free(c);
	}
	pthread_cond_destroy(&f->idle);
	pthread_cond_destroy(&f->work);
	pthread_mutex_destroy(&f->lock);
	free(f);
	d->feeder = NULL;
}
