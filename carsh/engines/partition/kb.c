/* The partition engine's knowledge base (engines/partition/kb.h, 001 §3.2), over the profile
 * history (data/profstore.h). */
#include "engines/partition/kb.h"

#include <stdlib.h>
#include <string.h>

#include "data/profstore.h"
#include "runtime/cache.h"
#include "util/alloc.h"

#define KIND     "partition"
#define KIND_MAP "partition-map"

/* The values of a "partition" record. */
enum { V_SHARE, V_LGPU, V_LCPU, V_STEP };

char *kb_default_path(void)
{
	return cache_file(PROFSTORE_FILE);
}

/* The record of kind with x's keys and size, or NULL. */
static const struct prof_rec *twin(const struct profstore *ps, const struct prof_rec *x,
                                   const char *kind)
{
	for (size_t i = 0; i < ps->n; i++) {
		const struct prof_rec *y = &ps->r[i];

		if (!y->gone && y->size == x->size && strcmp(y->kind, kind) == 0 &&
		    strcmp(y->keys[0], x->keys[0]) == 0 && strcmp(y->keys[1], x->keys[1]) == 0 &&
		    strcmp(y->keys[2], x->keys[2]) == 0)
			return y;
	}
	return NULL;
}

/* Whether x is an entry of its own: a profile, or a cost map without one. */
static bool is_entry(const struct profstore *ps, const struct prof_rec *x)
{
	if (x->gone)
		return false;
	if (strcmp(x->kind, KIND) == 0)
		return true;
	return strcmp(x->kind, KIND_MAP) == 0 && !twin(ps, x, KIND);
}

static size_t count(const struct profstore *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->n; i++)
		n += is_entry(ps, &ps->r[i]);
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

bool kb_lookup_map(const struct part_kb *kb, const struct kb_key *k, double *map)
{
	const char *keys[] = {k->model, k->kernel, k->devices};
	const struct prof_rec *lo, *hi;

	if (!profstore_near(kb->ps, KIND_MAP, keys, k->items, &lo, &hi))
		return false;
	if (!lo || !hi)
		lo = hi = lo ? lo : hi;
	for (int i = 0; i < KB_MAP_REGIONS; i++)
		map[i] = profstore_lerp(lo, hi, k->items, i);
	return true;
}

void kb_learn_map(struct part_kb *kb, const struct kb_key *k, const double *map)
{
	const char *keys[] = {k->model, k->kernel, k->devices};

	profstore_put(kb->ps, KIND_MAP, keys, k->items, map);
	kb->n = count(kb->ps);
}

size_t kb_forget(struct part_kb *kb, const char *model)
{
	size_t before = kb->n;

	profstore_forget(kb->ps, KIND, model);
	profstore_forget(kb->ps, KIND_MAP, model);
	kb->n = count(kb->ps);
	return before - kb->n;
}

/* "a cost map of 64 regions: a core 0.001-0.08 ms an item", after ", " where after */
static void print_map(FILE *f, const struct prof_rec *m, bool after)
{
	double lo = m->v[0], hi = m->v[0];

	for (int i = 1; i < KB_MAP_REGIONS; i++) {
		lo = m->v[i] < lo ? m->v[i] : lo;
		hi = m->v[i] > hi ? m->v[i] : hi;
	}
	fprintf(f, "%sa cost map of %d regions: a core %.3g-%.3g ms an item", after ? ", " : "",
	        KB_MAP_REGIONS, lo, hi);
}

void kb_print(FILE *f, const struct part_kb *kb)
{
	for (size_t i = 0; i < kb->ps->n; i++) {
		const struct prof_rec *x = &kb->ps->r[i], *m;

		if (!is_entry(kb->ps, x))
			continue;
		fprintf(f, "%s %s  [%s]  %zu items: ", x->keys[0], x->keys[1], x->keys[2], x->size);
		if (strcmp(x->kind, KIND_MAP) == 0) {
			print_map(f, x, false);
		} else {
			fprintf(f,
			        "GPU %.1f %%, GPU %.6g items/ms, core %.6g items/ms, step %.3f ms",
			        100 * x->v[V_SHARE], x->v[V_LGPU], x->v[V_LCPU], x->v[V_STEP]);
			if ((m = twin(kb->ps, x, KIND_MAP)))
				print_map(f, m, true);
		}
		fputc('\n', f);
	}
}
