/* A run's scheduler (sched.h) over len rows of the space: made from the command's options
 * and the devices, started from a profile the caller has (a sharer's new rows, part-shares.c)
 * or from the knowledge base (part-kb.c). A whole run (part-run.c) makes one per run. */
#include "engines/partition/partition-int.h"

/* A scheduler of len rows, started from prior (NULL: from the knowledge base). */
int part_new_sched(struct prun *r, double share, size_t len, const struct sched_prior *prior,
                   struct cs_err *e)
{
	struct sched_cfg cfg = {r->o->sched, len,    r->granule,
	                        r->ncpu,     r->gpu, r->gpu ? r->dev[r->ncpu].st.compute_units : 1,
	                        share,       0,      r->standin};
	unsigned neus[PART_MAX_GPUS];
	const char *why = "";

	sched_free(r->sched);
	for (unsigned g = 0; g < r->ngpu; g++)
		neus[g] = r->dev[r->ncpu + g].st.compute_units;
	r->sched = sched_new_gpus(&cfg, r->ngpu, neus, &why);
	if (!r->sched)
		return err_set(e, "--sched %s: %s", sched_name(r->o->sched), why);
	r->sched_len = len;
	sched_widest_known(r->sched, part_widest_launch(r));
	if (prior)
		sched_prime(r->sched, prior);
	else
		part_kb_prime(r);
	return 0;
}
