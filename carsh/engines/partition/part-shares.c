/* The partition engine as one of several that share the space (part_share in partition.h:
 * the MPI ranks of mpi/partranks.c). The engine stays MPI-free: these hooks hand the
 * caller each step's outcome and written blocks, and take the rows it gives. */
#include <stdlib.h>

#include "engines/partition/partition-int.h"
#include "util/alloc.h"
#include "util/clock.h"

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

/* Setup ended with status rc: the sharers agree on it, and learn how many whole runs follow
 * (static's profile: PART_PROFILE_N + 1). */
int part_share_ready(struct prun *r, int rc, struct cs_err *e)
{
	const struct part_share *sh = r->o->share;

	if (rc == 0)
		share_blocks(r);
	return sh->ready(sh->arg, rc, r->several_runs ? PART_PROFILE_N + 1 : 1, r->items,
	                 r->granule, e);
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
	return part_new_sched(r, share, len, learnt ? &p : NULL, e);
}

/* One step of a shared space: the sharers agree on how it went and exchange its blocks. Its
 * time is this engine's own work, not the wait for the split. */
int part_share_step(struct prun *r, double share, bool last, struct cs_err *e)
{
	const struct part_share *sh = r->o->share;
	int rc = share_rows(r, share, e);
	double t = clock_ms();

	if (rc == 0 && r->len > 0)
		rc = part_run_step(r, e);
	return sh->step_end(sh->arg, rc, clock_ms() - t, last, r->blocks, r->nblocks, e);
}
