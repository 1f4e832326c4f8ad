/* The embedding API with the kernel features of real kernels (docs/api.md, "Structs and
 * loops"): a stream of structs bound to the caller's array of the same C struct, and a
 * loop that passes a step index and stops on a device result (a BFS over struct Node),
 * each compared with C. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "carsh.h"

#define PARTS 100
#define NODES 200

Suite *suite_api_structs(void);

static carsh_machine *machine(void)
{
	carsh_machine *m = NULL;

	ck_assert_msg(carsh_machine_open(NULL, &m) == 0, "%s", carsh_machine_last_error(m));
	return m;
}

static carsh_flowmodel *from_string(carsh_machine *m, const char *xml)
{
	carsh_flowmodel *fm = NULL;

	ck_assert_msg(carsh_flowmodel_from_string(m, xml, NULL, &fm) == 0, "%s",
	              carsh_machine_last_error(m));
	return fm;
}

/* OpenCL C aligns a float2 to 8 bytes: C says so with an attribute. 24 bytes: tag at 0, x
 * at 4, id at 8, v at 16. */
struct part {
	signed char tag;
	float x;
	long id;
	float v[2] __attribute__((aligned(8)));
};

static const char part_fm[] =
        "<FlowModel name=\"parts\"><Param name=\"N\" value=\"1\"/>"
        "<Struct name=\"Part\"><Field name=\"tag\" type=\"char\"/><Field name=\"x\" "
        "type=\"float\"/><Field name=\"id\" type=\"long\"/><Field name=\"v\" "
        "type=\"float2\"/></Struct>"
        "<Program><Source>struct Part { char tag; float x; long id; float2 v; };"
        "__kernel void parts(__global const struct Part *in, __global struct Part *out)"
        "{ size_t i = get_global_id(0); out[i].tag = in[i].tag * 2;"
        " out[i].x = in[i].x + in[i].v.y; out[i].id = in[i].id * 3;"
        " out[i].v = in[i].v * 2; }</Source><Kernel name=\"parts\"/></Program>"
        "<WorkSize global=\"N\"/><Arguments>"
        "<Input name=\"in\" type=\"struct Part\" count=\"N\"/>"
        "<Output name=\"out\" type=\"struct Part\" count=\"N\"/></Arguments></FlowModel>";

START_TEST(test_struct_stream_on_caller_memory_matches_c)
{
	static struct part in[PARTS], out[PARTS];
	carsh_machine *m = machine();
	carsh_flowmodel *fm = from_string(m, part_fm);
	char n[16];
	size_t bytes = 0;

	ck_assert_uint_eq(sizeof(struct part), 24);
	for (int i = 0; i < PARTS; i++)
		in[i] = (struct part){
		        (signed char)(i - 50), 0.5f * i, 1000000000L * i, {0.25f * i, -1.0f * i}};
	snprintf(n, sizeof(n), "%d", PARTS);
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "N", n), 0);
	ck_assert_int_eq(carsh_flowmodel_stream_bytes(fm, "in", &bytes), 0);
	ck_assert_uint_eq(bytes, sizeof(in));
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "in", in, sizeof(in) - 1), CARSH_E_SIZE);
	ck_assert_str_eq(
	        carsh_flowmodel_last_error(fm),
	        "<string>: stream 'in' is 2400 bytes (100 struct Part of 24 bytes), not 2399");
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "in", in, sizeof(in)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "out", out, sizeof(out)), 0);
	ck_assert_msg(carsh_flowmodel_fire(fm) == 0, "%s", carsh_flowmodel_last_error(fm));
	for (int i = 0; i < PARTS; i++) {
		ck_assert_int_eq(out[i].tag, (signed char)(in[i].tag * 2));
		ck_assert(out[i].x == in[i].x + in[i].v[1]);
		ck_assert_int_eq(out[i].id, in[i].id * 3);
		ck_assert(out[i].v[0] == in[i].v[0] * 2 && out[i].v[1] == in[i].v[1] * 2);
	}
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

/* A level-synchronous BFS: level t expands the nodes of level t (their cost is t) and marks
 * the unvisited neighbours; the second kernel visits them and says whether any was. */
struct node {
	int starting;
	int no_of_edges;
};

static const char expand_fm[] =
        "<FlowModel name=\"expand\"><Param name=\"N\" value=\"1\"/><Param name=\"E\" "
        "value=\"1\"/><Param name=\"t\" value=\"0\"/>"
        "<Struct name=\"Node\"><Field name=\"starting\" type=\"int\"/>"
        "<Field name=\"no_of_edges\" type=\"int\"/></Struct>"
        "<Program><Source>struct Node { int starting; int no_of_edges; };"
        "__kernel void expand(__global const struct Node *nodes, __global const int *edges,"
        " __global const int *visited, __global int *cost, __global int *next, int t)"
        "{ int u = get_global_id(0); if (cost[u] != t) return;"
        " for (int k = nodes[u].starting; k &lt; nodes[u].starting + nodes[u].no_of_edges; k++)"
        " { int v = edges[k]; if (!visited[v]) { cost[v] = t + 1; next[v] = 1; } } }"
        "</Source><Kernel name=\"expand\"/></Program><WorkSize global=\"N\"/><Arguments>"
        "<Input name=\"nodes\" type=\"struct Node\" count=\"N\"/>"
        "<Input name=\"edges\" type=\"int\" count=\"E\"/>"
        "<Input name=\"visited\" type=\"int\" count=\"N\"/>"
        "<InOut name=\"cost\" type=\"int\" count=\"N\"/>"
        "<InOut name=\"next\" type=\"int\" count=\"N\"/>"
        "<Constant name=\"t\" type=\"int\" value=\"t\"/></Arguments></FlowModel>";

static const char visit_fm[] =
        "<FlowModel name=\"visit\"><Param name=\"N\" value=\"1\"/><Program><Source>"
        "__kernel void visit(__global int *next, __global int *visited, __global int *changed)"
        "{ int u = get_global_id(0); if (next[u]) { next[u] = 0; visited[u] = 1;"
        " *changed = 1; } }</Source><Kernel name=\"visit\"/></Program>"
        "<WorkSize global=\"N\"/><Arguments><InOut name=\"next\" type=\"int\" count=\"N\"/>"
        "<InOut name=\"visited\" type=\"int\" count=\"N\"/>"
        "<InOut name=\"changed\" type=\"int\" count=\"1\"/></Arguments></FlowModel>";

/* A graph with a few edges a node, and its costs from node 0 by a C BFS. */
static int make_graph(struct node *nodes, int *edges, int *want)
{
	int e = 0, queue[NODES], head = 0, tail = 0;
	unsigned seed = 7;

	for (int u = 0; u < NODES; u++) {
		nodes[u].starting = e;
		nodes[u].no_of_edges = (u * 7) % 4;
		for (int k = 0; k < nodes[u].no_of_edges; k++) {
			seed = seed * 1103515245u + 12345u;
			edges[e++] = (int)((seed >> 8) % NODES);
		}
		want[u] = -1;
	}
	want[0] = 0;
	queue[tail++] = 0;
	while (head < tail) {
		int u = queue[head++];

		for (int k = nodes[u].starting; k < nodes[u].starting + nodes[u].no_of_edges; k++)
			if (want[edges[k]] < 0) {
				want[edges[k]] = want[u] + 1;
				queue[tail++] = edges[k];
			}
	}
	return e;
}

static carsh_buffer *buffer(carsh_machine *m, size_t bytes, const void *data)
{
	carsh_buffer *b = NULL;

	ck_assert_int_eq(carsh_buffer_new(m, bytes, &b), 0);
	ck_assert_int_eq(carsh_buffer_write(b, 0, data, bytes), 0);
	return b;
}

START_TEST(test_a_loop_with_a_step_index_until_nothing_changed_matches_c_bfs)
{
	static struct node nodes[NODES];
	static int edges[NODES * 4], want[NODES], cost[NODES], visited[NODES], zero[NODES];
	carsh_machine *m = machine();
	carsh_flowmodel *expand = from_string(m, expand_fm), *visit = from_string(m, visit_fm);
	int e = make_graph(nodes, edges, want), changed = 1, t;
	carsh_buffer *bcost, *bvisited, *bnext, *bchanged;
	char num[16];

	for (int u = 0; u < NODES; u++)
		cost[u] = u == 0 ? 0 : -1;
	visited[0] = 1;
	bcost = buffer(m, sizeof(cost), cost);
	bvisited = buffer(m, sizeof(visited), visited);
	bnext = buffer(m, sizeof(zero), zero);
	bchanged = buffer(m, sizeof(int), zero);
	snprintf(num, sizeof(num), "%d", NODES);
	ck_assert_int_eq(carsh_flowmodel_set_param(expand, "N", num), 0);
	ck_assert_int_eq(carsh_flowmodel_set_param(visit, "N", num), 0);
	snprintf(num, sizeof(num), "%d", e);
	ck_assert_int_eq(carsh_flowmodel_set_param(expand, "E", num), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(expand, "nodes", nodes, sizeof(nodes)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_memory(expand, "edges", edges, e * sizeof(int)), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(expand, "visited", bvisited), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(expand, "cost", bcost), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(expand, "next", bnext), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(visit, "next", bnext), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(visit, "visited", bvisited), 0);
	ck_assert_int_eq(carsh_flowmodel_bind_buffer(visit, "changed", bchanged), 0);
	/* The step index is a parameter set before each fire; the loop's condition is a
	 * buffer read after it, with a limit. */
	for (t = 0; changed && t < NODES; t++) {
		snprintf(num, sizeof(num), "%d", t);
		ck_assert_int_eq(carsh_flowmodel_set_param(expand, "t", num), 0);
		ck_assert_int_eq(carsh_buffer_write(bchanged, 0, zero, sizeof(int)), 0);
		ck_assert_msg(carsh_flowmodel_fire(expand) == 0, "%s",
		              carsh_flowmodel_last_error(expand));
		ck_assert_msg(carsh_flowmodel_fire(visit) == 0, "%s",
		              carsh_flowmodel_last_error(visit));
		ck_assert_int_eq(carsh_buffer_read(bchanged, 0, &changed, sizeof(int)), 0);
	}
	ck_assert_int_eq(changed, 0);
	ck_assert_int_eq(carsh_buffer_read(bcost, 0, cost, sizeof(cost)), 0);
	for (int u = 0; u < NODES; u++)
		ck_assert_msg(cost[u] == want[u], "node %d: cost %d, C's BFS says %d", u, cost[u],
		              want[u]);
	carsh_flowmodel_free(expand);
	carsh_flowmodel_free(visit);
	carsh_buffer_free(bcost);
	carsh_buffer_free(bvisited);
	carsh_buffer_free(bnext);
	carsh_buffer_free(bchanged);
	carsh_machine_free(m);
}
END_TEST

Suite *suite_api_structs(void)
{
	Suite *s = suite_create("api_structs");
	TCase *tc = tcase_create("structs");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_struct_stream_on_caller_memory_matches_c);
	tcase_add_test(tc, test_a_loop_with_a_step_index_until_nothing_changed_matches_c_bfs);
	suite_add_tcase(s, tc);
	return s;
}
