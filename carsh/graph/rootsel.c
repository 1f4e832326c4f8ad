/*
 * Algorithm 3's main loop (004 §4.3.5): try every root from which all nodes can be reached
 * (root_test; 004 §4.3.2: only such a root has a spanning tree), build its plan, and keep the
 * one that best meets the user conditions. 004's implementation looks for "the largest
 * parallelism" below MAX, "given by the programmer because of the limitation of the
 * resources (the number of accelerators)"; we take --max-parallel as that MAX, inclusive,
 * and keep the earliest root on a tie (the loop only replaces its choice on a better one).
 */
#include <errno.h>
#include <stdlib.h>

#include "graph/peast.h"
#include "util/alloc.h"
#include "util/strbuf.h"

/* The nodes the tree does not reach, as "'A', 'C'". */
static char *missed(const struct graph *g, const struct spantree *t)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t x = 0; x < g->nnodes; x++)
		if (!t->npre[x])
			sb_addf(&sb, "%s'%s'", sb.len ? ", " : "", g->nodes[x].name);
	return sb_detach(&sb);
}

static int root_error(const struct graph *g, const struct spantree *t, struct cs_err *e)
{
	char *m = missed(g, t);

	err_set(e, "%s: root '%s' does not reach %s; a PEA-ST root must reach every flow-model",
	        g->file, g->nodes[t->root].name, m);
	free(m);
	return -1;
}

int peast_opts_resolve(const struct graph *g, const char *root, const char *max_parallel,
                       struct peast_opts *o, struct cs_err *e)
{
	o->root = -1;
	o->max_parallel = 0;
	if (root) {
		o->root = graph_find_node(g, root);
		if (o->root < 0)
			return err_set(e, "%s: --root %s: no such node", g->file, root);
	}
	if (max_parallel) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(max_parallel, &end, 10);
		if (max_parallel[0] < '0' || max_parallel[0] > '9' || *end || errno || v < 1)
			return err_set(e, "--max-parallel '%s': expected a positive integer",
			               max_parallel);
		o->max_parallel = v;
	}
	return 0;
}

struct choice {
	struct peast_plan best;
	bool have;
	size_t roots; /* roots that span */
	size_t least; /* smallest parallelism seen, and its root */
	size_t least_root;
};

static void consider(const struct peast_opts *o, struct choice *c, struct peast_plan *p)
{
	if (!c->roots++ || p->parallelism < c->least) {
		c->least = p->parallelism;
		c->least_root = p->root;
	}
	if ((o->max_parallel && p->parallelism > o->max_parallel) ||
	    (c->have && p->parallelism <= c->best.parallelism)) {
		peast_plan_free(p);
		return;
	}
	if (c->have)
		peast_plan_free(&c->best);
	c->best = *p;
	c->have = true;
}

static int no_choice(const struct graph *g, const struct peast_opts *o, const struct choice *c,
                     struct cs_err *e)
{
	if (!c->roots)
		return err_set(e,
		               "%s: no flow-model reaches every other one, so there is no "
		               "spanning tree to schedule; PEA-ST needs one root "
		               "that feeds the whole graph",
		               g->file);
	return err_set(e,
	               "%s: no root gives a parallelism of at most %zu (the least is %zu, with "
	               "root '%s'); raise --max-parallel",
	               g->file, o->max_parallel, c->least, g->nodes[c->least_root].name);
}

int peast_select(const struct graph *g, const struct peast_opts *o, struct peast_plan *out,
                 struct cs_err *e)
{
	struct choice c = {.have = false};
	struct adj a;
	int rc = 0;

	adj_build(g, &a);
	for (size_t r = 0; r < g->nnodes; r++) {
		struct spantree t;
		struct peast_plan p;

		if (o->root >= 0 && (size_t)o->root != r)
			continue;
		spantree_build(&a, r, &t);
		if (spantree_spans(&t)) {
			peast_plan_build(g, &a, &t, &p);
			consider(o, &c, &p);
		} else if (o->root >= 0) {
			rc = root_error(g, &t, e);
		}
		spantree_free(&t);
	}
	if (!rc && !c.have)
		rc = no_choice(g, o, &c, e);
	adj_free(&a);
	if (rc)
		return -1;
	*out = c.best;
	return 0;
}
