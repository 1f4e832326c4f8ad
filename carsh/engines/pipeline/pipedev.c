/* The pipeline engine's devices (engines/pipeline/pipedev.h). */
#include "engines/pipeline/pipedev.h"
#include "runtime/abortnote.h"
#include "runtime/kernelcheck.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"

const char *pd_dom_name(enum pd_dom d)
{
	static const char *const names[] = {"CG", "MG", "GPU"};

	return names[d];
}

static int choose(struct pipe_devs *dv, struct rt_session *rt, const char *gpu, struct cs_err *e)
{
	const struct rt_devinfo *devs;
	size_t n;
	unsigned cores;

	if (rt_session_devices(rt, &devs, &n, e))
		return -1;
	dv->cpu = rt_device_first(devs, n, CL_DEVICE_TYPE_CPU);
	if (!dv->cpu)
		return err_set(e, "no OpenCL CPU device (the CPU threads and the serial stages run "
		                  "there; see 'devices')");
	if (rt_device_choose_gpu(devs, n, dv->cpu, gpu, &dv->gpu, &dv->standin, e))
		return -1;
	dv->has_gpu = dv->gpu || dv->standin;
	cores = rt_subdevs_max(dv->cpu);
	if (dv->standin && cores < 2)
		return err_set(e,
		               "--gpu cpu: a CPU core can stand in for the GPU only on a CPU "
		               "device with two cores or more ('%s' gives %u)",
		               dv->cpu->name, cores);
	dv->nc = cores - (dv->standin ? 1 : 0);
	return 0;
}

/* The CG programs: one build per distinct source and options (stages often share a file). */
static int build_cg(struct pipe_devs *dv, struct cs_err *e)
{
	dv->owned = xcalloc(dv->nkern, sizeof(cl_program));
	for (size_t k = 0; k < dv->nkern; k++) {
		const struct kernel_plan *kp = dv->kp[k];
		bool hit;

		for (size_t j = 0; j < k && !dv->prog[PD_CG][k]; j++)
			if (strcmp(dv->kp[j]->source, kp->source) == 0 &&
			    strcmp(dv->kp[j]->build_options, kp->build_options) == 0)
				dv->prog[PD_CG][k] = dv->prog[PD_CG][j];
		if (dv->prog[PD_CG][k])
			continue;
		if (rt_subdevs_build(dv->sd, kp, &hit, e))
			return -1;
		/* The group keeps one program; this engine keeps one per source. */
		dv->prog[PD_CG][k] = dv->owned[dv->nowned++] = dv->sd->prog;
		dv->sd->prog = NULL;
	}
	return 0;
}

/* A domain the session serves (the whole CPU, the GPU): its context, and the programs of
 * the kernels in `want` (bit k: kernel index k), built for that device through the session. */
static int open_session_dom(struct pipe_devs *dv, struct rt_session *rt, enum pd_dom d,
                            const struct rt_devinfo *info, uint32_t want, struct cs_err *e)
{
	struct run_stats st;
	struct rt_dev *rd = NULL;
	char sel[24];

	memset(&st, 0, sizeof(st));
	snprintf(sel, sizeof(sel), "%d", info->index);
	for (size_t k = 0; k < dv->nkern; k++) {
		struct kernel_plan kp = *dv->kp[k];
		struct rt_kernel *rk;
		cl_int err;

		if (!(want >> k & 1u))
			continue;
		kp.device_exe = sel;
		kp.device_cli = kp.device_fm = NULL;
		if ((!rd && rt_session_device(rt, &kp, &rd, &st, e)) ||
		    rt_session_kernel(rt, rd, &kp, &rk, &st, e))
			return err_prefix(e, "%s ('%s'): ", pd_dom_name(d), info->name);
		err = clGetKernelInfo(rk->k, CL_KERNEL_PROGRAM, sizeof(cl_program), &dv->prog[d][k],
		                      NULL);
		if (err != CL_SUCCESS)
			return err_set(e, "%s: clGetKernelInfo(CL_KERNEL_PROGRAM) failed: %s",
			               pd_dom_name(d), rt_cl_error_name(err));
	}
	if (rd)
		dv->ctx[d] = rd->ctx;
	dv->build_ms += st.build_ms;
	return 0;
}

static void collect_plans(struct pipe_devs *dv, const struct pipe_plan *pp,
                          const struct kernel_plan *gen)
{
	dv->nkern = pp->nstages + 1;
	dv->kp = xcalloc(dv->nkern, sizeof(*dv->kp));
	for (size_t k = 0; k < pp->nstages; k++)
		dv->kp[k] = &pp->stages[k].jp->kp;
	dv->kp[pp->nstages] = gen;
	if (!gen)
		dv->nkern--;
	for (int d = 0; d < PD_NDOM; d++)
		dv->prog[d] = xcalloc(dv->nkern, sizeof(cl_program));
}

/* The GPU: the session's, for the stages that may use it and the generator (an item whose
 * first stage runs on the GPU is made there); or the stand-in core, which runs the CG
 * programs in the CG context. */
static int open_gpu_dom(struct pipe_devs *dv, struct rt_session *rt, const struct pipe_plan *pp,
                        struct cs_err *e)
{
	uint32_t want = 0;

	for (size_t k = 0; k < pp->nstages; k++)
		if (pp->stages[k].gpu)
			want |= 1u << k;
	if (pp->stages[0].gpu && dv->nkern > pp->nstages)
		want |= 1u << pp->nstages;
	if (!dv->standin) {
		dv->gpu_id = dv->gpu->device;
		return want ? open_session_dom(dv, rt, PD_GPU, dv->gpu, want, e) : 0;
	}
	dv->ctx[PD_GPU] = dv->sd->ctx;
	dv->gpu_id = dv->sd->ids[dv->nc];
	for (size_t k = 0; k < dv->nkern; k++)
		if (want >> k & 1u)
			dv->prog[PD_GPU][k] = dv->prog[PD_CG][k];
	return 0;
}

int pd_open(struct rt_session *rt, const struct pipe_plan *pp, const struct kernel_plan *gen,
            const char *gpu, struct pipe_devs **out, struct cs_err *e)
{
	struct pipe_devs *dv = xcalloc(1, sizeof(*dv));
	double t0;

	*out = NULL;
	collect_plans(dv, pp, gen);
	if (choose(dv, rt, gpu, e) || rt_subdevs_open(dv->cpu, dv->nc + dv->standin, &dv->sd, e))
		goto fail;
	dv->ctx[PD_CG] = dv->sd->ctx;
	t0 = clock_ms();
	if (build_cg(dv, e))
		goto fail;
	dv->build_ms += clock_ms() - t0;
	if (open_session_dom(dv, rt, PD_MG, dv->cpu, (1u << dv->nkern) - 1, e) ||
	    (dv->has_gpu && open_gpu_dom(dv, rt, pp, e)))
		goto fail;
	rt_abort_note_rearm(); /* the builds may have put a compiler's handler over it */
	dv->cgq = dv->sd->q;
	dv->space[PD_CG] = 0;
	dv->space[PD_MG] = 1;
	dv->space[PD_GPU] = dv->standin ? 0 : 2;
	dv->nspace = dv->standin || !dv->has_gpu ? 2 : 3;
	*out = dv;
	return 0;
fail:
	pd_close(dv);
	return -1;
}

void pd_close(struct pipe_devs *dv)
{
	if (!dv)
		return;
	for (size_t i = 0; i < dv->nowned; i++)
		(void)clReleaseProgram(dv->owned[i]);
	free(dv->owned);
	rt_subdevs_free(dv->sd);
	for (int d = 0; d < PD_NDOM; d++)
		free(dv->prog[d]);
	free(dv->kp);
	free(dv);
}

static int new_queue(cl_context ctx, cl_device_id dev, enum pd_dom d, cl_command_queue *q,
                     struct cs_err *e)
{
	cl_int err;

	*q = clCreateCommandQueue(ctx, dev, 0, &err);
	if (err != CL_SUCCESS) {
		*q = NULL;
		return err_set(e, "%s: clCreateCommandQueue failed: %s", pd_dom_name(d),
		               rt_cl_error_name(err));
	}
	return 0;
}

static int slot_kernels(struct pipe_devs *dv, struct pd_slot *s, enum pd_dom d, struct cs_err *e)
{
	s->k[d] = xcalloc(dv->nkern, sizeof(cl_kernel));
	for (size_t k = 0; k < dv->nkern; k++) {
		cl_int err;

		if (!dv->prog[d][k])
			continue;
		s->k[d][k] = clCreateKernel(dv->prog[d][k], dv->kp[k]->kernel, &err);
		if (err != CL_SUCCESS) {
			s->k[d][k] = NULL;
			return err_set(e, "kernel '%s' (%s): clCreateKernel failed: %s",
			               dv->kp[k]->kernel, pd_dom_name(d), rt_cl_error_name(err));
		}
		/* The session checked its own (MG, GPU); the cores' programs are this engine's. */
		if (d == PD_CG && rt_kernel_check(s->k[d][k], dv->cpu, dv->kp[k], e))
			return -1;
	}
	return 0;
}

int pd_slot_open(struct pipe_devs *dv, struct pd_slot *s, struct cs_err *e)
{
	memset(s, 0, sizeof(*s));
	if (new_queue(dv->ctx[PD_MG], dv->cpu->device, PD_MG, &s->q[PD_MG], e) ||
	    (dv->has_gpu && new_queue(dv->ctx[PD_GPU], dv->gpu_id, PD_GPU, &s->q[PD_GPU], e)))
		return -1;
	for (int d = 0; d < PD_NDOM; d++)
		if ((d == PD_CG || s->q[d]) && slot_kernels(dv, s, (enum pd_dom)d, e))
			return -1;
	return 0;
}

void pd_slot_close(struct pipe_devs *dv, struct pd_slot *s)
{
	for (int d = 0; d < PD_NDOM; d++) {
		for (size_t k = 0; s->k[d] && k < dv->nkern; k++)
			if (s->k[d][k])
				(void)clReleaseKernel(s->k[d][k]);
		free(s->k[d]);
		s->k[d] = NULL;
		if (s->q[d]) {
			(void)clFinish(s->q[d]);
			(void)clReleaseCommandQueue(s->q[d]);
			s->q[d] = NULL;
		}
	}
}
