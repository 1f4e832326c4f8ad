/*
 * Algorithm 2 and PEA-ST (004 §4.3.2-4.3.6) on the paper's examples, worked out by hand from
 * the algorithm, and the stage property on random graphs.
 */
#include <stdlib.h>
#include <string.h>

#include "graph/peast.h"
#include "graph_suites.h"
#include "util/alloc.h"

static struct cs_err err;

/* The 004 Figure 28 graph. Its text fixes every edge: the tree edges A->B, A->C, B->D,
 * B->E, D->F (E has depth 2 via A->B->E, F depth 3 via A->B->D->F) and the initialised,
 * retreating, edges D->A and C->A; "others are the tree edges". */
#define FIG28_NODES "A B C D E F"
#define FIG28_EDGES "A>B A>C B>D B>E D>F D>A C>A"

/* peast --print for one root (or -1: the chosen one), as text. */
static char *plan_text(const char *nodes, const char *edges, long root, size_t max_parallel)
{
	struct graph *g = graph_of(nodes, edges);
	struct peast_opts o = {root, max_parallel};
	struct peast_plan p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_msg(peast_select(g, &o, &p, &err) == 0, "%s", err.msg);
	peast_print(f, g, &p);
	fclose(f);
	peast_plan_free(&p);
	graph_free(g);
	return buf;
}

static void expect_plan(const char *nodes, const char *edges, long root, size_t max_parallel,
                        const char *want)
{
	char *got = plan_text(nodes, edges, root, max_parallel);

	ck_assert_msg(strcmp(got, want) == 0, "root %ld: got\n%s\nwant\n%s", root, got, want);
	free(got);
}

START_TEST(test_dfst_classifies_tree_advancing_retreating_and_cross_edges)
{
	/* Nodes A0 B1 C2 D3; edges A>B A>C B>D C>D D>B A>D. From A, successors in node order:
	 * A(pre 1) -> B(pre 2) tree; B -> D(pre 3) tree; D -> B: B numbered, NPre[D] > NPre[B],
	 * B not yet post-numbered (on the path) -> retreating; D done (NRPost 4), B done (3);
	 * A -> C(pre 4) tree; C -> D: D finished, NPre[C] > NPre[D] -> cross; C done (2);
	 * A -> D: NPre[A] < NPre[D] -> advancing; A done (1). */
	struct graph *g = graph_of("A B C D", "A>B A>C B>D C>D D>B A>D");
	struct adj a;
	struct spantree t;
	static const size_t npre[] = {1, 2, 4, 3}, nrpost[] = {1, 3, 2, 4}, depth[] = {0, 1, 1, 2};

	adj_build(g, &a);
	spantree_build(&a, 0, &t);
	ck_assert(spantree_spans(&t));
	for (size_t x = 0; x < 4; x++) {
		ck_assert_uint_eq(t.npre[x], npre[x]);
		ck_assert_uint_eq(t.nrpost[x], nrpost[x]);
		ck_assert_uint_eq(t.depth[x], depth[x]);
	}
	ck_assert_int_eq(spantree_class(&t, &a, 0, 1), EC_TREE);
	ck_assert_int_eq(spantree_class(&t, &a, 1, 3), EC_TREE);
	ck_assert_int_eq(spantree_class(&t, &a, 3, 1), EC_RETREATING);
	ck_assert_int_eq(spantree_class(&t, &a, 0, 2), EC_TREE);
	ck_assert_int_eq(spantree_class(&t, &a, 2, 3), EC_CROSS);
	ck_assert_int_eq(spantree_class(&t, &a, 0, 3), EC_ADVANCING);
	spantree_free(&t);
	spantree_build(&a, 3, &t); /* D reaches B only */
	ck_assert(!spantree_spans(&t));
	spantree_free(&t);
	adj_free(&a);
	graph_free(g);
}
END_TEST

START_TEST(test_peast_figure28_root_a)
{
	/* 004 §4.3.4. Root A: depths A0 B1 C1 D2 E2 F3, total depth 4. Retreating D->A spans
	 * A, B, D (offset 2-0+1 = 3), C->A spans A, C (1-0+1 = 2): shift 3. Entry0 fills
	 * stages 0..3 with A | B C | D E | F; entry1 (shift 3) adds A to stage 3, the rest
	 * fall beyond the total depth; entry2 would start at 6 >= 4. The repeat batch is the
	 * last 3 rows, the startup the 4 - 3 = 1 before. 004: "the correct pipeline should
	 * become A -> (B, C) -> (D, E) -> (F, A) -> (B, C) ...", startup (A), repeat
	 * (B, C) -> (D, E) -> (F, A), maximum parallelism 2 "when we selected A". */
	expect_plan(FIG28_NODES, FIG28_EDGES, 0, 0,
	            "startup\tA\nrepeat\tB C\nrepeat\tD E\nrepeat\tF A\nshift\t3\nroot\tA\n");
}
END_TEST

START_TEST(test_peast_figure29b_root_c)
{
	/* 004 §4.3.6, Figure 29(b): the Figure 28 flow with root C. C's only output is C->A:
	 * C0 -> A1 -> B2 -> D3 -> F4, B -> E3; D->A and A->C now retreat, with offsets
	 * 3-1+1 = 3 and 1-0+1 = 2: shift 3, total depth 5. Entry0: C | A | B | D E | F;
	 * entry1 adds C to stage 3 and A to stage 4 (B would be at 5). Startup 5 - 3 = 2
	 * rows. "This case shows that the maximum parallelism becomes three." */
	expect_plan(FIG28_NODES, FIG28_EDGES, 2, 0,
	            "startup\tC\nstartup\tA\nrepeat\tB\nrepeat\tD E C\nrepeat\tF A\nshift\t3\n"
	            "root\tC\n");
}
END_TEST

START_TEST(test_peast_figure28_other_roots)
{
	/* Root B: B -> D(1) -> A(2) -> C(3), D -> F(2), B -> E(1); A->B retreats (2-0+1 = 3),
	 * C->A (3-2+1 = 2): shift 3, depth 4; entry1 puts B into stage 3. */
	expect_plan(FIG28_NODES, FIG28_EDGES, 1, 0,
	            "startup\tB\nrepeat\tD E\nrepeat\tA F\nrepeat\tC B\nshift\t3\nroot\tB\n");
	/* Root D: D -> A(1) -> B(2) -> E(3), A -> C(2), D -> F(1); B->D retreats (3), C->A
	 * (2-1+1 = 2): shift 3; entry1 puts D into stage 3. */
	expect_plan(FIG28_NODES, FIG28_EDGES, 3, 0,
	            "startup\tD\nrepeat\tA F\nrepeat\tB C\nrepeat\tE D\nshift\t3\nroot\tD\n");
}
END_TEST

START_TEST(test_peast_chooses_largest_parallelism_within_the_limit)
{
	/* Figure 28: roots A, B, C, D reach every node (E and F are sinks); their largest
	 * stages hold 2, 2, 3 and 2 nodes. No limit: C (§4.3.6). At most 2: A, B and D tie
	 * and the earliest, A, is kept. */
	char *c = plan_text(FIG28_NODES, FIG28_EDGES, -1, 0);
	char *a = plan_text(FIG28_NODES, FIG28_EDGES, -1, 2);

	ck_assert_msg(strstr(c, "root\tC\n") != NULL, "%s", c);
	ck_assert_msg(strstr(a, "root\tA\n") != NULL, "%s", a);
	free(c);
	free(a);
}
END_TEST

static void expect_select_error(const char *nodes, const char *edges, long root,
                                size_t max_parallel, const char *msg)
{
	struct graph *g = graph_of(nodes, edges);
	struct peast_opts o = {root, max_parallel};
	struct peast_plan p;

	ck_assert_int_eq(peast_select(g, &o, &p, &err), -1);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "'%s' lacks '%s'", err.msg, msg);
	graph_free(g);
}

START_TEST(test_peast_explains_when_no_root_fits)
{
	expect_select_error(FIG28_NODES, FIG28_EDGES, -1, 1,
	                    "no root gives a parallelism of at most 1 (the least is 2, with "
	                    "root 'A'); raise --max-parallel");
	expect_select_error(FIG28_NODES, FIG28_EDGES, 4, 0,
	                    "root 'E' does not reach 'A', 'B', 'C', 'D', 'F'");
	expect_select_error("A B C", "A>C B>C", -1, 0, "no flow-model reaches every other one");
}
END_TEST

START_TEST(test_peast_kmeans_figure31)
{
	/* 004 §4.3.7, Figure 31(a): A = InitCenterCluster, B = SetGroup, C = SetNewCenter,
	 * D = ChangeColor; A->B, B->C, C->B (the loop), C->D. Only A reaches all nodes.
	 * Depths A0 B1 C2 D3, total depth 4; C->B retreats with max_retreat_offset
	 * 2-1+1 = 2 (as the text says), so the shift is 2. Entry0: A | B | C | D; entry1
	 * adds A to stage 2 and B to stage 3, "the nodes C and D in the entry1 is canceled".
	 * The repeat batch is the last 2 rows and holds every flow-model; the first two
	 * rows are the startup. (004's prose names SetGroup and SetNewCenter as the
	 * startup, which the algorithm it lists does not produce: see docs/graphs.md.) */
	expect_plan("A B C D", "A>B B>C C>B C>D", -1, 0,
	            "startup\tA\nstartup\tB\nrepeat\tC A\nrepeat\tD B\nshift\t2\nroot\tA\n");
}
END_TEST

START_TEST(test_peast_straight_flows)
{
	/* §4.3.4: "we assume that nodes connected by an edge also have a retreating edge.
	 * Therefore, the default number of the consistency shift must be two." Figure 26(a),
	 * flowmodel1..4 in a line: "after the executions of flowmodel1 and flowmodel2 ... the
	 * combinations of flowmodel2 & 4 and flowmodel1 & 3 are executed concurrently". */
	expect_plan("f1 f2 f3 f4", "f1>f2 f2>f3 f3>f4", -1, 0,
	            "startup\tf1\nstartup\tf2\nrepeat\tf3 f1\nrepeat\tf4 f2\nshift\t2\nroot\tf1\n");
	/* Figure 29(a): a straight flow that "needs three iterations to generate an execute
	 * matrix" with "maximum parallelism three": with shift 2, entry2 fits only when the
	 * total depth is at least 5; five nodes give A | B | C A | D B | E C A. */
	expect_plan("A B C D E", "A>B B>C C>D D>E", -1, 0,
	            "startup\tA\nstartup\tB\nstartup\tC A\nrepeat\tD B\nrepeat\tE C A\n"
	            "shift\t2\nroot\tA\n");
	/* One flow-model: one stage, repeated. */
	expect_plan("A", "", -1, 0, "repeat\tA\nshift\t2\nroot\tA\n");
	/* A two-node loop: every node reaches all; both give parallelism 1; A is first. */
	expect_plan("A B", "A>B B>A", -1, 0, "repeat\tA\nrepeat\tB\nshift\t2\nroot\tA\n");
}
END_TEST

START_TEST(test_peast_fft_filter_reaches_parallelism_seven)
{
	/* 004 §4.3.7: the image filter has 13 flow-models in a line and "the maximum
	 * parallelism ... becomes seven": with shift 2 the last stage (depth 12) holds the
	 * nodes of depths 12, 10, ..., 0. */
	struct graph *g = graph_of("r1 f1 t1 r2 f2 t2 flt r3 i1 t3 r4 i2 t4",
	                           "r1>f1 f1>t1 t1>r2 r2>f2 f2>t2 t2>flt flt>r3 r3>i1 i1>t3 "
	                           "t3>r4 r4>i2 i2>t4");
	struct peast_opts o = {-1, 0};
	struct peast_plan p;

	ck_assert_int_eq(peast_select(g, &o, &p, &err), 0);
	ck_assert_uint_eq(p.parallelism, 7);
	ck_assert_uint_eq(p.nstages, 13);
	ck_assert_uint_eq(p.nstartup, 11);
	ck_assert_uint_eq(peast_stage_size(&p, 12), 7);
	ck_assert_uint_eq(peast_stage_size(&p, 11), 6);
	peast_plan_free(&p);
	o.max_parallel = 6; /* the only root: nothing fits */
	ck_assert_int_eq(peast_select(g, &o, &p, &err), -1);
	graph_free(g);
}
END_TEST

START_TEST(test_peast_non_tree_edges_keep_producers_out_of_their_consumers_stage)
{
	/* A cross edge C->B between two nodes of tree depth 1: B goes one deeper than C.
	 * A->B then spans two stages, so the shift is 3: A | C | B, all repeated. */
	expect_plan("A B C", "A>B A>C C>B", -1, 0,
	            "repeat\tA\nrepeat\tC\nrepeat\tB\nshift\t3\nroot\tA\n");
	/* An advancing edge A->C over A->B->C spans two stages: with shift 2, A would run in
	 * C's stage and overwrite what C reads. */
	expect_plan("A B C", "A>B B>C A>C", -1, 0,
	            "repeat\tA\nrepeat\tB\nrepeat\tC\nshift\t3\nroot\tA\n");
}
END_TEST

/* Where node x runs in the schedule startup + `passes` repeats: stage indices in order. */
struct runs {
	size_t **at; /* at[x][r]: the stage of x's r-th run */
	size_t *n;
};

static void schedule_runs(const struct graph *g, const struct peast_plan *p, size_t passes,
                          struct runs *r)
{
	size_t total = p->nstartup + passes * (p->nstages - p->nstartup), s = 0;

	r->at = xcalloc(g->nnodes, sizeof(*r->at));
	r->n = xcalloc(g->nnodes, sizeof(*r->n));
	for (size_t x = 0; x < g->nnodes; x++)
		r->at[x] = xcalloc(total + 1, sizeof(**r->at));
	for (size_t k = 0; k < total; k++) {
		s = k < p->nstartup ? k
		                    : p->nstartup + (k - p->nstartup) % (p->nstages - p->nstartup);
		for (size_t i = p->stage_start[s]; i < p->stage_start[s + 1]; i++) {
			size_t x = p->stage_node[i];

			r->at[x][r->n[x]++] = k;
		}
	}
}

static void runs_free(const struct graph *g, struct runs *r)
{
	for (size_t x = 0; x < g->nnodes; x++)
		free(r->at[x]);
	free(r->at);
	free(r->n);
}

/* Run r of y reads run r of x (run r-1 over a feedback edge), which must come before it,
 * and x's next run must come after it: what running the items one after another gives. */
static void check_consistent(const struct graph *g, const struct peast_plan *p,
                             const struct runs *r)
{
	for (size_t i = 0; i < g->nedges; i++) {
		size_t x = g->edges[i].from, y = g->edges[i].to, back = p->feedback[i];

		if (x == y)
			continue;
		for (size_t k = 0; k < r->n[y]; k++) {
			ck_assert_msg(k < back || (k - back < r->n[x] &&
			                           r->at[x][k - back] < r->at[y][k]),
			              "edge %zu: run %zu of its consumer before its input", i, k);
			ck_assert_msg(k + 1 - back >= r->n[x] ||
			                      r->at[x][k + 1 - back] > r->at[y][k],
			              "edge %zu: producer overwrites run %zu's input", i, k);
		}
	}
}

static void check_plan(const struct graph *g, const struct peast_plan *p)
{
	size_t *in_repeat = xcalloc(g->nnodes, sizeof(*in_repeat));
	struct runs r;

	for (size_t s = 0; s < p->nstages; s++) {
		for (size_t i = p->stage_start[s]; i < p->stage_start[s + 1]; i++) {
			for (size_t j = p->stage_start[s]; j < p->stage_start[s + 1]; j++) {
				size_t x = p->stage_node[i], y = p->stage_node[j];

				ck_assert(i == j || x != y);
				ck_assert_msg(x == y || !graph_count_edges(g, x, y),
				              "stage %zu: %s and %s share an edge", s,
				              g->nodes[x].name, g->nodes[y].name);
			}
			in_repeat[p->stage_node[i]] += s >= p->nstartup;
		}
	}
	for (size_t x = 0; x < g->nnodes; x++)
		ck_assert_uint_eq(in_repeat[x], 1); /* every node runs once per repeat */
	free(in_repeat);
	schedule_runs(g, p, 4, &r);
	check_consistent(g, p, &r);
	runs_free(g, &r);
}

START_TEST(test_peast_stage_property_on_random_graphs)
{
	unsigned long long seed = 2024;
	size_t plans = 0;

	for (int round = 0; round < 400; round++) {
		size_t n = 1 + rnd_next(&seed, 9), m = rnd_next(&seed, (unsigned)(3 * n + 1));
		struct graph *g = graph_of("", "");
		char name[24];

		for (size_t i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "v%zu", i);
			graph_add_node(g, name, NULL);
		}
		for (size_t i = 0; i < m; i++)
			graph_add_edge(g, rnd_next(&seed, (unsigned)n),
			               rnd_next(&seed, (unsigned)n), EDGE_INTERMEDIATE);
		for (size_t root = 0; root < n; root++) {
			struct peast_opts o = {(long)root, 0};
			struct peast_plan p;

			if (peast_select(g, &o, &p, &err))
				continue; /* root does not reach every node */
			check_plan(g, &p);
			peast_plan_free(&p);
			plans++;
		}
		graph_free(g);
	}
	ck_assert_uint_gt(plans, 300);
}
END_TEST

START_TEST(test_peast_opts_resolve_names_and_limits)
{
	struct graph *g = graph_of("A B", "A>B");
	struct peast_opts o;

	ck_assert_int_eq(peast_opts_resolve(g, "B", "3", &o, &err), 0);
	ck_assert_int_eq(o.root, 1);
	ck_assert_uint_eq(o.max_parallel, 3);
	ck_assert_int_eq(peast_opts_resolve(g, "X", NULL, &o, &err), -1);
	ck_assert_msg(strstr(err.msg, "--root X: no such node") != NULL, "%s", err.msg);
	ck_assert_int_eq(peast_opts_resolve(g, NULL, "0", &o, &err), -1);
	ck_assert_int_eq(peast_opts_resolve(g, NULL, "-1", &o, &err), -1);
	ck_assert_int_eq(peast_opts_resolve(g, NULL, "2x", &o, &err), -1);
	graph_free(g);
}
END_TEST

Suite *suite_graph_peast(void)
{
	Suite *s = suite_create("graph_peast");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_dfst_classifies_tree_advancing_retreating_and_cross_edges);
	tcase_add_test(tc, test_peast_figure28_root_a);
	tcase_add_test(tc, test_peast_figure29b_root_c);
	tcase_add_test(tc, test_peast_figure28_other_roots);
	tcase_add_test(tc, test_peast_chooses_largest_parallelism_within_the_limit);
	tcase_add_test(tc, test_peast_explains_when_no_root_fits);
	tcase_add_test(tc, test_peast_kmeans_figure31);
	tcase_add_test(tc, test_peast_straight_flows);
	tcase_add_test(tc, test_peast_fft_filter_reaches_parallelism_seven);
	tcase_add_test(tc, test_peast_non_tree_edges_keep_producers_out_of_their_consumers_stage);
	tcase_add_test(tc, test_peast_stage_property_on_random_graphs);
	tcase_add_test(tc, test_peast_opts_resolve_names_and_limits);
	suite_add_tcase(s, tc);
	return s;
}
