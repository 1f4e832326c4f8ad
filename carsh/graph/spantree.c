/*
 * Algorithm 2 (004 §4.3.2), the depth-first spanning tree, with the depths DFST_Modified of
 * Algorithm 3 adds.
 *
 * Both listings test `NRPost[x] == 0` to tell a retreating edge x -> y from a cross edge.
 * x is the node being visited, whose NRPost is always still 0 there, so taken literally every
 * edge to an already numbered node that is not advancing would be retreating and the cross
 * branch could never run. The text defines a retreating edge as one whose target is an
 * ancestor (§4.3.2): an ancestor of x is exactly a node that has a preorder number but no
 * reverse-postorder number yet, so we test NRPost[y] == 0.
 */
#include <stdlib.h>
#include <string.h>

#include "graph/spantree.h"
#include "util/alloc.h"

struct dfst {
	const struct adj *a;
	struct spantree *t;
	size_t pre_num;
	size_t rpost_num;
};

static void dfst(struct dfst *d, size_t x)
{
	const struct adj *a = d->a;
	struct spantree *t = d->t;

	t->npre[x] = ++d->pre_num;
	t->reached++;
	for (size_t s = a->succ_start[x]; s < a->succ_start[x + 1]; s++) {
		size_t y = a->succ[s];

		if (t->npre[y] == 0) {
			t->cls[s] = EC_TREE;
			t->depth[y] = t->depth[x] + 1;
			dfst(d, y);
		} else if (t->npre[x] < t->npre[y]) {
			t->cls[s] = EC_ADVANCING;
		} else if (t->nrpost[y] == 0) {
			t->cls[s] = EC_RETREATING;
		} else {
			t->cls[s] = EC_CROSS;
		}
	}
	t->nrpost[x] = d->rpost_num--;
}

void spantree_build(const struct adj *a, size_t root, struct spantree *t)
{
	struct dfst d = {a, t, 0, a->n};

	memset(t, 0, sizeof(*t));
	t->root = root;
	t->n = a->n;
	t->npre = xcalloc(a->n + 1, sizeof(*t->npre));
	t->nrpost = xcalloc(a->n + 1, sizeof(*t->nrpost));
	t->depth = xcalloc(a->n + 1, sizeof(*t->depth));
	t->cls = xcalloc(a->succ_start[a->n] + 1, sizeof(*t->cls));
	dfst(&d, root);
}

void spantree_free(struct spantree *t)
{
	free(t->npre);
	free(t->nrpost);
	free(t->depth);
	free(t->cls);
	memset(t, 0, sizeof(*t));
}

bool spantree_spans(const struct spantree *t)
{
	return t->reached == t->n;
}

enum edge_class spantree_class(const struct spantree *t, const struct adj *a, size_t x, size_t y)
{
	size_t s = adj_succ_slot(a, x, y);

	return s == (size_t)-1 ? EC_UNREACHED : (enum edge_class)t->cls[s];
}

const char *edge_class_name(enum edge_class c)
{
	static const char *const names[] = {"unreached", "tree", "advancing", "retreating",
	                                    "cross"};

	return names[c];
}
