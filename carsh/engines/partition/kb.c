/* The partition engine's knowledge base (engines/partition/kb.h, 001 §3.2), over the profile
 * history (data/profstore.h). */
#include "engines/partition/kb.h"

#include <stdlib.h>
#include <string.h>

#include "data/profstore.h"
#include "runtime/cache.h"
#include "util/alloc.h"

#define KIND "partition"

/* The values of a "partition" record. */
enum { V_SHARE, V_LGPU, V_LCPU, V_STEP };

char *kb_default_path(void)
{
	char *dir = cache_dir(), *path;

	if (!dir)
		return NULL;
	path = xasprintf("%s/%s", dir, PROFSTORE_FILE);
	free(dir);
	return path;
}

static size_t count(const struct profstore *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += !ps->r[i].gone && strcmp(ps->r[i].kind, KIND) == 0;
	return n;
}

struct part_kb *kb_open(const char *path)
{
	struct part_kb *kb = xcalloc(1, sizeof(*kb));

	kb->ps = profstore_open(path);
	kb->n = count(kb->ps);
	snprintf(kb->warning, sizeof(kb->warning), "%s", kb->ps->warning);
	return kb;
}

void kb_free(struct part_kb *kb)
{
	if (!kb)
		return;
	profstore_free(kb->ps);
	free(kb);
}

int kb_save(struct part_kb *kb, struct cs_err *e)
{
	return profstore_save(kb->ps, e);
}

bool kb_lookup(const struct part_kb *kb, const struct kb_key *k, struct sched_prior *p)
{
	const char *keys[] = {k->model, k->kernel, k->devices};
	const struct prof_rec *lo, *hi;

	if (!profstore_near(kb->ps, KIND, keys, k->items, &lo, &hi))
		return false;
	if (!lo || !hi) /* outside the known sizes: the nearest */
		lo = hi = lo ? lo : hi;
	p->share = profstore_lerp(lo, hi, k->items, V_SHARE);
	p->lgpu = profstore_lerp(lo, hi, k->items, V_LGPU);
	p->lcpu = profstore_lerp(lo, hi, k->items, V_LCPU);
	return true;
}

void kb_learn(struct part_kb *kb, const struct kb_key *k, const struct sched_prior *p,
              double step_ms)
{
	const char *keys[] = {k->model, k->kernel, k->devices};
	const double v[] = {p->share, p->lgpu, p->lcpu, step_ms};

	profstore_put(kb->ps, KIND, keys, k->items, v);
	kb->n = count(kb->ps);
}

size_t kb_forget(struct part_kb *kb, const char *model)
{
	size_t gone = profstore_forget(kb->ps, KIND, model);

	kb->n = count(kb->ps);
	return gone;
}

void kb_print(FILE *f, const struct part_kb *kb)
{
	for (size_t i = 0; i < kb->ps->n; i++) {
		const struct prof_rec *x = &kb->ps->r[i];

		if (x->gone || strcmp(x->kind, KIND) != 0)
			continue;
		fprintf(f,
		        "%s %s  [%s]  %zu items: GPU %.1f %%, GPU %.6g items/ms, core %.6g "
		        "items/ms, step %.3f ms\n",
		        x->keys[0], x->keys[1], x->keys[2], x->size, 100 * x->v[V_SHARE],
		        x->v[V_LGPU], x->v[V_LCPU], x->v[V_STEP]);
	}
}
