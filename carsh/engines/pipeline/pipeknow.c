/* The pipeline engine's corrections on disk (engines/pipeline/pipeknow.h). */
#include "engines/pipeline/pipeknow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "data/profstore.h"
#include "runtime/cache.h"
#include "util/alloc.h"

#define KIND "pipeline"

/* The values of a "pipeline" record. */
enum { V_RATIO, V_RUNS };

static void load(struct pknow *k)
{
	for (unsigned f = 0; f < PCHECK_FAMILIES; f++) {
		const char *keys[] = {k->keys[0], k->keys[1], pcheck_family_name(f)};
		const struct prof_rec *lo, *hi;

		if (!profstore_near(k->ps, KIND, keys, 1, &lo, &hi) || !lo || lo->size != 1)
			continue;
		if (lo->v[V_RATIO] > 0 && lo->v[V_RUNS] >= 1) {
			k->ratio[f] =
			        fmin(PKNOW_MAX_RATIO, fmax(1 / PKNOW_MAX_RATIO, lo->v[V_RATIO]));
			k->runs[f] = fmin(PKNOW_MAX_RUNS, lo->v[V_RUNS]);
		}
	}
}

struct pknow *pknow_open(const char *path, const char *name, const char *cpu, const char *gpu)
{
	struct pknow *k = xcalloc(1, sizeof(*k));
	char *p = path ? xstrdup(path) : cache_file(PROFSTORE_FILE);

	k->keys[0] = xstrdup(name);
	k->keys[1] = xasprintf("%s|%s", cpu, gpu);
	for (unsigned f = 0; f < PCHECK_FAMILIES; f++)
		k->ratio[f] = 1;
	if (p) {
		k->ps = profstore_open(p);
		load(k);
	}
	free(p);
	return k;
}

void pknow_free(struct pknow *k)
{
	if (!k)
		return;
	profstore_free(k->ps);
	free(k->keys[0]);
	free(k->keys[1]);
	free(k);
}

const char *pknow_warning(const struct pknow *k)
{
	return k->ps ? k->ps->warning : "";
}

double pknow_factor(const struct pknow *k, unsigned f)
{
	return f < PCHECK_FAMILIES && k->runs[f] > 0 ? k->ratio[f] : 1.0;
}

void pknow_learn(struct pknow *k, unsigned f, double ratio)
{
	double r, n;

	if (f >= PCHECK_FAMILIES || !(ratio > 0) || !isfinite(ratio))
		return;
	r = fmin(PKNOW_MAX_RATIO, fmax(1 / PKNOW_MAX_RATIO, ratio));
	n = k->runs[f];
	k->ratio[f] = exp((log(k->ratio[f]) * n + log(r)) / (n + 1));
	k->runs[f] = fmin(PKNOW_MAX_RUNS, n + 1);
	k->learnt = true;
}

int pknow_save(struct pknow *k, struct cs_err *e)
{
	if (!k->ps || !k->learnt)
		return 0;
	for (unsigned f = 0; f < PCHECK_FAMILIES; f++) {
		const char *keys[] = {k->keys[0], k->keys[1], pcheck_family_name(f)};
		double v[] = {k->ratio[f], k->runs[f]};

		if (k->runs[f] > 0)
			profstore_put(k->ps, KIND, keys, 1, v);
	}
	return profstore_save(k->ps, e);
}
