/* Algorithm 1 (004 §4.2.9-4.2.10): its four phases, and the edges to initialise on graphs
 * whose minimum set is known. */
#include <stdlib.h>
#include <string.h>

#include "graph/deadlock.h"
#include "graph_suites.h"
#include "util/alloc.h"
#include "util/strbuf.h"

static struct cs_err err;

static void find(const struct graph *g, struct cycle_list *l)
{
	struct adj a;

	adj_build(g, &a);
	ck_assert_msg(cycles_find(g, &a, l, &err) == 0, "%s", err.msg);
	adj_free(&a);
}

/* Elementary cyclic paths counted another way: every sequence of distinct nodes starting at
 * its smallest, closed, weighted by the number of parallel edges along it. */
static size_t brute_count(const struct graph *g, size_t *seq, size_t len, bool *used)
{
	size_t last = seq[len - 1], total = 0;

	total += graph_count_edges(g, last, seq[0]);
	for (size_t y = seq[0] + 1; y < g->nnodes; y++) {
		size_t m = graph_count_edges(g, last, y);

		if (used[y] || !m)
			continue;
		used[y] = true;
		seq[len] = y;
		total += m * brute_count(g, seq, len + 1, used);
		used[y] = false;
	}
	return total;
}

static size_t brute_cycles(const struct graph *g)
{
	size_t *seq = xcalloc(g->nnodes + 1, sizeof(*seq)), total = 0;
	bool *used = xcalloc(g->nnodes + 1, sizeof(*used));

	for (size_t s = 0; s < g->nnodes; s++) {
		seq[0] = s;
		used[s] = true;
		total += brute_count(g, seq, 1, used);
		used[s] = false;
	}
	free(seq);
	free(used);
	return total;
}

static struct graph *complete(size_t n)
{
	struct graph *g = graph_new("complete");
	char name[16];

	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%zu", i);
		graph_add_node(g, name, NULL);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j)
				graph_add_edge(g, i, j, EDGE_INTERMEDIATE);
	graph_add_exit(g, 0);
	return g;
}

static void check_elementary(const struct graph *g, const struct cycle *c)
{
	bool *seen = xcalloc(g->nnodes, sizeof(*seen));
	size_t first = g->edges[c->edges[0]].from;

	for (size_t k = 0; k < c->n; k++) {
		const struct graph_edge *ed = &g->edges[c->edges[k]];

		ck_assert_msg(!seen[ed->from], "node visited twice");
		seen[ed->from] = true;
		ck_assert_uint_ge(ed->from, first); /* starts at its lowest node */
		ck_assert_uint_eq(ed->to, g->edges[c->edges[(k + 1) % c->n]].from);
	}
	free(seen);
}

START_TEST(test_phase1_lists_every_elementary_cycle_once)
{
	/* K3 has 3 two-node and 2 three-node cycles; K4 6 + 8 + 6 = 20; K5 has 84. */
	static const size_t want[] = {0, 0, 1, 5, 20, 84};

	for (size_t n = 1; n <= 5; n++) {
		struct graph *g = complete(n);
		struct cycle_list l;

		find(g, &l);
		ck_assert_uint_eq(l.n, want[n]);
		ck_assert_uint_eq(l.n, brute_cycles(g));
		for (size_t i = 0; i < l.n; i++)
			check_elementary(g, &l.v[i]);
		ck_assert_uint_eq(cycles_drop_included(&l), 0); /* no path twice */
		cycle_list_free(&l);
		graph_free(g);
	}
}
END_TEST

START_TEST(test_phase1_counts_parallel_edges_and_self_loops)
{
	/* 004 §4.2.9: paths are told apart by their edges. Two streams A -> B and a return
	 * make two cyclic paths; the self-loop of C is a path of one node. */
	struct graph *g = graph_of("A B C", "A>B A>B B>A B>C C>C");
	struct cycle_list l;

	find(g, &l);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.n, brute_cycles(g));
	cycle_list_free(&l);
	graph_free(g);
}
END_TEST

START_TEST(test_phase1_matches_brute_force_on_random_graphs)
{
	unsigned long long seed = 42;

	for (int round = 0; round < 200; round++) {
		size_t n = 1 + rnd_next(&seed, 7), m = rnd_next(&seed, (unsigned)(3 * n + 1));
		struct graph *g = graph_of("", "");
		struct cycle_list l;
		char name[24];

		for (size_t i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "v%zu", i);
			graph_add_node(g, name, NULL);
		}
		for (size_t i = 0; i < m; i++)
			graph_add_edge(g, rnd_next(&seed, (unsigned)n),
			               rnd_next(&seed, (unsigned)n), EDGE_INTERMEDIATE);
		find(g, &l);
		ck_assert_uint_eq(l.n, brute_cycles(g));
		cycle_list_free(&l);
		graph_free(g);
	}
}
END_TEST

START_TEST(test_phase1_refuses_too_many_cycles)
{
	struct graph *g = complete(10); /* 1112073 elementary cycles */
	struct adj a;
	struct cycle_list l;

	adj_build(g, &a);
	ck_assert_int_eq(cycles_find(g, &a, &l, &err), -1);
	ck_assert_msg(strstr(err.msg, "more than 200000 cyclic paths") != NULL, "%s", err.msg);
	ck_assert_uint_eq(l.n, 0);
	adj_free(&a);
	graph_free(g);
}
END_TEST

START_TEST(test_phase2_sorts_by_length_and_keeps_the_order_of_equals)
{
	struct cycle_list l = {0};
	static const size_t e[] = {0, 1, 2, 3, 4, 5};
	static const size_t sizes[] = {3, 1, 2, 1, 3, 2};
	static const size_t first_edge[] = {1, 3, 2, 5, 0, 4}; /* expected order */

	for (size_t i = 0; i < 6; i++) {
		size_t *v = xcalloc(sizes[i], sizeof(*v));

		v[0] = e[i];
		cycle_list_add(&l, v, sizes[i]);
		free(v);
	}
	cycles_sort(&l);
	for (size_t i = 0; i < 6; i++)
		ck_assert_uint_eq(l.v[i].edges[0], first_edge[i]);
	cycle_list_free(&l);
}
END_TEST

START_TEST(test_phase3_removes_repeats_of_a_path_within_its_length)
{
	/* Figure 19's unrestricted walk finds node1 -> node2 -> node1 from both nodes
	 * (edges 1,3 and 3,1): the second is removed. Paths of other lengths stay. */
	struct cycle_list l = {0};

	cycle_list_add(&l, (size_t[]){1, 3}, 2);
	cycle_list_add(&l, (size_t[]){3, 1}, 2);
	cycle_list_add(&l, (size_t[]){1, 4}, 2);
	cycle_list_add(&l, (size_t[]){0, 1, 3}, 3);
	cycle_list_add(&l, (size_t[]){3, 0, 1}, 3);
	ck_assert_uint_eq(cycles_drop_included(&l), 2);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.v[0].edges[1], 3);
	ck_assert_uint_eq(l.v[1].edges[1], 4);
	ck_assert_uint_eq(l.v[2].n, 3);
	cycle_list_free(&l);
}
END_TEST

START_TEST(test_phase3_drops_paths_through_initonce_edges)
{
	struct graph *g = graph_of("A B C", "A>B B=>A B>C C>B");
	struct cycle_list l;
	unsigned char on_cycle[4] = {0};

	find(g, &l);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(cycles_drop_initialised(g, &l, on_cycle), 1);
	ck_assert_uint_eq(l.n, 1); /* B -> C -> B is left */
	ck_assert_uint_eq(on_cycle[1], 1);
	ck_assert_uint_eq(on_cycle[0] + on_cycle[2] + on_cycle[3], 0);
	cycle_list_free(&l);
	graph_free(g);
}
END_TEST

/* check's lines, as one string. */
static char *inits(const char *nodes, const char *edges, size_t *nopen)
{
	struct graph *g = graph_of(nodes, edges);
	struct deadlock d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_msg(deadlock_find(g, &d, &err) == 0, "%s", err.msg);
	deadlock_print(f, g, &d);
	fclose(f);
	*nopen = d.nopen;
	deadlock_free(&d);
	graph_free(g);
	return buf;
}

static void expect_inits(const char *nodes, const char *edges, const char *want, size_t nopen)
{
	size_t got_open;
	char *got = inits(nodes, edges, &got_open);

	ck_assert_msg(strcmp(got, want) == 0, "%s / %s: got '%s', want '%s'", nodes, edges, got,
	              want);
	ck_assert_uint_eq(got_open, nopen);
	free(got);
}

START_TEST(test_algorithm1_on_graphs_with_known_minimum)
{
	/* One cycle: one edge, the one closing it at its first node. */
	expect_inits("A B C", "A>B B>C C>A", "init C A\n", 1);
	/* A flow-model feeding itself (the Fibonacci case of §4.2.1). */
	expect_inits("A B", "A>A A>B", "init A A\n", 1);
	/* No cycle: nothing to initialise. */
	expect_inits("A B C", "A>B B>C A>C", "", 0);
	/* Two cycles sharing A -> B: that edge breaks both (minimum 1). */
	expect_inits("A B C D", "A>B B>C C>A B>D D>A", "init A B\n", 2);
	/* Nested: B -> C -> B inside A -> B -> C -> D -> A; B -> C is on both (minimum 1). */
	expect_inits("A B C D", "A>B B>C C>D D>A C>B", "init B C\n", 2);
	/* Two disjoint cycles need two edges: Figure 28, whose text initialises D -> A and
	 * C -> A. */
	expect_inits("A B C D E F", "A>B A>C B>D B>E D>F D>A C>A", "init D A\ninit C A\n", 2);
	/* The k-means graph of Figure 31(a): the feedback C -> B. */
	expect_inits("A B C D", "A>B B>C C>B C>D", "init C B\n", 1);
	/* Three cycles through a hub: A -> H -> A, B -> H -> B, C -> H -> C share no edge
	 * (minimum 3). */
	expect_inits("H A B C", "A>H H>A B>H H>B C>H H>C", "init A H\ninit B H\ninit C H\n", 3);
}
END_TEST

START_TEST(test_algorithm1_reports_initonce_edges_that_break_every_cycle)
{
	/* Already initialised: nothing open; the INITONCE edge is still listed. */
	expect_inits("A B C D", "A>B B>C C=>B C>D", "init C B\n", 0);
	/* One of two disjoint cycles initialised: the other needs an edge. */
	expect_inits("A B C D", "A>B B=>A C>D D>C", "init B A\ninit D C\n", 1);
	/* An INITONCE edge on no cycle is not needed and not listed. */
	expect_inits("A B", "A=>B", "", 0);
}
END_TEST

START_TEST(test_algorithm1_names_ports_of_parallel_edges)
{
	/* A -> B twice and B -> A twice make four cyclic paths; both returns are needed. */
	struct graph *g = graph_of("A B", "A>B A>B B>A B>A");
	struct deadlock d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	static const char *const names[] = {"re", "im", "x", "z"};

	for (size_t i = 0; i < 4; i++) {
		g->edges[i].output = xstrdup(names[i]);
		g->edges[i].input = xstrdup(names[i]);
	}
	ck_assert_int_eq(deadlock_find(g, &d, &err), 0);
	ck_assert_uint_eq(d.ncycles, 4);
	deadlock_print(f, g, &d);
	fclose(f);
	ck_assert_str_eq(buf, "init B.x A.x\ninit B.z A.z\n");
	free(buf);
	deadlock_free(&d);
	graph_free(g);
}
END_TEST

/* Removing the initialised edges leaves no cycle: checked by a colouring DFS. */
static bool has_cycle_from(const struct graph *g, const struct deadlock *d, size_t x,
                           unsigned char *colour)
{
	colour[x] = 1;
	for (size_t i = 0; i < g->nedges; i++) {
		size_t y = g->edges[i].to;

		if (g->edges[i].from != x || d->mark[i] != INIT_NO)
			continue;
		if (colour[y] == 1 || (colour[y] == 0 && has_cycle_from(g, d, y, colour)))
			return true;
	}
	colour[x] = 2;
	return false;
}

START_TEST(test_algorithm1_always_breaks_every_cycle)
{
	unsigned long long seed = 7;

	for (int round = 0; round < 300; round++) {
		size_t n = 1 + rnd_next(&seed, 8), m = rnd_next(&seed, (unsigned)(3 * n + 1));
		struct graph *g = graph_of("", "");
		unsigned char *colour;
		struct deadlock d;
		char name[24];

		for (size_t i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "v%zu", i);
			graph_add_node(g, name, NULL);
		}
		for (size_t i = 0; i < m; i++)
			graph_add_edge(g, rnd_next(&seed, (unsigned)n),
			               rnd_next(&seed, (unsigned)n),
			               rnd_next(&seed, 5) ? EDGE_INTERMEDIATE : EDGE_INITONCE);
		ck_assert_int_eq(deadlock_find(g, &d, &err), 0);
		colour = xcalloc(n, 1);
		for (size_t x = 0; x < n; x++)
			ck_assert_msg(colour[x] || !has_cycle_from(g, &d, x, colour),
			              "round %d: a cycle survives", round);
		free(colour);
		deadlock_free(&d);
		graph_free(g);
	}
}
END_TEST

Suite *suite_graph_cycles(void)
{
	Suite *s = suite_create("graph_cycles");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_phase1_lists_every_elementary_cycle_once);
	tcase_add_test(tc, test_phase1_counts_parallel_edges_and_self_loops);
	tcase_add_test(tc, test_phase1_matches_brute_force_on_random_graphs);
	tcase_add_test(tc, test_phase1_refuses_too_many_cycles);
	tcase_add_test(tc, test_phase2_sorts_by_length_and_keeps_the_order_of_equals);
	tcase_add_test(tc, test_phase3_removes_repeats_of_a_path_within_its_length);
	tcase_add_test(tc, test_phase3_drops_paths_through_initonce_edges);
	tcase_add_test(tc, test_algorithm1_on_graphs_with_known_minimum);
	tcase_add_test(tc, test_algorithm1_reports_initonce_edges_that_break_every_cycle);
	tcase_add_test(tc, test_algorithm1_names_ports_of_parallel_edges);
	tcase_add_test(tc, test_algorithm1_always_breaks_every_cycle);
	suite_add_tcase(s, tc);
	return s;
}
