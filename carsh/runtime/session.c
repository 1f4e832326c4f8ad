#include "runtime/session.h"
#include "runtime/feeder.h"
#include "runtime/kernelcheck.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"

/* The argument signatures (plan_signature) already checked against a kernel: the check
 * reads the kernel's argument info, several OpenCL calls an argument, and a batch runs the
 * same plans again and again. */
#define CHECKED_MAX 8

struct kernel_entry {
	char *name;
	struct rt_kernel kernel;
	uint64_t checked[CHECKED_MAX];
	unsigned nchecked;
	struct kernel_entry *next;
};

struct program_entry {
	size_t dev;
	const char *kept; /* a kept source's address (kernel_plan.source_kept), or NULL */
	char *source;
	char *options;
	char *includes; /* the digest it was built with (runtime/includes.h), never NULL */
	cl_program prog;
	struct kernel_entry *kernels;
	struct program_entry *next;
};

struct rt_session {
	pthread_mutex_t lock;
	struct rt_devinfo *devs;
	size_t ndev;
	bool discovered;
	struct rt_dev **open; /* per device, NULL until first used */
	struct program_entry *programs;
};

struct rt_session *rt_session_new(void)
{
	struct rt_session *s = xcalloc(1, sizeof(*s));

	pthread_mutex_init(&s->lock, NULL);
	return s;
}

static void program_free(struct program_entry *p)
{
	while (p->kernels) {
		struct kernel_entry *k = p->kernels;

		p->kernels = k->next;
		(void)clReleaseKernel(k->kernel.k);
		pthread_mutex_destroy(&k->kernel.lock);
		free(k->name);
		free(k);
	}
	(void)clReleaseProgram(p->prog);
	free(p->source);
	free(p->options);
	free(p->includes);
	free(p);
}

void rt_session_forget_kept(struct rt_session *s)
{
	pthread_mutex_lock(&s->lock);
	for (struct program_entry *p = s->programs; p; p = p->next)
		p->kept = NULL;
	pthread_mutex_unlock(&s->lock);
}

void rt_session_wake_feeders(struct rt_session *s)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->ndev && s->open; i++)
		if (s->open[i])
			rt_feeder_wake(s->open[i]);
	pthread_mutex_unlock(&s->lock);
}

void rt_session_free(struct rt_session *s)
{
	if (!s)
		return;
	while (s->programs) {
		struct program_entry *p = s->programs;

		s->programs = p->next;
		program_free(p);
	}
	for (size_t i = 0; i < s->ndev && s->open; i++) {
		struct rt_dev *d = s->open[i];

		if (!d)
			continue;
		rt_feeder_stop(d);
		(void)clFinish(d->q);
		(void)clReleaseCommandQueue(d->q);
		(void)clReleaseContext(d->ctx);
		pthread_mutex_destroy(&d->feeder_lock);
		free(d);
	}
	free(s->open);
	free(s->devs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int discover_locked(struct rt_session *s, struct run_stats *st, struct cs_err *e)
{
	double t0 = clock_ms();

	if (s->discovered)
		return 0;
	if (rt_devices_list(&s->devs, &s->ndev, e))
		return -1;
	s->open = xcalloc(s->ndev ? s->ndev : 1, sizeof(*s->open));
	s->discovered = true;
	if (st)
		st->platform_ms += clock_ms() - t0;
	return 0;
}

int rt_session_devices(struct rt_session *s, const struct rt_devinfo **devs, size_t *n,
                       struct cs_err *e)
{
	int rc;

	pthread_mutex_lock(&s->lock);
	rc = discover_locked(s, NULL, e);
	*devs = s->devs;
	*n = s->ndev;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int open_device(const struct rt_devinfo *info, struct rt_dev **out, struct cs_err *e)
{
	cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)info->platform,
	                                 0};
	struct rt_dev *d = xcalloc(1, sizeof(*d));
	cl_int err;

	d->info = info;
	snprintf(d->label, sizeof(d->label), "%.100s (%.50s)", info->name, info->platform_name);
	d->ctx = clCreateContext(props, 1, &info->device, NULL, NULL, &err);
	if (err != CL_SUCCESS) {
		free(d);
		return err_set(e, "device '%s': clCreateContext failed: %s", info->name,
		               rt_cl_error_name(err));
	}
	d->q = clCreateCommandQueue(d->ctx, info->device, CL_QUEUE_PROFILING_ENABLE, &err);
	if (err != CL_SUCCESS) {
		(void)clReleaseContext(d->ctx);
		free(d);
		return err_set(e, "device '%s': clCreateCommandQueue failed: %s", info->name,
		               rt_cl_error_name(err));
	}
	pthread_mutex_init(&d->feeder_lock, NULL);
	*out = d;
	return 0;
}

int rt_session_device(struct rt_session *s, const struct kernel_plan *kp, struct rt_dev **dev,
                      struct run_stats *st, struct cs_err *e)
{
	size_t at;
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	if (discover_locked(s, st, e) ||
	    rt_device_pick(s->devs, s->ndev, kp->device_exe, kp->device_cli, kp->device_fm, &at, e))
		goto out;
	if (!s->open[at]) {
		double t0 = clock_ms();

		if (open_device(&s->devs[at], &s->open[at], e))
			goto out;
		st->context_ms += clock_ms() - t0;
	}
	*dev = s->open[at];
	memcpy(st->device, (*dev)->label, sizeof(st->device));
	rc = 0;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* A program built with the same options from the same source and the same included files'
 * contents. (Includes that cannot be followed compare as their digest's "unknown" line: a
 * session keeps one program for them, as it keeps the objects its jobs still use.) */
static struct program_entry *find_program(struct rt_session *s, size_t dev,
                                          const struct kernel_plan *kp)
{
	const char *includes = kp->includes ? kp->includes : "";

	for (struct program_entry *p = s->programs; p; p = p->next) {
		if (p->dev != dev || strcmp(p->options, kp->build_options) != 0 ||
		    strcmp(p->includes, includes) != 0)
			continue;
		/* A kept source never moves: its address identifies it without reading it. */
		if ((kp->source_kept && p->kept == kp->source) ||
		    strcmp(p->source, kp->source) == 0)
			return p;
	}
	return NULL;
}

static int build_program(struct rt_session *s, struct rt_dev *dev, const struct kernel_plan *kp,
                         struct program_entry **out, struct run_stats *st, struct cs_err *e)
{
	size_t at = (size_t)(dev->info - s->devs);
	struct program_entry *p = find_program(s, at, kp);
	cl_program prog;

	if (p) {
		st->cache_hit = true;
		*out = p;
		return 0;
	}
	if (rt_program_build(dev->ctx, dev->info, kp, &prog, &st->cache_hit, e))
		return -1;
	p = xcalloc(1, sizeof(*p));
	*p = (struct program_entry){at,
	                            kp->source_kept ? kp->source : NULL,
	                            xstrdup(kp->source),
	                            xstrdup(kp->build_options),
	                            xstrdup(kp->includes ? kp->includes : ""),
	                            prog,
	                            NULL,
	                            s->programs};
	s->programs = p;
	*out = p;
	return 0;
}

/* CL_PROGRAM_KERNEL_NAMES is "a;b": the message wants "a, b". */
static void kernel_names(cl_program prog, char *buf, size_t n)
{
	size_t len = 0, o = 0;
	char *names;

	snprintf(buf, n, "none");
	if (clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &len) != CL_SUCCESS || !len)
		return;
	names = xmalloc(len + 1);
	if (clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, len, names, NULL) == CL_SUCCESS) {
		names[len] = '\0';
		for (const char *p = names; *p && o + 3 < n; p++) {
			if (*p == ';') {
				buf[o++] = ',';
				buf[o++] = ' ';
			} else {
				buf[o++] = *p;
			}
		}
		buf[o] = '\0';
	}
	free(names);
}

/* What rt_kernel_check compares: every argument's kind, type, image or sampler, and element count
 * (Local sizes excepted), as an FNV-1a hash. */
static uint64_t plan_signature(const struct kernel_plan *kp)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];
		/* An image or a sampler is another kind of argument to the kernel. */
		uint64_t v[5] = {(uint64_t)a->kind, (uint64_t)a->type.scalar,
		                 (uint64_t)a->type.width, (uint64_t)a->image_dims,
		                 (uint64_t)a->is_sampler};

		for (size_t j = 0; j < 5; j++)
			h = (h ^ v[j]) * 1099511628211ull;
	}
	return (h ^ kp->nargs) * 1099511628211ull;
}

static int check_once(struct kernel_entry *k, const struct rt_devinfo *dev,
                      const struct kernel_plan *kp, struct cs_err *e)
{
	uint64_t sig = plan_signature(kp);

	for (unsigned i = 0; i < k->nchecked && i < CHECKED_MAX; i++)
		if (k->checked[i] == sig)
			return 0;
	if (rt_kernel_check(k->kernel.k, dev, kp, e))
		return -1;
	k->checked[k->nchecked++ % CHECKED_MAX] = sig;
	return 0;
}

static int create_kernel(struct program_entry *p, const struct kernel_plan *kp,
                         struct kernel_entry **out, struct cs_err *e)
{
	struct kernel_entry *k;
	cl_int err;
	cl_kernel kern = clCreateKernel(p->prog, kp->kernel, &err);

	if (err == CL_INVALID_KERNEL_NAME) {
		char names[1024];

		kernel_names(p->prog, names, sizeof(names));
		err_set(e, "kernel '%s' not found in %s (kernels there: %s)", kp->kernel,
		        kp->source_name, names);
		return kernel_plan_err_at(kp, kp->kernel_line, e);
	}
	if (err != CL_SUCCESS)
		return err_set(e, "kernel '%s': clCreateKernel failed: %s", kp->kernel,
		               rt_cl_error_name(err));
	k = xcalloc(1, sizeof(*k));
	k->name = xstrdup(kp->kernel);
	k->kernel.k = kern;
	k->kernel.name = k->name;
	pthread_mutex_init(&k->kernel.lock, NULL);
	k->next = p->kernels;
	p->kernels = k;
	*out = k;
	return 0;
}

int rt_session_kernel(struct rt_session *s, struct rt_dev *dev, const struct kernel_plan *kp,
                      struct rt_kernel **out, struct run_stats *st, struct cs_err *e)
{
	struct program_entry *p;
	struct kernel_entry *k;
	double t0 = clock_ms();
	int rc = -1;

	pthread_mutex_lock(&s->lock);
	if (build_program(s, dev, kp, &p, st, e))
		goto out;
	for (k = p->kernels; k && strcmp(k->name, kp->kernel) != 0; k = k->next)
		;
	/* Every plan's arguments, not only the first's: flow-models that share a kernel may
	 * differ. */
	if ((!k && create_kernel(p, kp, &k, e)) || check_once(k, dev->info, kp, e))
		goto out;
	*out = &k->kernel;
	rc = 0;
out:
	st->build_ms += clock_ms() - t0;
	pthread_mutex_unlock(&s->lock);
	return rc;
}
