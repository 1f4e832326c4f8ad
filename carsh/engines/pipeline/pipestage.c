/* One item through the pipeline's stages (engines/pipeline/pipestage.h). */
#include "engines/pipeline/pipestage.h"

#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "model/flowmodel.h"
#include "util/alloc.h"
#include "util/clock.h"

static double now_s(void)
{
	return clock_ms() / 1000.0;
}

static enum pd_dom cpu_dom(const struct prun_policy *pol)
{
	return pol->c.mg ? PD_MG : PD_CG;
}

/* ---- cores ---- */

void pworker_init(struct pworker *w, struct prun_env *env, const struct prun_policy *pol,
                  struct pd_slot *slot, unsigned home)
{
	*w = (struct pworker){env, pol, slot, -1, home % env->dv->nc, -1};
}

/* The core this thread holds, leased now if it holds none: the least used, its last one
 * among equals. */
static unsigned lease(struct pworker *w)
{
	struct prun_env *env = w->env;
	unsigned c = w->pin >= 0 ? (unsigned)w->pin : w->last;

	if (w->core >= 0)
		return (unsigned)w->core;
	pthread_mutex_lock(&env->cores);
	for (unsigned i = 0; w->pin < 0 && i < env->dv->nc; i++)
		if (env->users[i] < env->users[c])
			c = i;
	env->users[c]++;
	pthread_mutex_unlock(&env->cores);
	w->core = (int)c;
	w->last = c;
	return c;
}

void pworker_release(struct pworker *w)
{
	if (w->core < 0)
		return;
	pthread_mutex_lock(&w->env->cores);
	w->env->users[w->core]--;
	pthread_mutex_unlock(&w->env->cores);
	w->core = -1;
}

/* The queue of domain d for this thread. */
static cl_command_queue dom_queue(struct pworker *w, enum pd_dom d)
{
	return d == PD_CG ? w->env->dv->cgq[lease(w)] : w->slot->q[d];
}

/* pitem's callback: a queue in the context of buffer space s (the CG context's through a
 * leased core). */
static cl_command_queue space_queue(void *arg, unsigned s)
{
	struct pworker *w = arg;
	const struct pipe_devs *dv = w->env->dv;

	if (s == dv->space[PD_MG])
		return w->slot->q[PD_MG];
	if (s == dv->space[PD_GPU] && s != dv->space[PD_CG])
		return w->slot->q[PD_GPU];
	return dom_queue(w, PD_CG);
}

static cl_command_queue domain_queue(void *arg, enum pd_dom d)
{
	return dom_queue(arg, d);
}

struct pitem_q pworker_queues(struct pworker *w)
{
	return (struct pitem_q){space_queue, domain_queue, w};
}

static int cl_check(cl_int err, const char *what, const char *name, enum pd_dom d, struct cs_err *e)
{
	if (err == CL_SUCCESS)
		return 0;
	return err_set(e, "%s '%s' (%s) failed: %s", what, name, pd_dom_name(d),
	               rt_cl_error_name(err));
}

/* Arguments of a plan's kernel for an item in domain d: streams are the item's buffers. */
static int set_args(struct pworker *w, struct pitem *it, const struct kernel_plan *kp,
                    const int *buf, cl_kernel k, enum pd_dom d, struct cs_err *e)
{
	for (size_t a = 0; a < kp->nargs; a++) {
		const struct kernel_arg *ka = &kp->args[a];
		cl_mem mem;
		cl_int err;

		if (ka->kind == ARG_CONSTANT) {
			err = clSetKernelArg(k, (cl_uint)a, ka->bytes, ka->value);
		} else if (ka->kind == ARG_LOCAL) {
			err = clSetKernelArg(k, (cl_uint)a, ka->bytes, NULL);
		} else {
			struct pitem_q q = pworker_queues(w);

			if (pitem_ensure(w->env->dv, &q, it, (size_t)buf[a], d,
			                 arg_is_read(ka->kind), &mem, e))
				return -1;
			err = clSetKernelArg(k, (cl_uint)a, sizeof(mem), &mem);
		}
		if (cl_check(err, "setting argument", ka->name, d, e))
			return -1;
	}
	return 0;
}

static int launch(struct pworker *w, const struct kernel_plan *kp, cl_kernel k, enum pd_dom d,
                  struct cs_err *e)
{
	cl_command_queue q = dom_queue(w, d);
	cl_int err = clEnqueueNDRangeKernel(q, k, kp->dims, NULL, kp->global,
	                                    kp->has_local ? kp->local : NULL, 0, NULL, NULL);

	if (cl_check(err, "launching kernel", kp->kernel, d, e))
		return -1;
	return cl_check(clFinish(q), "running kernel", kp->kernel, d, e);
}

/* 000 §V-C's transfers, measured apart in the GPU experiment: the stage's outputs come back
 * to the host and its device copies are dropped, so that the next stage moves its inputs. */
static int time_readback(struct pworker *w, struct pitem *it, size_t k, struct prun_item *rec,
                         struct cs_err *e)
{
	const struct pipe_stage_plan *sp = &w->env->pp->stages[k];
	struct pitem_q q = pworker_queues(w);
	double t = now_s();

	for (size_t a = 0; a < sp->jp->kp.nargs; a++) {
		if (sp->buf[a] < 0 || !arg_is_written(sp->jp->kp.args[a].kind))
			continue;
		if (pitem_to_host(w->env->dv, &q, it, (size_t)sp->buf[a], e))
			return -1;
		pitem_host_wrote(it, (size_t)sp->buf[a]);
	}
	rec->d2h[k] = now_s() - t;
	return 0;
}

static int run_stage(struct pworker *w, struct pitem *it, size_t k, enum pd_dom d,
                     struct prun_item *rec, struct cs_err *e)
{
	const struct pipe_stage_plan *sp = &w->env->pp->stages[k];
	const struct kernel_plan *kp = &sp->jp->kp;
	cl_kernel kern = w->slot->k[d][k];
	bool xfer = w->pol->xfer;
	double t0 = now_s(), t1;

	if (!kern)
		return err_set(e, "internal error: stage '%s' has no kernel on %s", sp->name,
		               pd_dom_name(d));
	if (set_args(w, it, kp, sp->buf, kern, d, e)) {
		/* Moves enqueued before the failure still read the item's host copies. */
		(void)clFinish(dom_queue(w, d));
		return err_prefix(e, "stage '%s': ", sp->name);
	}
	/* The training times the moves apart (000 §V-C): they end here. */
	if (xfer && cl_check(clFinish(dom_queue(w, d)), "moving the inputs of", sp->name, d, e))
		return -1;
	/* Off the CPU cores, the item needs no core (its inputs have moved). */
	if (d != PD_CG)
		pworker_release(w);
	t1 = now_s();
	if (launch(w, kp, kern, d, e))
		return err_prefix(e, "stage '%s', item %zu: ", sp->name, it->index);
	for (size_t a = 0; a < kp->nargs; a++)
		if (sp->buf[a] >= 0 && arg_is_written(kp->args[a].kind))
			pitem_wrote(w->env->dv, it, (size_t)sp->buf[a], d);
	rec->stage[k] = now_s() - (xfer ? t1 : t0);
	rec->h2d[k] = xfer ? t1 - t0 : 0;
	return xfer ? time_readback(w, it, k, rec, e) : 0;
}

/* The GPU, if it is free (or, strict, once it is). */
static bool take_gpu(struct prun_env *env, bool wait)
{
	if (wait) {
		pthread_mutex_lock(&env->gpu);
		return true;
	}
	return pthread_mutex_trylock(&env->gpu) == 0;
}

/* An item's path through a coupled mapping (000 §II): decided at its first stage mapped to
 * the GPU. */
enum cp_path { CP_UNDECIDED, CP_GPU_CPU, CP_CPU };

/* Where stage k goes: *held says whether this stage took the GPU for itself. In a coupled
 * mapping an item that finds the GPU idle at its first GPU stage is on the GPU-CPU path and
 * waits for the GPU at the later ones; one that finds it busy goes through the CPU path, every
 * stage on the CPU: 000 §II's "the item is directed through the CPU path", the two paths of
 * its model (§V-B). Falling back stage by stage instead sent GPU-CPU items to a core for the
 * GPU stages that found the GPU busy between their CPU stages, at 100 times the GPU's time. */
static enum pd_dom route(struct pworker *w, size_t k, bool item_on_gpu, enum cp_path *path,
                         bool *held)
{
	const struct prun_policy *pol = w->pol;
	bool capable = w->env->pp->stages[k].gpu && w->env->dv->has_gpu;

	*held = false;
	if (pol->gpu_all && capable)
		*held = take_gpu(w->env, true);
	else if (pol->c.dp && !pol->gpu_all)
		return item_on_gpu ? PD_GPU : cpu_dom(pol);
	else if (!pol->gpu_all && ((pol->c.mask >> k) & 1u) && capable && *path != CP_CPU) {
		*held = take_gpu(w->env, pol->strict || *path == CP_GPU_CPU);
		*path = *held ? CP_GPU_CPU : CP_CPU;
	}
	return *held ? PD_GPU : cpu_dom(pol);
}

/* The generator's kernel for the token's item in domain d; *secs: how long it took. */
static int generate(struct pworker *w, struct pitem *it, enum pd_dom d, double *secs,
                    struct cs_err *e)
{
	const struct pipe_plan *pp = w->env->pp;
	cl_kernel k = w->slot->k[d][pp->nstages];
	double t = now_s();
	struct job_plan *jp;
	int *bufs, rc;

	if (!k)
		return err_set(e, "internal error: the generator has no kernel on %s",
		               pd_dom_name(d));
	if (pipe_plan_generator(pp, it->index, &jp, e))
		return -1;
	/* Its one stream is the source buffer; the others are constants and locals. */
	bufs = xcalloc(jp->kp.nargs ? jp->kp.nargs : 1, sizeof(int));
	for (size_t a = 0; a < jp->kp.nargs; a++)
		bufs[a] = arg_is_stream(jp->kp.args[a].kind) ? pp->src_buf : -1;
	rc = set_args(w, it, &jp->kp, bufs, k, d, e) || launch(w, &jp->kp, k, d, e) ? -1 : 0;
	if (rc == 0)
		pitem_wrote(w->env->dv, it, (size_t)pp->src_buf, d);
	else
		err_prefix(e, "generator, item %zu: ", it->index);
	free(bufs);
	job_plan_free(jp);
	*secs = now_s() - t;
	return rc;
}

int pstage_read(const struct pipe_plan *pp, struct pitem *it, size_t index, struct cs_err *e)
{
	const struct pipe_buf *b = &pp->bufs[pp->src_buf];

	pitem_reset(it, index);
	if (!pp->files)
		return 0;
	if (datafile_read(pp->files[index], NULL, b->type.scalar, it->b[pp->src_buf].host,
	                  b->count * b->type.width, e))
		return -1;
	pitem_host_wrote(it, (size_t)pp->src_buf);
	return 0;
}

/* Stage k in domain d (the generator first, for the first stage of a generated item). */
static int stage_in(struct pworker *w, struct pitem *it, size_t k, enum pd_dom d,
                    struct prun_item *rec, struct cs_err *e)
{
	double gen = 0;
	int rc = 0;

	if (k == 0 && !w->env->pp->files)
		rc = generate(w, it, d, &gen, e);
	if (rc == 0)
		rc = run_stage(w, it, k, d, rec, e);
	rec->stage[k] += gen;
	return rc;
}

int pstage_item(struct pworker *w, struct pitem *it, struct prun_item *rec, struct cs_err *e)
{
	struct pitem_q q = pworker_queues(w);
	enum cp_path path = CP_UNDECIDED;
	bool item_on_gpu = false;
	double t0 = now_s();
	int rc = 0;

	/* DP: the thread that finds the GPU idle at the first stage is the GPU thread. */
	if (w->pol->c.dp && !w->pol->gpu_all)
		item_on_gpu = take_gpu(w->env, w->pol->strict);
	for (size_t k = 0; k < w->env->pp->nstages && rc == 0; k++) {
		bool held;
		enum pd_dom d = route(w, k, item_on_gpu, &path, &held);

		if (d == PD_MG)
			pthread_mutex_lock(&w->env->mg);
		rc = stage_in(w, it, k, d, rec, e);
		rec->gpu |= d == PD_GPU;
		if (d == PD_MG)
			pthread_mutex_unlock(&w->env->mg);
		if (held)
			pthread_mutex_unlock(&w->env->gpu);
	}
	if (rc == 0 && pitem_to_host(w->env->dv, &q, it, (size_t)w->env->pp->sink_buf, e))
		rc = err_prefix(e, "item %zu: ", it->index);
	if (item_on_gpu)
		pthread_mutex_unlock(&w->env->gpu);
	pworker_release(w);
	rec->wall = now_s() - t0;
	return rc;
}

int pstage_write(const struct pipe_plan *pp, struct pitem *it, struct cs_err *e)
{
	const struct pipe_buf *b = &pp->bufs[pp->sink_buf];
	char *path = pipe_plan_sink_path(pp, it->index);
	int rc = datafile_write(path, NULL, b->type.scalar, it->b[pp->sink_buf].host,
	                        b->count * b->type.width, pp->sink_columns, e);

	free(path);
	return rc;
}
