/* One whole run of the partition engine: every step, with a scheduler of its own (a run
 * learns only within itself; the knowledge base carries a profile across runs). */
#include <stdlib.h>

#include "engines/partition/partition-int.h"
#include "util/clock.h"

static void reset_run(struct prun *r)
{
	for (unsigned i = 0; i < r->ndev; i++) {
		struct part_devstat *s = &r->dev[i].st;

		s->chunks = s->items = s->last_chunk = 0;
		s->busy_ms = s->copy_ms = 0;
		s->in_bytes = 0;
	}
	r->ntrace = 0;
	r->done_items = 0;
	r->failed = false;
	r->in_flight = 0;
}

/* A fresh start for a run: the host data as the first run found it (several runs), the copy
 * streams to move again, nothing counted, and its scheduler. */
static int begin_run(struct prun *r, double share, struct cs_err *e)
{
	if (r->several_runs)
		part_host_restore(r);
	part_copies_stale(r);
	reset_run(r);
	sched_free(r->sched);
	r->sched = NULL;
	if (!r->o->share && part_new_sched(r, share, r->items, NULL, e))
		return 1;
	return 0;
}

/* Every step in turn, the pairs swapped on the host between them; ms: their time. */
static int run_steps(struct prun *r, double share, double *ms, struct energy_meter *m,
                     struct energy_reading *en, struct cs_err *e)
{
	const struct part_share *sh = r->o->share;
	int rc = 0;

	if (m)
		energy_start(m);
	r->t0 = clock_ms();
	for (r->step = 0; r->step < r->steps && rc == 0; r->step++) {
		bool last = r->step + 1 == r->steps;

		rc = sh ? part_share_step(r, share, last, e) : part_run_step(r, e);
		if (rc == 0 && !last)
			part_host_swap(r);
	}
	*ms = clock_ms() - r->t0;
	if (m)
		energy_stop(m, en);
	return rc;
}

/* Every step once, with a fresh scheduler (a run learns only within itself). Sharing the
 * space, the scheduler comes with each step's rows (share_rows, part-shares.c). */
int part_run_all(struct prun *r, double share, double *ms, struct energy_meter *m,
                 struct energy_reading *en, struct cs_err *e)
{
	const struct part_share *sh = r->o->share;
	struct worker *w;
	int rc;

	if (begin_run(r, share, e))
		return 1;
	w = part_start_threads(r, e);
	if (!w)
		/* The other sharers are at their first step's end. */
		return sh ? sh->step_end(sh->arg, 1, 0, r->steps == 1, NULL, 0, e) : 1;
	rc = run_steps(r, share, ms, m, en, e);
	part_stop_threads(r, w);
	if (r->step > 0)
		r->step--;
	return rc;
}
