/* One chunk on one device (docs/partition.md, "Chunks" and "PoCL's launch gate"): its block
 * transfers, its launch in pieces, the gate; and the warm-up before the timed run. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "engines/partition/partition-int.h"
#include "runtime/launchguard.h"
#include "util/alloc.h"
#include "util/clock.h"

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

size_t part_widest_launch(const struct prun *r)
{
	size_t w = rt_launch_widest(r->launch_key, r->granule);

	return w >= cpu_launch_max(r) ? SIZE_MAX : w;
}

/* The first and the last command of a chunk, to time them (profiling queues only). */
struct span {
	cl_event first, last;
	size_t left; /* commands still to enqueue: only the first and the last get an event */
};

/* The event to give the next command: NULL when the span is not wanted, or for a command
 * between the first and the last, which cost an event each for nothing (Static's SpMV on
 * 16 cores, with an event on every command: 10 % longer than without). */
static cl_event *span_ev(struct span *sp, cl_event *ev)
{
	*ev = NULL;
	return sp && (!sp->first || sp->left == 1) ? ev : NULL;
}

/* The command given ev (span_ev) was enqueued. */
static void span_add(struct span *sp, cl_event ev)
{
	if (!sp)
		return;
	sp->left--;
	if (!ev)
		return;
	if (!sp->first)
		sp->first = ev;
	else
		sp->last = ev;
}

/* From the first command's start to the last one's end, ms; < 0 where the queue does not
 * profile. Releases the events. */
static double span_ms(struct span *sp)
{
	cl_ulong a = 0, b = 0;
	cl_event end = sp->last ? sp->last : sp->first;
	double ms = -1;

	if (sp->first &&
	    clGetEventProfilingInfo(sp->first, CL_PROFILING_COMMAND_START, sizeof(a), &a, NULL) ==
	            CL_SUCCESS &&
	    clGetEventProfilingInfo(end, CL_PROFILING_COMMAND_END, sizeof(b), &b, NULL) ==
	            CL_SUCCESS &&
	    b >= a)
		ms = (double)(b - a) / 1e6;
	if (sp->first)
		clReleaseEvent(sp->first);
	if (sp->last)
		clReleaseEvent(sp->last);
	sp->first = sp->last = NULL;
	return ms;
}

static bool moves_block(const struct prun *r, size_t i, bool in)
{
	const struct kernel_arg *a = &r->kp->args[i];

	return arg_is_stream(a->kind) && r->ps[i].block &&
	       (in ? arg_is_read(a->kind) : arg_is_written(a->kind));
}

/* Whether device d's buffer of block input i already holds [bo, bo + bl) at the stream's
 * current version. Only an Input: an InOut's buffer is the kernel's to change. */
static bool holds(const struct prun *r, const struct pdev *d, size_t i, size_t bo, size_t bl)
{
	const struct held *h = &d->held[i];

	return r->kp->args[i].kind == ARG_INPUT && h->ver == r->version[i] && bo >= h->lo &&
	       bo + bl <= h->hi;
}

/* [bo, bo + bl) of block input i was written to d's buffer: the held range grows where the
 * new one touches it, else is replaced. */
static void note_held(const struct prun *r, struct pdev *d, size_t i, size_t bo, size_t bl)
{
	struct held *h = &d->held[i];

	if (h->ver == r->version[i] && bo <= h->hi && bo + bl >= h->lo) {
		h->lo = bo < h->lo ? bo : h->lo;
		h->hi = bo + bl > h->hi ? bo + bl : h->hi;
	} else
		*h = (struct held){r->version[i], bo, bo + bl};
}

/* Whether the chunk [off, off + n) moves block stream i: an input the device does not hold
 * yet (in), or an output; bo, bl: its bytes. */
static bool chunk_moves(const struct prun *r, const struct pdev *d, size_t off, size_t n, size_t i,
                        bool in, size_t *bo, size_t *bl)
{
	if (!moves_block(r, i, in))
		return false;
	part_rows_bytes(&r->sp, r->ps[i].unit, type_size(r->kp->args[i].type), off, off + n, bo,
	                bl);
	return !in || !holds(r, d, i, *bo, *bl);
}

/* The commands of a chunk: its block inputs, its launches, its block outputs. */
static size_t chunk_commands(const struct prun *r, const struct pdev *d,
                             const struct sched_chunk *c, bool keep)
{
	size_t p = launch_piece(r, d), n = c->size, k = n / p + (n % p != 0), bo, bl;

	for (size_t i = 0; i < r->kp->nargs; i++)
		k += chunk_moves(r, d, c->offset, n, i, true, &bo, &bl) +
		     (keep && chunk_moves(r, d, c->offset, n, i, false, &bo, &bl));
	return k;
}

/* The chunk's part of the block streams: the inputs to the device (in; not those its
 * buffer holds already at their version), or the outputs back into the host arrays. */
static int move_blocks(struct prun *r, struct pdev *d, const struct sched_chunk *c, bool in,
                       struct span *sp, struct cs_err *e)
{
	const struct kernel_plan *kp = r->kp;
	size_t off = c->offset, n = c->size, bo, bl;
	cl_event ev;
	cl_int err;

	for (size_t i = 0; i < kp->nargs; i++) {
		if (!chunk_moves(r, d, off, n, i, in, &bo, &bl))
			continue;
		err = in ? clEnqueueWriteBuffer(d->q, d->block[i], CL_FALSE, bo, bl,
		                                (char *)r->host[i] + bo, 0, NULL, span_ev(sp, &ev))
		         : clEnqueueReadBuffer(d->q, d->block[i], CL_FALSE, bo, bl,
		                               (char *)r->host[i] + bo, 0, NULL, span_ev(sp, &ev));
		if (err != CL_SUCCESS)
			return cl_fail(d,
			               in ? "writing its part of a block stream"
			                  : "reading its part of a block stream",
			               c, err, e);
		span_add(sp, ev);
		if (in) {
			note_held(r, d, i, bo, bl);
			d->st.in_bytes += bl;
		}
	}
	return 0;
}

/* Always the same local size: PoCL compiles a kernel anew for every local size it is
 * launched with, and chooses one from the global size when none is given. On the cores
 * a chunk is also launched in pieces below 65536 work-items: PoCL compiles a second
 * variant for larger launches (and part_warm_up compiles only the small ones). */
static int launch_chunk(struct prun *r, struct pdev *d, const struct sched_chunk *c,
                        struct span *sp, struct cs_err *e)
{
	size_t off = c->offset, n = c->size;
	cl_event ev;
	cl_int err;

	for (size_t at = 0, step = launch_piece(r, d); at < n; at += step) {
		size_t go[3], gs[3];

		part_space_launch(&r->sp, off + at, n - at < step ? n - at : step, go, gs);
		err = clEnqueueNDRangeKernel(d->q, d->k, r->sp.dims, go, gs, r->sp.local, 0, NULL,
		                             span_ev(sp, &ev));
		if (err != CL_SUCCESS)
			return cl_fail(d, "the launch", c, err, e);
		span_add(sp, ev);
	}
	return 0;
}

/* The chunk's part of the block inputs to the device, the launch with the chunk's offset,
 * its part of the block outputs back into the host arrays (003 §4 footnote 1: the GPU's time
 * includes both transfers); keep false (the warm-up): nothing comes back. *fixed (NULL: not
 * wanted) gets the chunk's time outside its commands: enqueueing, the device's wake-up, the
 * wait for the end. */
static int run_chunk_unguarded(struct prun *r, struct pdev *d, const struct sched_chunk *c,
                               bool keep, double *fixed, struct cs_err *e)
{
	struct span sp = {NULL, NULL, fixed ? chunk_commands(r, d, c, keep) : 0},
	            *spp = fixed ? &sp : NULL;
	double t = clock_ms(), busy;
	cl_int err;
	int rc = 0;

	if (move_blocks(r, d, c, true, spp, e) || launch_chunk(r, d, c, spp, e) ||
	    (keep && move_blocks(r, d, c, false, spp, e)))
		rc = -1;
	err = clFinish(d->q);
	if (rc == 0 && err != CL_SUCCESS)
		rc = cl_fail(d, "finishing", c, err, e);
	busy = span_ms(&sp);
	if (fixed)
		*fixed = rc == 0 && busy >= 0 ? fmax(clock_ms() - t - busy, 0) : -1;
	return rc;
}

/* *t: the time spent at the gate is added to its gate_ms, the chunk's fixed cost to its
 * fixed_ms. */
static int run_chunk_gated(struct prun *r, struct pdev *d, const struct sched_chunk *c, bool keep,
                           struct chunk_times *t, struct cs_err *e)
{
	double t0 = clock_ms(), fixed = -1;
	bool alone = rt_launch_enter(r->launch_key, d->info->device, r->granule, c->offset, c->size,
	                             launch_piece(r, d));
	int rc;

	t->gate_ms += clock_ms() - t0;
	if (c->offset == 0)
		part_head_entered(r);
	rc = run_chunk_unguarded(r, d, c, keep, t->want_fixed ? &fixed : NULL, e);
	t->fixed_ms = fixed < 0 || t->fixed_ms < 0 ? -1 : t->fixed_ms + fixed;
	rt_launch_leave(alone); /* run_chunk_unguarded ends with clFinish, failed or not */
	return rc;
}

/* run_chunk_unguarded, on PoCL through the launch gate (runtime/launchguard.h): without it
 * PoCL 5.0 aborts when the cores run chunks at once. A launch at offset 0 runs alone, so a
 * chunk there goes in two: its first granule alone, the rest beside the others. Whole, the
 * chunk at the step's start held every other PoCL device back for as long as it ran: a core
 * standing in for the GPU with Static's share at offset 0 ran its step alone, and 50 % of
 * Mandelbrot to it took as long as 0 or 100 % (two cores busy one at a time). */
int part_run_chunk(struct prun *r, struct pdev *d, const struct sched_chunk *c, bool keep,
                   struct chunk_times *t, struct cs_err *e)
{
	struct sched_chunk head = {c->offset, r->granule, c->phase},
	                   rest = {c->offset + r->granule, c->size - r->granule, c->phase};
	struct chunk_times own = {t && t->want_fixed, 0, 0};
	int rc;

	if (!d->guarded)
		rc = run_chunk_unguarded(r, d, c, keep, own.want_fixed ? &own.fixed_ms : NULL, e);
	else if (c->offset != 0 || c->size <= r->granule)
		rc = run_chunk_gated(r, d, c, keep, &own, e);
	else
		rc = run_chunk_gated(r, d, &head, keep, &own, e) ||
		                     run_chunk_gated(r, d, &rest, keep, &own, e)
		             ? -1
		             : 0;
	if (!own.want_fixed)
		own.fixed_ms = -1;
	if (t)
		*t = own;
	return rc;
}

/* One launch at offset 0 and one past it on one device of each context, before the timed
 * run: PoCL compiles a kernel for its local size, and apart for a zero offset, at the first
 * such launch (shared by the sub-devices of one context), which would otherwise land in the
 * first chunks' times and LogFit's first samples. Nothing is read back. */
int part_warm_up(struct prun *r, struct cs_err *e)
{
	bool *done = xcalloc(r->nctx, sizeof(*done));
	int rc = 0;

	for (unsigned i = 0; i < r->ndev && rc == 0; i++) {
		struct pdev *d = &r->dev[i];
		unsigned c = (unsigned)(d->pc - r->ctx);

		if (done[c])
			continue;
		done[c] = true;
		rc = part_ensure_copies(r, d, e);
		for (size_t off = 0; rc == 0 && off <= r->granule && off + r->granule <= r->items;
		     off += r->granule) {
			struct sched_chunk ch = {off, r->granule, PHASE_FIT};

			rc = part_run_chunk(r, d, &ch, false, NULL, e);
		}
	}
	free(done);
	return rc ? -1 : 0;
}
