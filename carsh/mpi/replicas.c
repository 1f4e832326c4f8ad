/* The owner/version table of virtual buffers across ranks (mpi/replicas.h). A session
 * holds tens of buffers, so a list searched by name is enough. */
#include "mpi/replicas.h"

#include <stdlib.h>
#include <string.h>

#include "data/vbuf.h"
#include "util/alloc.h"

struct entry {
	char *name;
	unsigned long version;
	bool *holds; /* one per rank */
	void *map;   /* this rank's mapping for moves, or NULL */
	size_t bytes;
};

struct replicas {
	int ranks;
	struct entry *v;
	size_t n, cap;
};

struct replicas *replicas_new(int ranks)
{
	struct replicas *r = xcalloc(1, sizeof(*r));

	r->ranks = ranks;
	return r;
}

void replicas_free(struct replicas *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].holds);
		vbuf_unmap(r->v[i].map, r->v[i].bytes);
	}
	free(r->v);
	free(r);
}

static struct entry *find(const struct replicas *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, name) == 0)
			return &r->v[i];
	return NULL;
}

static void hold_all(struct replicas *r, struct entry *x, bool all)
{
	for (int i = 0; i < r->ranks; i++)
		x->holds[i] = all;
}

void replicas_add(struct replicas *r, const char *name)
{
	struct entry *x;

	replicas_remove(r, name);
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	x = &r->v[r->n++];
	x->name = xstrdup(name);
	x->version = 0;
	x->holds = xcalloc((size_t)r->ranks, sizeof(bool));
	x->map = NULL;
	x->bytes = 0;
	hold_all(r, x, true);
}

void replicas_remove(struct replicas *r, const char *name)
{
	struct entry *x = find(r, name);

	if (!x)
		return;
	free(x->name);
	free(x->holds);
	vbuf_unmap(x->map, x->bytes);
	*x = r->v[--r->n];
}

void replicas_swap(struct replicas *r, const char *a, const char *b)
{
	struct entry *x = find(r, a), *y = find(r, b);
	char *name;

	if (!x || !y)
		return;
	name = x->name;
	x->name = y->name;
	y->name = name;
}

void replicas_wrote(struct replicas *r, const char *name, int rank)
{
	struct entry *x = find(r, name);

	if (!x)
		return;
	x->version++;
	hold_all(r, x, rank < 0);
	if (rank >= 0 && rank < r->ranks)
		x->holds[rank] = true;
}

void replicas_received(struct replicas *r, const char *name, int rank)
{
	struct entry *x = find(r, name);

	if (x && rank >= 0 && rank < r->ranks)
		x->holds[rank] = true;
}

bool replicas_current(const struct replicas *r, const char *name, int rank)
{
	const struct entry *x = find(r, name);

	/* A name this table does not know was never made across ranks: nothing to move. */
	return !x || (rank >= 0 && rank < r->ranks && x->holds[rank]);
}

int replicas_owner(const struct replicas *r, const char *name)
{
	const struct entry *x = find(r, name);

	for (int i = 0; x && i < r->ranks; i++)
		if (x->holds[i])
			return i;
	return 0;
}

unsigned long replicas_version(const struct replicas *r, const char *name)
{
	const struct entry *x = find(r, name);

	return x ? x->version : 0;
}

void *replicas_mapping(const struct replicas *r, const char *name)
{
	const struct entry *x = find(r, name);

	return x ? x->map : NULL;
}

void replicas_keep_mapping(struct replicas *r, const char *name, void *map, size_t bytes)
{
	struct entry *x = find(r, name);

	if (!x) {
		vbuf_unmap(map, bytes);
		return;
	}
	vbuf_unmap(x->map, x->bytes);
	x->map = map;
	x->bytes = bytes;
}
