/* Host access to a virtual buffer (runner/bufhost.h). */
#include "runner/bufhost.h"

#include <stdlib.h>

#include "data/vhome.h"
#include "exec/executor.h"
#include "exec/homes.h"
#include "exec/threadexec.h"
#include "mpi/bufmoves.h"
#include "runner/buffers-int.h"
#include "runner/buffers.h"
#include "util/alloc.h"

struct resident *buffers_resident(const struct run_ctx *c)
{
	return c->s->texec ? texec_resident(c->s->texec) : NULL;
}

/* Host access to a buffer takes a hazard claim like a job, so it never races one. */
struct claim *buffers_claim_one(struct run_ctx *c, const struct vbuf *v, bool writes,
                                struct cs_err *e)
{
	struct exec_env env = run_exec_env(c);
	char *label;
	struct claim *cl;

	/* The jobs in flight hold claims that only their collection releases, unless the
	 * write goes between them (jobwin_host_write). */
	if (!c->window_group && run_window_drain(c, e))
		return NULL;
	label = xasprintf("virtbuf %s %s", writes ? "fill" : "dump", v->name);
	cl = claim_new(label);

	free(label);
	claim_use(cl, v->shm, v->name, writes);
	claim_set_group(cl, c->window_group);
	hazard_register(env.hz, cl);
	if (hazard_wait(env.hz, cl, NULL, NULL, env.interrupted) != 0) {
		hazard_release(env.hz, cl);
		err_set(e, "interrupted while waiting for '%s'", v->name);
		return NULL;
	}
	/* A writer may change part of it only (a file fill that fails part way): the rest must
	 * be the value a fill between a window's jobs left in the table alone. */
	if (writes && homes_value_to_host(c->s->homes, v->shm, v->name, e)) {
		hazard_release(env.hz, cl);
		return NULL;
	}
	return cl;
}

int buffers_host_current(struct run_ctx *c, const struct vbuf *v, struct cs_err *e)
{
	if (buffers_resident(c) && resident_to_host(buffers_resident(c), v->shm, e))
		return -1;
	return homes_to_host(c->s->homes, c->s->workers, v->shm, v->name, e);
}

void buffers_host_wrote(struct run_ctx *c, const struct vbuf *v)
{
	if (buffers_resident(c))
		resident_host_wrote(buffers_resident(c), v->shm);
	vhome_host_wrote(c->s->homes, v->shm);
}

bool buffers_host_valued(struct run_ctx *c, const struct vbuf *v, const void *value, size_t size)
{
	if (!c->window_group || buffers_resident(c) || !vhome_fill_fits(size, v->bytes))
		return false;
	vhome_host_valued(c->s->homes, v->shm, value, size);
	return true;
}

void buffers_host_filled(struct run_ctx *c, const struct vbuf *v, const void *value, size_t size)
{
	if (!vhome_fill_fits(size, v->bytes)) {
		buffers_host_wrote(c, v);
		return;
	}
	if (buffers_resident(c))
		resident_host_wrote(buffers_resident(c), v->shm);
	vhome_host_filled(c->s->homes, v->shm, value, size);
}

/* ---- the same host access, given to the moves across MPI ranks (mpi/bufmoves.h) ---- */

static struct claim *claim_for_move(void *c, const struct vbuf *v, bool writes, struct cs_err *e)
{
	return buffers_claim_one(c, v, writes, e);
}

static int current_for_move(void *c, const struct vbuf *v, struct cs_err *e)
{
	return buffers_host_current(c, v, e);
}

static void wrote_for_move(void *c, const struct vbuf *v)
{
	buffers_host_wrote(c, v);
}

static struct bufmove_host move_host(struct run_ctx *c)
{
	return (struct bufmove_host){c->s->vbufs,      c->s->replicas, c->s->hz, claim_for_move,
	                             current_for_move, wrote_for_move, c};
}

void buffers_bring(struct run_ctx *c, char *const *names, size_t n, int to)
{
	struct bufmove_host h = move_host(c);

	bufmove_bring(&h, names, n, to);
}

void buffers_place_plan(struct run_ctx *c, const struct job_plan *jp, int rank)
{
	struct bufmove_host h = move_host(c);

	bufmove_place_plan(&h, jp, rank);
}

void buffers_place_everywhere(struct run_ctx *c, const struct job_plan *jp)
{
	struct bufmove_host h = move_host(c);

	bufmove_place_everywhere(&h, jp);
}
