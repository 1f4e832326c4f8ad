/* The partition engine and its knowledge base (engines/partition/kb.h, 001 §3.2.3): the key
 * of a run, the profile it starts from, what it learnt. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "engines/partition/partition-int.h"

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

/* A run with a known profile starts from it (001 §3.2.3), and from the cost map of the
 * space's regions where one is known. */
void part_kb_prime(struct prun *r)
{
	char model[PATH_MAX], devices[512];
	struct kb_key k;
	struct sched_prior p;

	double map[KB_MAP_REGIONS];

	if (!r->o->kb || !kb_key_of(r, &k, model, devices, sizeof(devices)))
		return;
	if (kb_lookup(r->o->kb, &k, &p))
		sched_prime(r->sched, &p);
	if (kb_lookup_map(r->o->kb, &k, map))
		sched_prime_map(r->sched, map, KB_MAP_REGIONS);
}

/* What the run learnt, for the next one (its profile, its cost map); ms: the whole run. */
void part_kb_keep(struct prun *r, double ms)
{
	char model[PATH_MAX], devices[512];
	struct kb_key k;
	struct sched_prior p;

	double map[KB_MAP_REGIONS];

	if (!r->o->kb || r->steps == 0 || !kb_key_of(r, &k, model, devices, sizeof(devices)))
		return;
	if (sched_profile(r->sched, &p))
		kb_learn(r->o->kb, &k, &p, ms / r->steps);
	if (sched_profile_map(r->sched, map, KB_MAP_REGIONS))
		kb_learn_map(r->o->kb, &k, map);
}
