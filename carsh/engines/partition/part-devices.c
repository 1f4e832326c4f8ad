/* The devices the partition engine's threads drive (003 §3, §5): the CPU's cores as
 * single-core sub-devices in one context, and the GPUs through the thread executor's session;
 * each with a kernel object and a queue of the run's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/partition/gpus.h"
#include "engines/partition/partition-int.h"
#include "runtime/kernelcheck.h"
#include "runtime/launchguard.h"
#include "runtime/subdev.h"
#include "util/alloc.h"
#include "util/clock.h"

/* The devices of the threads that the scheduler uses: cpu the cores, gpu the GPUs, static
 * with a share of 0 or 1 the one side. */
static int sched_devices(struct prun *r, bool have_gpu, unsigned threads, struct cs_err *e)
{
	enum sched_kind k = r->o->sched;

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
	return 0;
}

/* 003 §5: "--threads N" is the GPU's host thread and N-1 cores (1: the GPU alone); without a
 * GPU, N cores. With several GPUs N-1 is still the cores, and each GPU has a thread of its
 * own (N-1 + GPUs threads in all). Which of them a scheduler uses follows (sched_devices). */
static int count_threads(struct prun *r, const struct part_devices *ch, struct cs_err *e)
{
	bool have_gpu = ch->ngpu > 0;
	unsigned max = ch->cores + (have_gpu ? 1 : 0), threads = r->o->threads;

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
	if (sched_devices(r, have_gpu, threads, e))
		return -1;
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

/* The devices this run's threads drive, each with its kernel and queue, and their contexts;
 * build_ms gets the time of the program builds. */
int part_open_devices(struct prun *r, double *build_ms, struct cs_err *e)
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

static void close_device(struct pdev *d, size_t nargs)
{
	part_mems_free(d->block, nargs);
	free(d->held);
	if (d->k)
		(void)clReleaseKernel(d->k);
	if (d->own_q && d->q) {
		(void)clFinish(d->q);
		(void)clReleaseCommandQueue(d->q);
	}
}

/* The devices with their buffers, then the contexts' copy streams, then the cores'
 * sub-devices (which own the cores' queues). */
void part_close_devices(struct prun *r)
{
	const struct kernel_plan *kp = r->kp;

	for (unsigned i = 0; r->dev && i < r->ndev; i++)
		close_device(&r->dev[i], kp->nargs);
	for (unsigned c = 0; c < r->nctx; c++) {
		part_mems_free(r->ctx[c].copy, kp->nargs);
		free(r->ctx[c].written);
		pthread_mutex_destroy(&r->ctx[c].lock);
	}
	free(r->ctx);
	rt_subdevs_free(r->sd);
	free(r->dev);
}
