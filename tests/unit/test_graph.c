/* The CarshGraph reader and the pipeline-model conditions (004 §4.2.1); the runner of the
 * check_graph program. */
#include <stdlib.h>
#include <string.h>

#include "graph/validate.h"
#include "graph_suites.h"
#include "util/alloc.h"

static struct cs_err err;

struct graph *graph_of(const char *nodes, const char *edges)
{
	struct graph *g = graph_new("t");
	char *copy = xstrdup(nodes), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		graph_add_node(g, w, NULL);
	free(copy);
	copy = xstrdup(edges);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *gt = strchr(w, '>');
		bool once = gt > w && gt[-1] == '=';
		char *from = xstrndup(w, (size_t)(gt - w - once));

		ck_assert_msg(graph_find_node(g, from) >= 0 && graph_find_node(g, gt + 1) >= 0,
		              "bad edge %s", w);
		graph_add_edge(g, (size_t)graph_find_node(g, from),
		               (size_t)graph_find_node(g, gt + 1),
		               once ? EDGE_INITONCE : EDGE_INTERMEDIATE);
		free(from);
	}
	free(copy);
	if (g->nnodes)
		graph_add_exit(g, g->nnodes - 1);
	return g;
}

unsigned rnd_next(unsigned long long *state, unsigned bound)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((*state >> 33) % bound);
}

static struct graph *read_text(const char *text)
{
	struct xml_doc d;
	struct graph *g = NULL;

	err_clear(&err);
	if (xml_load_memory(text, strlen(text), "dir/t.xml", &d, &err))
		return NULL;
	struct xml_ctx x = {d.file, d.dir, &err};
	graph_from_node(&x, xmlDocGetRootElement(d.doc), &g);
	xml_free(&d);
	return g;
}

#define KMEANS                                                                        \
	"<CarshGraph name=\"kmeans\">\n"                                              \
	"  <Node name=\"A\" exe=\"init.exe.xml\"/>\n"                                 \
	"  <Edge from=\"A\" to=\"B\" output=\"centers\" input=\"centers\"/>\n"        \
	"  <Node name=\"B\"/>\n"                                                      \
	"  <Node name=\"C\" exe=\"/abs/c.exe.xml\"/>\n"                               \
	"  <Edge from=\"B\" to=\"C\"/>\n"                                             \
	"  <Edge from=\"C\" to=\"B\" output=\"next\" input=\"fb\" kind=\"INITONCE\" " \
	"limit=\"3\"/>\n"                                                             \
	"  <Entrance node=\"A\" input=\"image\" limit=\"1\"/>\n"                      \
	"  <Exit node=\"C\" output=\"result\"/>\n"                                    \
	"</CarshGraph>\n"

START_TEST(test_reader_reads_nodes_in_file_order_and_resolves_edges)
{
	struct graph *g = read_text(KMEANS);

	ck_assert_msg(g != NULL, "%s", err.msg);
	ck_assert_str_eq(g->name, "kmeans");
	ck_assert_uint_eq(g->nnodes, 3);
	ck_assert_str_eq(g->nodes[1].name, "B");
	ck_assert_str_eq(g->nodes[0].exe, "dir/init.exe.xml"); /* relative to the graph */
	ck_assert_str_eq(g->nodes[2].exe, "/abs/c.exe.xml");
	ck_assert_ptr_null(g->nodes[1].exe);
	ck_assert_uint_eq(g->nedges, 3);
	ck_assert_uint_eq(g->edges[0].from, 0); /* declared before its target node */
	ck_assert_uint_eq(g->edges[0].to, 1);
	ck_assert_str_eq(g->edges[0].output, "centers");
	ck_assert_ptr_null(g->edges[1].input);
	ck_assert_int_eq(g->edges[1].kind, EDGE_INTERMEDIATE);
	ck_assert_int_eq(g->edges[1].limit, 1);
	ck_assert_int_eq(g->edges[2].kind, EDGE_INITONCE);
	ck_assert_int_eq(g->edges[2].limit, 3);
	ck_assert_uint_eq(g->nentrances, 1);
	ck_assert_str_eq(g->entrances[0].stream, "image");
	ck_assert_uint_eq(g->nexits, 1);
	ck_assert_uint_eq(g->exits[0].node, 2);
	ck_assert_int_eq(graph_validate(g, &err), 0);
	graph_free(g);
}
END_TEST

static void expect_error(const char *body, const char *msg)
{
	char *text = xasprintf("<CarshGraph>\n<Node name=\"A\"/>\n<Node name=\"B\"/>\n%s\n"
	                       "</CarshGraph>\n",
	                       body);
	struct graph *g = read_text(text);

	ck_assert_msg(g == NULL, "accepted: %s", body);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "'%s' lacks '%s'", err.msg, msg);
	free(text);
}

START_TEST(test_reader_names_the_element_and_the_fault)
{
	expect_error("<Edge from=\"A\" to=\"X\"/>",
	             "dir/t.xml:4: <Edge from=\"A\" to=\"X\">: unknown node 'X' (declare it with "
	             "<Node name=\"X\"/>)");
	expect_error("<Node name=\"A\"/>",
	             "dir/t.xml:4: <Node name=\"A\">: duplicate node 'A' (first at line 2)");
	expect_error("<Edge from=\"A\" to=\"B\" kind=\"INIT\"/>",
	             "<Edge from=\"A\" to=\"B\">: unknown kind 'INIT' (INTERMEDIATE or INITONCE)");
	expect_error("<Edge from=\"A\" to=\"B\" limit=\"0\"/>", "limit '0' is not a positive");
	expect_error("<Edge from=\"A\" to=\"B\" limit=\"-2\"/>", "limit '-2' is not a positive");
	expect_error("<Edge from=\"A\" to=\"B\" limit=\"3x\"/>", "limit '3x' is not a positive");
	expect_error("<Edge from=\"A\" to=\"B\" limit=\"99999999999\"/>", "is not a positive");
	expect_error("<Edge from=\"A\" to=\"B\"/><Edge from=\"A\" to=\"B\" output=\"x\"/>",
	             "dir/t.xml:4: <Edge from=\"A\" to=\"B\">: ambiguous: another edge from 'A' "
	             "to 'B' at line 4; name the streams of each with output= and input=");
	expect_error("<Edge from=\"A\" to=\"B\" input=\"x\"/><Edge from=\"B\" to=\"B\" "
	             "input=\"x\"/>",
	             "input 'x' of 'B' is already fed by the edge at line 4");
	expect_error("<Entrance node=\"B\" input=\"x\"/><Edge from=\"A\" to=\"B\" input=\"x\"/>",
	             "input 'x' of 'B' is already fed by the <Entrance> at line 4");
	expect_error("<Exit node=\"B\"/><Exit node=\"B\"/>",
	             "<Exit node=\"B\">: the same port as the <Exit> at line 4; name it with "
	             "output=");
	expect_error("<Edge from=\"A\" to=\"B\" kidn=\"x\"/>",
	             "<Edge from=\"A\" to=\"B\">: unknown attribute 'kidn' (allowed: from to "
	             "output input kind limit value file)");
	expect_error("<Edge from=\"A\"/>", "<Edge from=\"A\">: missing attribute 'to'");
	expect_error("<Edge from=\"A\" to=\"B\" output=\"9x\"/>",
	             "output '9x' is not a stream name");
	expect_error("<Node name=\"a b\"/>", "'a b' is not a node name");
	expect_error("<Node name=\"C\" exe=\"\"/>", "empty exe=");
	expect_error("<Nod name=\"C\"/>",
	             "dir/t.xml:4: unknown element <Nod> in <CarshGraph> (allowed: Param Node Edge "
	             "Entrance Exit)");
	expect_error("<Exit node=\"Z\"/>", "unknown node 'Z'");
	expect_error("text", "unexpected text");
}
END_TEST

START_TEST(test_reader_accepts_parallel_edges_told_apart_by_ports)
{
	struct graph *g = read_text("<CarshGraph><Node name=\"A\"/><Node name=\"B\"/>"
	                            "<Edge from=\"A\" to=\"B\" output=\"re\" input=\"re\"/>"
	                            "<Edge from=\"A\" to=\"B\" output=\"im\" input=\"im\"/>"
	                            "<Edge from=\"B\" to=\"A\"/>"
	                            "<Exit node=\"B\" output=\"re\"/><Exit node=\"B\" "
	                            "output=\"im\"/></CarshGraph>");
	char *s;

	ck_assert_msg(g != NULL, "%s", err.msg);
	ck_assert_str_eq(g->name, "t.xml"); /* no name=: the file's */
	s = graph_edge_ends(g, 1);
	ck_assert_str_eq(s, "A.im B.im"); /* two edges A -> B: ports name the one meant */
	free(s);
	s = graph_edge_ends(g, 2);
	ck_assert_str_eq(s, "B A");
	free(s);
	graph_free(g);
}
END_TEST

START_TEST(test_graph_read_refuses_other_roots_and_missing_files)
{
	struct graph *g;

	ck_assert_int_eq(graph_read("/nonexistent/g.xml", &g, &err), -1);
	ck_assert_ptr_null(g);
	ck_assert_msg(strstr(err.msg, "No such file") != NULL, "%s", err.msg);
}
END_TEST

static void expect_invalid(struct graph *g, const char *msg)
{
	ck_assert_int_eq(graph_validate(g, &err), -1);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "'%s' lacks '%s'", err.msg, msg);
	graph_free(g);
}

START_TEST(test_validate_checks_the_pipeline_model_conditions)
{
	struct graph *g = graph_of("A B", "A>B");

	g->nexits = 0; /* the exit array stays allocated and is freed */
	expect_invalid(g, "not a pipeline-model: it has no EXIT port");
	expect_invalid(graph_of("", ""), "it has no flow-model");
	expect_invalid(graph_of("A B C D", "A>B C>D"),
	               "'C', 'D' are not connected to 'A' by any stream");
	expect_invalid(graph_of("A B C", "A>B"), "'C' is not connected");
	g = graph_of("A B C", "A>B C>B"); /* connected when directions are ignored */
	ck_assert_int_eq(graph_validate(g, &err), 0);
	graph_free(g);
}
END_TEST

Suite *suite_graph_read(void)
{
	Suite *s = suite_create("graph_read");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_reader_reads_nodes_in_file_order_and_resolves_edges);
	tcase_add_test(tc, test_reader_names_the_element_and_the_fault);
	tcase_add_test(tc, test_reader_accepts_parallel_edges_told_apart_by_ports);
	tcase_add_test(tc, test_graph_read_refuses_other_roots_and_missing_files);
	tcase_add_test(tc, test_validate_checks_the_pipeline_model_conditions);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	Suite *(*suites[])(void) = {suite_graph_read, suite_graph_cycles, suite_graph_peast,
	                            suite_graph_out};
	SRunner *sr = srunner_create(NULL);
	int failed;

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		srunner_add_suite(sr, suites[i]());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
