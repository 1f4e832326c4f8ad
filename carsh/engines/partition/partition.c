/* The partition engine (003 §3-5); see engines/partition/partition.h and docs/partition.md. */
#include "engines/partition/partition.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engines/partition/gpus.h"
#include "engines/partition/space.h"
#include "engines/progress.h"
#include "exec/stage.h"
#include "model/flowmodel.h"
#include "runtime/kernelcheck.h"
#include "runtime/launchguard.h"
#include "runtime/subdev.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/parcopy.h"

/* One OpenCL context and the copy streams in it: written once per context (not per
 * device), again only when the host data changed (a swap between steps). */
struct pctx {
	cl_context ctx;
	cl_mem *copy;      /* per argument: the copy stream's buffer, or NULL */
	unsigned *written; /* per argument: the host version it holds */
	pthread_mutex_t lock;
	bool used;
};

struct pdev {
	struct part_devstat st;
	const struct rt_devinfo *info;
	cl_device_id id;
	cl_command_queue q;
	bool own_q; /* created here (the GPU's; the cores' belong to the sub-device group) */
	cl_kernel k;
	struct pctx *pc;
	cl_mem *block; /* per argument: this device's buffer of a block stream, or NULL */
	bool guarded;  /* launches go through the launch gate (PoCL) */
};

struct prun {
	const struct part_env *env;
	const struct part_opts *o;
	struct job_plan *jp;
	const struct kernel_plan *kp;
	const struct part_stream *ps;
	unsigned steps;
	struct part_space sp;  /* the space cut in rows (1-D: in work-items) */
	size_t items, granule; /* sp.rows, sp.granule */
	uint64_t launch_key;   /* the kernel's, for the launch gate */
	void **host;           /* per argument: the data the engine reads and writes */
	void **owned;          /* per argument: what the engine allocated itself */
	void **pristine;       /* per argument: the state before the first run (several runs) */
	unsigned *version;     /* per argument: bumped whenever the host data changes */
	bool several_runs;
	struct rt_subdevs *sd;
	struct pctx *ctx; /* 0: the CPU cores' (and a stand-in's), then one per GPU device */
	unsigned nctx;
	struct pdev *dev;
	unsigned ndev, ncpu, ngpu, threads; /* devices ncpu .. ncpu+ngpu-1 are the GPUs */
	bool gpu, standin;
	/* Sharing the space (o->share): this step's rows [begin, begin + len) of it, and the
	 * scheduler's space (sched_len rows); without, 0, items and items. */
	size_t begin, len, sched_len;
	struct part_block *blocks; /* the written block streams, for the sharers */
	size_t nblocks;
	/* one run */
	struct sched *sched;
	double share;
	pthread_mutex_t lock; /* the scheduler, the trace, the progress bar, the steps */
	pthread_cond_t cond;  /* a chunk or a device's step ended */
	pthread_cond_t start; /* a step starts (generation), or the run ends (quit) */
	unsigned generation, finished;
	bool quit;
	unsigned in_flight;
	bool failed;
	struct cs_err err;
	double t0;
	unsigned step;
	size_t done_items;
	struct progress progress;
	const char *what; /* progress bar label */
	struct part_trace *trace;
	size_t ntrace, cap;
};

static bool interrupted(const struct prun *r)
{
	return r->env->interrupted && *r->env->interrupted;
}

/* ---- checks of the plan ---- */

static int check_plan(const struct kernel_plan *kp, const struct part_space *sp,
                      const struct part_stream *ps, struct cs_err *e)
{
	size_t work_items = sp->row_items * sp->rows;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (!arg_is_stream(a->kind))
			continue;
		if (!ps[i].block && a->kind != ARG_INPUT)
			return err_set(
			        e,
			        "stream '%s': an %s must be partition=\"block\" (every device "
			        "writes its own chunks)",
			        a->name, arg_kind_name(a->kind));
		if (ps[i].block && (ps[i].unit == 0 || a->count / ps[i].unit != work_items ||
		                    a->count % ps[i].unit))
			return err_set(
			        e,
			        "stream '%s': partition=\"block\" with unit=%zu needs %zu x %zu "
			        "elements (the global size times the unit), it has %zu",
			        a->name, ps[i].unit, work_items, ps[i].unit, a->count);
	}
	return 0;
}

/* ---- devices ---- */

/* 003 §5: "--threads N" is the GPU's host thread and N-1 cores (1: the GPU alone); without a
 * GPU, N cores. With several GPUs N-1 is still the cores, and each GPU has a thread of its
 * own (N-1 + GPUs threads in all). Which of them a scheduler uses follows. */
static int count_threads(struct prun *r, const struct part_devices *ch, struct cs_err *e)
{
	bool have_gpu = ch->ngpu > 0;
	unsigned max = ch->cores + (have_gpu ? 1 : 0), threads = r->o->threads;
	enum sched_kind k = r->o->sched;

	if (max == 0)
		return err_set(e, "no OpenCL CPU or GPU device to run on");
	if (threads == 0)
		threads = max;
	if (threads > max)
		return err_set(e, "--threads %u: this machine has %u CPU core%s%s (at most %u)",
		               threads, ch->cores, ch->cores == 1 ? "" : "s",
		               !have_gpu       ? " and no GPU"
		               : ch->ngpu == 1 ? " and a GPU"
		                               : " and GPUs",
		               max);
	r->ncpu = have_gpu ? threads - 1 : threads;
	r->gpu = have_gpu;
	if (k == SCHED_GPU && !have_gpu)
		return err_set(e,
		               "--sched gpu: there is no GPU (see 'devices'; --gpu cpu lets a CPU "
		               "core stand in for one)");
	if (k == SCHED_GPU)
		r->ncpu = 0;
	if (k == SCHED_CPU)
		r->gpu = false;
	if (k == SCHED_STATIC && r->o->gpu_share == 0.0)
		r->gpu = false;
	if (k == SCHED_STATIC && r->o->gpu_share == 1.0 && have_gpu)
		r->ncpu = 0;
	if (r->ncpu == 0 && !r->gpu)
		return err_set(e,
		               "--sched %s with --threads %u leaves no device: thread 1 drives the "
		               "GPU, the others are CPU cores",
		               sched_name(k), threads);
	r->standin = ch->standin && r->gpu;
	r->ngpu = r->gpu ? ch->ngpu : 0;
	r->threads = threads;
	r->ndev = r->ncpu + r->ngpu;
	return 0;
}

static void devstat_init(struct pdev *d, const char *label, const struct rt_devinfo *info, bool gpu,
                         unsigned cu)
{
	snprintf(d->st.label, sizeof(d->st.label), "%s", label);
	snprintf(d->st.name, sizeof(d->st.name), "%.150s", info->name);
	d->st.gpu = gpu;
	d->st.compute_units = cu;
	d->info = info;
	d->guarded = rt_launch_guard_needed(info);
}

static int own_kernel(cl_program prog, const char *name, cl_kernel *k, const char *dev,
                      struct cs_err *e)
{
	cl_int err;

	*k = clCreateKernel(prog, name, &err);
	if (err != CL_SUCCESS) {
		*k = NULL;
		return err_set(e, "kernel '%s' on %s: clCreateKernel failed: %s", name, dev,
		               rt_cl_error_name(err));
	}
	return 0;
}

/* "gpu" with one GPU (as before several were driven), else "gpu0", "gpu1", ... */
static void gpu_label(const struct prun *r, unsigned k, char *label, size_t n)
{
	if (r->ngpu == 1)
		snprintf(label, n, "gpu");
	else
		snprintf(label, n, "gpu%u", k);
}

/* The cores (and a core standing in for the GPU): sub-devices in one context. */
static int open_cores(struct prun *r, const struct part_devices *ch, double *build_ms,
                      struct cs_err *e)
{
	size_t n = r->ncpu + (r->standin ? 1 : 0);
	bool hit;
	double t;

	if (n == 0)
		return 0;
	if (rt_subdevs_open(ch->cpu, n, &r->sd, e))
		return -1;
	t = clock_ms();
	if (rt_subdevs_build(r->sd, r->kp, &hit, e))
		return -1;
	*build_ms += clock_ms() - t;
	r->ctx[0].ctx = r->sd->ctx;
	for (size_t i = 0; i < n; i++) {
		struct pdev *d = &r->dev[i];
		bool gpu = r->standin && i == n - 1;
		char label[16];

		if (gpu)
			gpu_label(r, 0, label, sizeof(label));
		else
			snprintf(label, sizeof(label), "cpu%zu", i);
		devstat_init(d, label, ch->cpu, gpu, 1);
		d->id = r->sd->ids[i];
		d->q = r->sd->q[i];
		d->pc = &r->ctx[0];
		if (own_kernel(r->sd->prog, r->kp->kernel, &d->k, label, e) ||
		    (i == 0 && rt_kernel_check(d->k, ch->cpu, r->kp, e)))
			return -1;
	}
	return 0;
}

/* GPU k (a device, not a stand-in) through the thread executor's session: its context and
 * program are the session's (one context per device, built once per shell); the kernel
 * object and the queue are this run's own, so that no other job's arguments or queued work
 * mix with the chunks. Its copy streams live in context 1 + k. */
static int open_gpu(struct prun *r, unsigned k, const struct rt_devinfo *info, double *build_ms,
                    struct cs_err *e)
{
	struct kernel_plan kp = *r->kp;
	struct pdev *d = &r->dev[r->ncpu + k];
	struct run_stats st;
	struct rt_dev *rd;
	struct rt_kernel *rk;
	cl_program prog;
	char sel[24], label[16];
	cl_int err;

	gpu_label(r, k, label, sizeof(label));
	snprintf(sel, sizeof(sel), "%d", info->index);
	kp.device_exe = sel;
	kp.device_cli = kp.device_fm = NULL;
	memset(&st, 0, sizeof(st));
	if (rt_session_device(r->env->rt, &kp, &rd, &st, e) ||
	    rt_session_kernel(r->env->rt, rd, &kp, &rk, &st, e))
		return -1;
	*build_ms += st.build_ms;
	devstat_init(d, label, info, true, info->compute_units);
	d->id = info->device;
	d->pc = &r->ctx[1 + k];
	d->pc->ctx = rd->ctx;
	err = clGetKernelInfo(rk->k, CL_KERNEL_PROGRAM, sizeof(prog), &prog, NULL);
	if (err != CL_SUCCESS)
		return err_set(e, "%s: clGetKernelInfo(CL_KERNEL_PROGRAM) failed: %s", label,
		               rt_cl_error_name(err));
	if (own_kernel(prog, kp.kernel, &d->k, label, e))
		return -1;
	d->q = clCreateCommandQueue(rd->ctx, d->id, 0, &err);
	if (err != CL_SUCCESS) {
		d->q = NULL;
		return err_set(e, "%s '%s': clCreateCommandQueue failed: %s", label, info->name,
		               rt_cl_error_name(err));
	}
	d->own_q = true;
	return 0;
}

static int new_buffer(struct pdev *d, cl_context ctx, cl_mem_flags flags, void *host,
                      const struct kernel_arg *a, cl_mem *out, struct cs_err *e)
{
	cl_int err;

	if (a->bytes > d->info->max_alloc)
		return err_set(e,
		               "stream '%s': %zu bytes is more than %s ('%s') allocates at once "
		               "(%llu bytes): use a smaller size",
		               a->name, a->bytes, d->st.label, d->st.name,
		               (unsigned long long)d->info->max_alloc);
	*out = clCreateBuffer(ctx, flags, a->bytes, host, &err);
	if (err != CL_SUCCESS) {
		*out = NULL;
		return err_set(e, "stream '%s': %zu bytes on %s ('%s'): clCreateBuffer failed: %s",
		               a->name, a->bytes, d->st.label, d->st.name, rt_cl_error_name(err));
	}
	return 0;
}

/* Copy streams once per context; block streams once per device (each writes its chunks
 * into its own buffer, so no two devices ever write one buffer). In the CPU cores' context
 * the copy streams use the host arrays themselves (CL_MEM_USE_HOST_PTR: PoCL then moves
 * nothing, and a write from the same pointer, which ensure_copies makes when the data
 * changed, costs nothing either); the GPU gets copies. */
static int make_buffers(struct prun *r, struct cs_err *e)
{
	const struct kernel_plan *kp = r->kp;

	for (unsigned c = 0; c < r->nctx; c++) {
		r->ctx[c].copy = xcalloc(kp->nargs ? kp->nargs : 1, sizeof(cl_mem));
		r->ctx[c].written = xcalloc(kp->nargs ? kp->nargs : 1, sizeof(unsigned));
	}
	for (unsigned i = 0; i < r->ndev; i++) {
		struct pdev *d = &r->dev[i];

		d->block = xcalloc(kp->nargs ? kp->nargs : 1, sizeof(cl_mem));
		d->pc->used = true;
		for (size_t a = 0; a < kp->nargs; a++) {
			const struct kernel_arg *ka = &kp->args[a];

			if (!arg_is_stream(ka->kind))
				continue;
			bool cores = d->pc == &r->ctx[0];

			if (r->ps[a].block &&
			    new_buffer(d, d->pc->ctx, CL_MEM_READ_WRITE, NULL, ka, &d->block[a], e))
				return -1;
			if (r->ps[a].block || d->pc->copy[a])
				continue;
			if (new_buffer(d, d->pc->ctx,
			               CL_MEM_READ_ONLY | (cores ? CL_MEM_USE_HOST_PTR : 0),
			               cores ? r->host[a] : NULL, ka, &d->pc->copy[a], e))
				return -1;
			/* A buffer on the host array holds its data from the start. */
			if (cores)
				d->pc->written[a] = r->version[a];
		}
	}
	return 0;
}

static int set_args(struct prun *r, struct pdev *d, struct cs_err *e)
{
	const struct kernel_plan *kp = r->kp;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];
		cl_mem mem;
		cl_int err;

		if (a->kind == ARG_CONSTANT)
			err = clSetKernelArg(d->k, (cl_uint)i, a->bytes, a->value);
		else if (a->kind == ARG_LOCAL)
			err = clSetKernelArg(d->k, (cl_uint)i, a->bytes, NULL);
		else {
			mem = r->ps[i].block ? d->block[i] : d->pc->copy[i];
			err = clSetKernelArg(d->k, (cl_uint)i, sizeof(mem), &mem);
		}
		if (err != CL_SUCCESS)
			return err_set(e, "argument %zu ('%s') on %s: clSetKernelArg failed: %s", i,
			               a->name, d->st.label, rt_cl_error_name(err));
	}
	return 0;
}

/* ---- host data ---- */

static bool pair_input(const struct kernel_plan *kp, size_t i)
{
	for (size_t p = 0; p < kp->npairs; p++)
		if (kp->pairs[p].input == i)
			return true;
	return false;
}

/* The engine writes into a pair's input between steps: an Input gets a work copy (its own
 * data may be a virtual buffer mapped read-only, which a run must not change). A discarded
 * output gets a scratch buffer: the chunks must land somewhere. */
static int host_data(struct prun *r, struct cs_err *e)
{
	const struct kernel_plan *kp = r->kp;
	size_t n = kp->nargs ? kp->nargs : 1;

	r->host = xcalloc(n, sizeof(void *));
	r->owned = xcalloc(n, sizeof(void *));
	r->pristine = xcalloc(n, sizeof(void *));
	r->version = xcalloc(n, sizeof(unsigned));
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		r->version[i] = 1;
		if (!arg_is_stream(a->kind))
			continue;
		r->host[i] = a->host;
		if ((a->kind == ARG_INPUT && pair_input(kp, i)) || !a->host) {
			r->owned[i] = data_alloc(a->count, type_size(a->type), a->name, e);
			if (!r->owned[i])
				return -1;
			if (a->host)
				memcpy(r->owned[i], a->host, a->bytes);
			else
				memset(r->owned[i], 0, a->bytes);
			r->host[i] = r->owned[i];
		}
		/* Several runs (static's profile) must each start from the same state. */
		if (r->several_runs && a->kind == ARG_INOUT) {
			r->pristine[i] = data_alloc(a->count, type_size(a->type), a->name, e);
			if (!r->pristine[i])
				return -1;
			memcpy(r->pristine[i], r->host[i], a->bytes);
		}
	}
	return 0;
}

static void restore_host(struct prun *r)
{
	const struct kernel_plan *kp = r->kp;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (r->pristine[i])
			par_memcpy(r->host[i], r->pristine[i], a->bytes, 0);
		else if (r->owned[i] && a->host && a->kind == ARG_INPUT)
			memcpy(r->owned[i], a->host, a->bytes);
		else
			continue;
		r->version[i]++;
	}
}

/* Between steps: each pair's output becomes its input (003's time steps; the executable's
 * <SwapPair>s). */
static void swap_host(struct prun *r)
{
	const struct kernel_plan *kp = r->kp;

	for (size_t p = 0; p < kp->npairs; p++) {
		size_t in = kp->pairs[p].input, out = kp->pairs[p].output;

		par_memcpy(r->host[in], r->host[out], kp->args[in].bytes, 0);
		r->version[in]++;
	}
}

/* The block streams the engine writes, as the sharers of the space exchange them: an
 * output a swap pair carries to the next step, or an InOut, is read by the next step. */
static void share_blocks(struct prun *r)
{
	const struct kernel_plan *kp = r->kp;

	r->blocks = xcalloc(kp->nargs ? kp->nargs : 1, sizeof(*r->blocks));
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];
		struct part_block *b = &r->blocks[r->nblocks];
		size_t off;
		bool paired = false;

		if (!arg_is_stream(a->kind) || !r->ps[i].block || !arg_is_written(a->kind))
			continue;
		for (size_t p = 0; p < kp->npairs; p++)
			paired = paired || kp->pairs[p].output == i;
		b->data = r->host[i];
		part_rows_bytes(&r->sp, r->ps[i].unit, type_size(a->type), 0, 1, &off,
		                &b->row_bytes);
		b->next = paired || a->kind == ARG_INOUT;
		r->nblocks++;
	}
}

/* ---- one chunk ---- */

static int cl_fail(struct pdev *d, const char *what, const struct sched_chunk *c, cl_int err,
                   struct cs_err *e)
{
	return err_set(e, "%s ('%s'): %s of chunk [%zu, %zu) failed: %s", d->st.label, d->st.name,
	               what, c->offset, c->offset + c->size, rt_cl_error_name(err));
}

/* The largest launch on a core, in rows: PoCL 3.1 compiles a kernel once for launches of
 * fewer than 65536 work-items and again for larger ones (measured: 65472 items reuse the
 * small one, 65536 compile anew, 50-80 ms). A row of 65536 work-items or more is launched
 * whole, a granule at a time. */
static size_t cpu_launch_max(const struct prun *r)
{
	size_t m = 65535 / r->sp.row_items / r->granule * r->granule;

	return m ? m : r->granule;
}

/* The largest launch of a chunk on this device. */
static size_t launch_piece(const struct prun *r, const struct pdev *d)
{
	return d->pc == &r->ctx[0] ? cpu_launch_max(r) : SIZE_MAX;
}

/* The chunk's part of the block inputs to the device, the launch with the chunk's offset,
 * its part of the block outputs back into the host arrays (003 §4 footnote 1: the GPU's time
 * includes both transfers). */
static int run_chunk_unguarded(struct prun *r, struct pdev *d, const struct sched_chunk *c,
                               bool keep, struct cs_err *e)
{
	const struct kernel_plan *kp = r->kp;
	size_t off = c->offset, n = c->size, bo, bl;
	cl_int err;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (!arg_is_stream(a->kind) || !r->ps[i].block || !arg_is_read(a->kind))
			continue;
		part_rows_bytes(&r->sp, r->ps[i].unit, type_size(a->type), off, off + n, &bo, &bl);
		err = clEnqueueWriteBuffer(d->q, d->block[i], CL_FALSE, bo, bl,
		                           (char *)r->host[i] + bo, 0, NULL, NULL);
		if (err != CL_SUCCESS)
			return cl_fail(d, "writing its part of a block stream", c, err, e);
	}
	/* Always the same local size: PoCL compiles a kernel anew for every local size it is
	 * launched with, and chooses one from the global size when none is given. On the cores
	 * a chunk is also launched in pieces below 65536 work-items: PoCL compiles a second
	 * variant for larger launches (and warm_up compiles only the small ones). */
	for (size_t at = 0, step = launch_piece(r, d); at < n; at += step) {
		size_t go[3], gs[3];

		part_space_launch(&r->sp, off + at, n - at < step ? n - at : step, go, gs);
		err = clEnqueueNDRangeKernel(d->q, d->k, r->sp.dims, go, gs, r->sp.local, 0, NULL,
		                             NULL);
		if (err != CL_SUCCESS)
			return cl_fail(d, "the launch", c, err, e);
	}
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (!keep || !arg_is_stream(a->kind) || !r->ps[i].block || !arg_is_written(a->kind))
			continue;
		part_rows_bytes(&r->sp, r->ps[i].unit, type_size(a->type), off, off + n, &bo, &bl);
		err = clEnqueueReadBuffer(d->q, d->block[i], CL_FALSE, bo, bl,
		                          (char *)r->host[i] + bo, 0, NULL, NULL);
		if (err != CL_SUCCESS)
			return cl_fail(d, "reading its part of a block stream", c, err, e);
	}
	err = clFinish(d->q);
	return err == CL_SUCCESS ? 0 : cl_fail(d, "finishing", c, err, e);
}

/* run_chunk_unguarded, on PoCL through the launch gate (runtime/launchguard.h): without it
 * PoCL 5.0 aborts when the cores run chunks at once. */
static int run_chunk(struct prun *r, struct pdev *d, const struct sched_chunk *c, bool keep,
                     struct cs_err *e)
{
	bool alone;
	int rc;

	if (!d->guarded)
		return run_chunk_unguarded(r, d, c, keep, e);
	alone = rt_launch_enter(r->launch_key, r->granule, c->offset, c->size, launch_piece(r, d));
	rc = run_chunk_unguarded(r, d, c, keep, e);
	if (rc)
		(void)clFinish(d->q); /* nothing of it may still run when the gate opens */
	rt_launch_leave(alone);
	return rc;
}

/* The copy streams this context lacks at their current version, written through this
 * device's queue; the other devices of the context wait on the lock. */
static int ensure_copies(struct prun *r, struct pdev *d, struct cs_err *e)
{
	const struct kernel_plan *kp = r->kp;
	struct pctx *pc = d->pc;
	double t = clock_ms();
	int rc = 0;

	pthread_mutex_lock(&pc->lock);
	for (size_t i = 0; i < kp->nargs && rc == 0; i++) {
		cl_int err;

		if (!pc->copy[i] || pc->written[i] == r->version[i])
			continue;
		err = clEnqueueWriteBuffer(d->q, pc->copy[i], CL_TRUE, 0, kp->args[i].bytes,
		                           r->host[i], 0, NULL, NULL);
		if (err != CL_SUCCESS)
			rc = err_set(e, "%s ('%s'): writing copy stream '%s' failed: %s",
			             d->st.label, d->st.name, kp->args[i].name,
			             rt_cl_error_name(err));
		else
			pc->written[i] = r->version[i];
	}
	pthread_mutex_unlock(&pc->lock);
	d->st.copy_ms += clock_ms() - t;
	return rc;
}

/* One launch at offset 0 and one past it on one device of each context, before the timed
 * run: PoCL compiles a kernel for its local size, and apart for a zero offset, at the first
 * such launch (shared by the sub-devices of one context), which would otherwise land in the
 * first chunks' times and LogFit's first samples. Nothing is read back. */
static int warm_up(struct prun *r, struct cs_err *e)
{
	bool *done = xcalloc(r->nctx, sizeof(*done));
	int rc = 0;

	for (unsigned i = 0; i < r->ndev && rc == 0; i++) {
		struct pdev *d = &r->dev[i];
		unsigned c = (unsigned)(d->pc - r->ctx);

		if (done[c])
			continue;
		done[c] = true;
		rc = ensure_copies(r, d, e);
		for (size_t off = 0; rc == 0 && off <= r->granule && off + r->granule <= r->items;
		     off += r->granule) {
			struct sched_chunk ch = {off, r->granule, PHASE_FIT};

			rc = run_chunk(r, d, &ch, false, e);
		}
	}
	free(done);
	return rc ? -1 : 0;
}

/* ---- the device threads ---- */

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

struct worker {
	struct prun *r;
	unsigned dev;
	pthread_t th;
	bool started;
	unsigned seen; /* the last step generation this thread took part in */
};

static enum sched_answer next_chunk(struct prun *r, unsigned dev, struct sched_chunk *c)
{
	enum sched_answer ans;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		if (r->failed || interrupted(r)) {
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

/* One device's part of one step: its context's copy streams, then chunks until the scheduler
 * has none for it. The copies come before the first chunk is asked for: a GPU that took its
 * chunk first and then spent 12 ms writing a 64 MiB copy stream (PCIe, pageable memory) held
 * that chunk while the cores ran out of work and waited (measured on the H100, Jacobi
 * 4096²: the cores idle for half of each step). */
static void device_step(struct prun *r, unsigned dev)
{
	struct pdev *d = &r->dev[dev];
	struct sched_chunk c;
	struct cs_err e;

	if (ensure_copies(r, d, &e)) {
		pthread_mutex_lock(&r->lock);
		fail_run(r, &e);
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		return;
	}
	while (next_chunk(r, dev, &c) == SCHED_CHUNK) {
		double a, b;
		int rc;

		a = clock_ms();
		rc = run_chunk(r, d, &c, true, &e);
		b = clock_ms();
		pthread_mutex_lock(&r->lock);
		r->in_flight--;
		if (rc)
			fail_run(r, &e);
		if (rc == 0) {
			struct sched_chunk own = {c.offset - r->begin, c.size, c.phase};

			sched_done(r->sched, dev, &own, b - a);
			trace_add(r, dev, &c, a, b);
			d->st.chunks++;
			d->st.items += c.size;
			d->st.busy_ms += b - a;
			d->st.last_chunk = c.size;
			r->done_items += c.size;
			draw_progress(r, false);
		}
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		if (rc)
			break;
	}
}

/* A device's host thread for the whole run (003 §3: one thread per core and one for the
 * GPU): it waits for each step to start, takes chunks, and reports the step done. */
static void *device_thread(void *arg)
{
	struct worker *w = arg;
	struct prun *r = w->r;
	unsigned seen = w->seen;

	for (;;) {
		bool uses;

		pthread_mutex_lock(&r->lock);
		while (r->generation == seen && !r->quit)
			pthread_cond_wait(&r->start, &r->lock);
		if (r->quit) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		seen = r->generation;
		uses = sched_uses(r->sched, w->dev);
		pthread_mutex_unlock(&r->lock);
		if (uses)
			device_step(r, w->dev);
		pthread_mutex_lock(&r->lock);
		r->finished++;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
}

static int start_threads(struct prun *r, struct worker *w, struct cs_err *e)
{
	for (unsigned i = 0; i < r->ndev; i++) {
		/* The generation runs on across the runs of a static profile: a thread that
		 * started from 0 would take the last run's step for a new one and report it
		 * finished before it had taken its chunks. */
		w[i] = (struct worker){r, i, 0, false, r->generation};
		if (pthread_create(&w[i].th, NULL, device_thread, &w[i]) != 0)
			return err_set(e, "cannot start a host thread for %s", r->dev[i].st.label);
		w[i].started = true;
	}
	return 0;
}

static void stop_threads(struct prun *r, struct worker *w)
{
	pthread_mutex_lock(&r->lock);
	r->quit = true;
	pthread_cond_broadcast(&r->start);
	pthread_mutex_unlock(&r->lock);
	for (unsigned i = 0; i < r->ndev; i++)
		if (w[i].started)
			pthread_join(w[i].th, NULL);
}

/* One step: every device thread takes chunks until the space is handed out. */
static int run_step(struct prun *r, struct cs_err *e)
{
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	sched_step_begin(r->sched);
	r->finished = 0;
	r->generation++;
	pthread_cond_broadcast(&r->start);
	while (r->finished < r->ndev)
		pthread_cond_wait(&r->cond, &r->lock);
	sched_step_end(r->sched);
	pthread_mutex_unlock(&r->lock);
	if (r->failed) {
		memcpy(e->msg, r->err.msg, sizeof(e->msg));
		rc = 1;
	} else if (interrupted(r)) {
		err_set(e, "interrupted");
		rc = 130;
	} else if (sched_assigned(r->sched) != r->len) {
		err_set(e, "internal error: the %s scheduler handed out %zu of %zu items",
		        sched_name(r->o->sched), sched_assigned(r->sched), r->len);
		rc = 1;
	}
	return rc;
}

static void reset_run(struct prun *r)
{
	for (unsigned i = 0; i < r->ndev; i++) {
		struct part_devstat *s = &r->dev[i].st;

		s->chunks = s->items = s->last_chunk = 0;
		s->busy_ms = s->copy_ms = 0;
	}
	r->ntrace = 0;
	r->done_items = 0;
	r->failed = false;
	r->in_flight = 0;
}

/* ---- the knowledge base (engines/partition/kb.h) ---- */

/* The key of this run: the flow-model's file and kernel, the devices, the size. False where
 * the plan has no file. model and devices are the caller's buffers. */
static bool kb_key_of(const struct prun *r, struct kb_key *k, char *model, char *devices, size_t n)
{
	const char *cpu = r->ncpu ? r->dev[0].st.name : "";

	if (!r->kp->fm_file || !realpath(r->kp->fm_file, model))
		return false;
	if (!r->gpu) {
		snprintf(devices, n, "%u x %s", r->ncpu, cpu);
	} else {
		/* Every GPU by name, in order: "GPU0 + GPU1 + 16 x CPU". */
		size_t at = 0;

		for (unsigned g = 0; g < r->ngpu && at < n; g++)
			at += (size_t)snprintf(devices + at, n - at, "%s%s + ",
			                       r->standin && g == 0 ? "a core as GPU: " : "",
			                       r->dev[r->ncpu + g].st.name);
		if (at < n)
			snprintf(devices + at, n - at, "%u x %s", r->ncpu, cpu);
	}
	*k = (struct kb_key){model, r->kp->kernel, devices, r->items};
	return true;
}

/* A run with a known profile starts from it (001 §3.2.3). */
static void kb_prime(struct prun *r)
{
	char model[PATH_MAX], devices[512];
	struct kb_key k;
	struct sched_prior p;

	if (r->o->kb && kb_key_of(r, &k, model, devices, sizeof(devices)) &&
	    kb_lookup(r->o->kb, &k, &p))
		sched_prime(r->sched, &p);
}

/* What the run learnt, for the next one; ms: the whole run. */
static void kb_keep(struct prun *r, double ms)
{
	char model[PATH_MAX], devices[512];
	struct kb_key k;
	struct sched_prior p;

	if (r->o->kb && r->steps > 0 && sched_profile(r->sched, &p) &&
	    kb_key_of(r, &k, model, devices, sizeof(devices)))
		kb_learn(r->o->kb, &k, &p, ms / r->steps);
}

/* A scheduler of len rows, started from prior (NULL: from the knowledge base). */
static int new_sched(struct prun *r, double share, size_t len, const struct sched_prior *prior,
                     struct cs_err *e)
{
	struct sched_cfg cfg = {r->o->sched, len,    r->granule,
	                        r->ncpu,     r->gpu, r->gpu ? r->dev[r->ncpu].st.compute_units : 1,
	                        share,       0};
	unsigned neus[PART_MAX_GPUS];
	const char *why = "";

	sched_free(r->sched);
	for (unsigned g = 0; g < r->ngpu; g++)
		neus[g] = r->dev[r->ncpu + g].st.compute_units;
	r->sched = sched_new_gpus(&cfg, r->ngpu, neus, &why);
	if (!r->sched)
		return err_set(e, "--sched %s: %s", sched_name(r->o->sched), why);
	r->sched_len = len;
	if (prior)
		sched_prime(r->sched, prior);
	else
		kb_prime(r);
	return 0;
}

/* Sharing the space: this step's rows. A scheduler's space is fixed, so other rows than the
 * last step's need a new one; it starts from what the old one learnt, as a run starts from
 * the knowledge base. An engine that never gets rows still gets a scheduler (of one granule,
 * never asked), which the result names. */
static int share_rows(struct prun *r, double share, struct cs_err *e)
{
	const struct part_share *sh = r->o->share;
	size_t b = 0, end = 0, len;
	struct sched_prior p;
	bool learnt;

	sh->rows(sh->arg, r->step == 0, &b, &end);
	r->begin = b;
	r->len = end - b;
	len = r->len ? r->len : r->granule;
	if (r->sched && (r->len == 0 || r->len == r->sched_len))
		return 0;
	learnt = r->sched && sched_profile(r->sched, &p);
	return new_sched(r, share, len, learnt ? &p : NULL, e);
}

/* One step of a shared space: the sharers agree on how it went and exchange its blocks. Its
 * time is this engine's own work, not the wait for the split. */
static int share_step(struct prun *r, double share, bool last, struct cs_err *e)
{
	const struct part_share *sh = r->o->share;
	int rc = share_rows(r, share, e);
	double t = clock_ms();

	if (rc == 0 && r->len > 0)
		rc = run_step(r, e);
	return sh->step_end(sh->arg, rc, clock_ms() - t, last, r->blocks, r->nblocks, e);
}

/* Every step once, with a fresh scheduler (a run learns only within itself). Sharing the
 * space, the scheduler comes with each step's rows (share_rows). */
static int run_all(struct prun *r, double share, double *ms, struct energy_meter *m,
                   struct energy_reading *en, struct cs_err *e)
{
	const struct part_share *sh = r->o->share;
	struct worker *w;
	int rc = 0;

	if (r->several_runs)
		restore_host(r);
	/* Every run moves the copy streams to the GPU again: the time includes them. (The
	 * cores' context uses the host arrays and moves nothing.) */
	for (unsigned c = 1; c < r->nctx; c++)
		for (size_t i = 0; i < r->kp->nargs; i++)
			r->ctx[c].written[i] = 0;
	reset_run(r);
	sched_free(r->sched);
	r->sched = NULL;
	if (!sh && new_sched(r, share, r->items, NULL, e))
		return 1;
	w = xcalloc(r->ndev, sizeof(*w));
	r->quit = false;
	if (start_threads(r, w, e)) {
		stop_threads(r, w);
		free(w);
		/* The other sharers are at their first step's end. */
		return sh ? sh->step_end(sh->arg, 1, 0, r->steps == 1, NULL, 0, e) : 1;
	}
	if (m)
		energy_start(m);
	r->t0 = clock_ms();
	for (r->step = 0; r->step < r->steps && rc == 0; r->step++) {
		bool last = r->step + 1 == r->steps;

		rc = sh ? share_step(r, share, last, e) : run_step(r, e);
		if (rc == 0 && !last)
			swap_host(r);
	}
	*ms = clock_ms() - r->t0;
	if (m)
		energy_stop(m, en);
	stop_threads(r, w);
	free(w);
	if (r->step > 0)
		r->step--;
	return rc;
}

/* ---- the whole command ---- */

static void prun_free(struct prun *r)
{
	const struct kernel_plan *kp = r->kp;

	for (unsigned i = 0; r->dev && i < r->ndev; i++) {
		struct pdev *d = &r->dev[i];

		for (size_t a = 0; d->block && a < kp->nargs; a++)
			if (d->block[a])
				(void)clReleaseMemObject(d->block[a]);
		free(d->block);
		if (d->k)
			(void)clReleaseKernel(d->k);
		if (d->own_q && d->q) {
			(void)clFinish(d->q);
			(void)clReleaseCommandQueue(d->q);
		}
	}
	for (unsigned c = 0; c < r->nctx; c++) {
		for (size_t a = 0; r->ctx[c].copy && a < kp->nargs; a++)
			if (r->ctx[c].copy[a])
				(void)clReleaseMemObject(r->ctx[c].copy[a]);
		free(r->ctx[c].copy);
		free(r->ctx[c].written);
		pthread_mutex_destroy(&r->ctx[c].lock);
	}
	free(r->ctx);
	rt_subdevs_free(r->sd);
	for (size_t a = 0; r->owned && a < kp->nargs; a++) {
		free(r->owned[a]);
		free(r->pristine[a]);
	}
	free(r->host);
	free(r->owned);
	free(r->pristine);
	free(r->version);
	free(r->dev);
	free(r->trace);
	free(r->blocks);
	sched_free(r->sched);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	pthread_cond_destroy(&r->start);
}

static int setup(struct prun *r, double *build_ms, struct cs_err *e)
{
	const struct rt_devinfo *devs;
	size_t n;
	struct part_devices ch;

	if (rt_session_devices(r->env->rt, &devs, &n, e) ||
	    part_choose_devices(devs, n, r->o->gpu, &ch, e) || count_threads(r, &ch, e))
		return -1;
	r->dev = xcalloc(r->ndev, sizeof(*r->dev));
	r->nctx = 1 + r->ngpu;
	r->ctx = xcalloc(r->nctx, sizeof(*r->ctx));
	for (unsigned c = 0; c < r->nctx; c++)
		pthread_mutex_init(&r->ctx[c].lock, NULL);
	if (open_cores(r, &ch, build_ms, e))
		return -1;
	for (unsigned k = r->standin ? 1 : 0; k < r->ngpu; k++)
		if (open_gpu(r, k, ch.gpu[k], build_ms, e))
			return -1;
	for (unsigned i = 0; i < r->ndev; i++)
		if (part_space_group(&r->sp) > r->dev[i].info->max_work_group)
			return err_set(e, "local size %zu is more than %s ('%s') takes (%zu)",
			               part_space_group(&r->sp), r->dev[i].st.label,
			               r->dev[i].st.name, r->dev[i].info->max_work_group);
	return 0;
}

static int make_args(struct prun *r, struct cs_err *e)
{
	if (make_buffers(r, e))
		return -1;
	for (unsigned i = 0; i < r->ndev; i++)
		if (set_args(r, &r->dev[i], e))
			return -1;
	return 0;
}

static void fill_result(struct prun *r, struct part_result *res, double ms)
{
	res->label = xstrdup(r->kp->label);
	res->asked = r->o->sched;
	res->ran = sched_running(r->sched);
	res->items = r->items;
	res->granule = r->granule;
	res->steps = r->steps;
	res->ncpu = r->ncpu;
	res->gpu = r->gpu;
	res->standin = r->standin;
	res->threads = r->threads;
	res->time_ms = ms;
	res->ndev = r->ndev;
	res->dev = xcalloc(r->ndev ? r->ndev : 1, sizeof(*res->dev));
	for (unsigned i = 0; i < r->ndev; i++)
		res->dev[i] = r->dev[i].st;
	res->trace = r->trace;
	res->ntrace = r->ntrace;
	r->trace = NULL;
	res->gpu_share = r->share;
	res->fitted = sched_logfit_state(r->sched, &res->fit_a, &res->fit_b, &res->gpu_chunk);
	res->ngpu = r->ngpu;
	for (unsigned g = 0; g < r->ngpu; g++) {
		struct part_fit *f = &res->fits[g];

		f->fitted = sched_logfit_state_of(r->sched, g, &f->a, &f->b, &f->chunk);
	}
	res->gpu_fraction = sched_gpu_fraction(r->sched);
	res->relative_speed = sched_relative_speed(r->sched);
}

/* Static with --gpu-share auto (003 §5.1): every share from 0 to 100 % in 10 % steps, each a
 * whole run; the fastest is the one that runs (and is reported). */
static int profile_static(struct prun *r, struct part_result *res, double *best, struct cs_err *e)
{
	struct energy_reading ignored;
	int rc = 0;
	double best_ms = 0;
	char what[32];

	res->profiled = true;
	for (int p = 0; p < PART_PROFILE_N && rc == 0; p++) {
		double share = p / 10.0, ms;

		snprintf(what, sizeof(what), "profile %3d%%", p * 10);
		r->what = what;
		rc = run_all(r, share, &ms, NULL, &ignored, e);
		res->profile_ms[p] = ms;
		if (rc == 0 && (p == 0 || ms < best_ms)) {
			best_ms = ms;
			*best = share;
		}
	}
	r->what = sched_name(r->o->sched);
	return rc;
}

/* The launch gate compares launches in rows: a kernel run over another row shape, or with
 * another local size, has other variants in PoCL and is another key. */
static uint64_t launch_key(const struct kernel_plan *kp, const struct part_space *sp)
{
	uint64_t key = rt_launch_key(kp->kernel, kp->source, kp->build_options);

	for (unsigned d = 0; sp->dims > 1 && d < 3; d++)
		key = (key ^ sp->global[d] ^ ((uint64_t)sp->local[d] << 32)) * 1099511628211u;
	return key;
}

/* The GPU whose energy NVML reads: the one GPU device, else none named (NVML's only device,
 * else all of them: several GPUs, or a core standing in). */
static const char *energy_gpu(const struct prun *r)
{
	return r->gpu && r->ngpu - (r->standin ? 1 : 0) == 1 ? r->dev[r->ncpu + r->ngpu - 1].st.name
	                                                     : NULL;
}

/* t0: when the command started (staging is part of the setup time). */
static int run_engine(struct prun *r, struct part_result *res, double t0, struct cs_err *e)
{
	struct energy_meter *m;
	double share = r->o->gpu_share, ms = 0, build_ms = 0;
	int rc;

	r->several_runs = r->o->sched == SCHED_STATIC && share == PART_SHARE_AUTO;
	rc = setup(r, &build_ms, e) || host_data(r, e) || make_args(r, e) || warm_up(r, e) ? 1 : 0;
	/* Where only one device can take part the share decides nothing. */
	if (r->several_runs && (r->ncpu == 0 || !r->gpu)) {
		r->several_runs = false;
		share = r->gpu ? 1.0 : 0.0;
	}
	if (r->o->share) {
		if (rc == 0)
			share_blocks(r);
		rc = r->o->share->ready(r->o->share->arg, rc,
		                        r->several_runs ? PART_PROFILE_N + 1 : 1, r->items,
		                        r->granule, e);
	}
	res->setup_ms = clock_ms() - t0;
	res->build_ms = build_ms;
	if (rc)
		return rc;
	if (r->several_runs)
		rc = profile_static(r, res, &share, e);
	if (share < 0)
		share = 0;
	r->share = share;
	if (rc == 0) {
		m = energy_open(energy_gpu(r));
		rc = run_all(r, share, &ms, m, &res->energy, e);
		energy_close(m);
		if (rc == 0)
			kb_keep(r, ms);
	}
	progress_end(&r->progress);
	if (rc == 0)
		fill_result(r, res, ms);
	return rc;
}

int partition_run(const struct part_env *env, struct job_plan *jp, const struct part_stream *ps,
                  const struct part_opts *o, struct part_result *res, struct cs_err *e)
{
	struct prun r;
	double t0 = clock_ms();
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.env = env;
	r.o = o;
	r.jp = jp;
	r.kp = &jp->kp;
	r.ps = ps;
	part_space_init(&r.sp, jp->kp.dims, jp->kp.global, jp->kp.has_local ? jp->kp.local : NULL);
	r.items = r.sp.rows;
	r.granule = r.sp.granule;
	r.len = r.items;
	r.launch_key = launch_key(&jp->kp, &r.sp);
	r.what = sched_name(o->sched);
	r.progress.on = o->progress;
	r.steps = (unsigned)(o->steps > 0 ? o->steps : jp->kp.swap_count + 1);
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	pthread_cond_init(&r.start, NULL);
	if (check_plan(&jp->kp, &r.sp, ps, e)) {
		prun_free(&r);
		return 1;
	}
	rc = stage_in(jp, e) ? 1 : 0;
	if (rc == 0)
		rc = run_engine(&r, res, t0, e);
	else if (o->share) /* the other sharers are at the end of their setup */
		rc = o->share->ready(o->share->arg, rc, 0, r.items, r.granule, e);
	if (rc == 0 && (!o->share || o->share->deliver) && stage_out(jp, e))
		rc = 1;
	stage_release(jp);
	prun_free(&r);
	if (rc)
		part_result_free(res);
	return rc;
}

void part_result_free(struct part_result *r)
{
	free(r->label);
	free(r->dev);
	free(r->trace);
	free(r->rank_rows);
	free(r->rank_ms);
	memset(r, 0, sizeof(*r));
}
