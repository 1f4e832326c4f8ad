/* The partition engine's OpenCL buffers (docs/partition.md, "Streams"): each device's own
 * buffer of every block stream, each context's copy streams, and the kernels' arguments. */
#include <stdlib.h>

#include "engines/partition/partition-int.h"
#include "util/alloc.h"
#include "util/clock.h"

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
 * nothing, and a write from the same pointer, which part_ensure_copies makes when the data
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
		d->held = xcalloc(kp->nargs ? kp->nargs : 1, sizeof(*d->held));
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

/* The buffers of every device and context, and each device's kernel arguments. */
int part_make_args(struct prun *r, struct cs_err *e)
{
	if (make_buffers(r, e))
		return -1;
	for (unsigned i = 0; i < r->ndev; i++)
		if (set_args(r, &r->dev[i], e))
			return -1;
	return 0;
}

/* The copy streams this context lacks at their current version, written through this
 * device's queue; the other devices of the context wait on the lock. */
int part_ensure_copies(struct prun *r, struct pdev *d, struct cs_err *e)
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
		else {
			pc->written[i] = r->version[i];
			d->st.in_bytes += kp->args[i].bytes;
		}
	}
	pthread_mutex_unlock(&pc->lock);
	d->st.copy_ms += clock_ms() - t;
	return rc;
}

/* Every run moves the copy streams to the GPU again, and every device's block inputs: the
 * time includes them. (The cores' context uses the host arrays and moves no copy stream.) */
void part_copies_stale(struct prun *r)
{
	for (unsigned i = 0; i < r->ndev; i++)
		for (size_t a = 0; r->dev[i].held && a < r->kp->nargs; a++)
			r->dev[i].held[a].ver = 0;
	for (unsigned c = 1; c < r->nctx; c++)
		for (size_t i = 0; i < r->kp->nargs; i++)
			r->ctx[c].written[i] = 0;
}

/* Releases the n buffers of m (NULL: none) and frees m. */
void part_mems_free(cl_mem *m, size_t n)
{
	for (size_t a = 0; m && a < n; a++)
		if (m[a])
			(void)clReleaseMemObject(m[a]);
	free(m);
}
