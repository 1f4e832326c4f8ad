/* What the graph tools write: peast's batches, relative paths, and DOT. */
#include <stdlib.h>
#include <string.h>

#include "graph/batchgen.h"
#include "graph/dot.h"
#include "util/relpath.h"
#include "graph_suites.h"
#include "util/alloc.h"

static struct cs_err err;

/* The k-means graph of 004 Figure 31(a) with executables under /w/g. */
static struct graph *kmeans(void)
{
	struct graph *g = graph_of("A B C D", "A>B B>C C>B C>D");
	static const char *const exe[] = {"/w/g/init.exe.xml", "/w/g/group.exe.xml",
	                                  "/w/g/center.exe.xml", "/w/g/color.exe.xml"};

	free(g->file);
	g->file = xstrdup("/w/g/kmeans.xml");
	for (size_t i = 0; i < 4; i++)
		g->nodes[i].exe = xstrdup(exe[i]);
	return g;
}

static void plan(const struct graph *g, struct peast_plan *p)
{
	struct peast_opts o = {-1, 0};

	ck_assert_msg(peast_select(g, &o, p, &err) == 0, "%s", err.msg);
}

START_TEST(test_batchgen_runs_each_stage_in_the_background_then_syncs)
{
	struct graph *g = kmeans();
	struct peast_plan p;
	char *text;

	plan(g, &p);
	ck_assert_int_eq(batchgen_text(g, &p, true, "/w/g/out", &text, &err), 0);
	ck_assert_str_eq(strstr(text, "<CarshBat>"),
	                 "<CarshBat>\n"
	                 "  <!-- stage 3: C A -->\n"
	                 "  <Exec file=\"../center.exe.xml\" background=\"true\"/>\n"
	                 "  <Exec file=\"../init.exe.xml\" background=\"true\"/>\n"
	                 "  <Sync/>\n"
	                 "  <!-- stage 4: D B -->\n"
	                 "  <Exec file=\"../color.exe.xml\" background=\"true\"/>\n"
	                 "  <Exec file=\"../group.exe.xml\" background=\"true\"/>\n"
	                 "  <Sync/>\n"
	                 "</CarshBat>\n");
	free(text);
	ck_assert_int_eq(batchgen_text(g, &p, false, "/w/g/out", &text, &err), 0);
	ck_assert_msg(
	        strstr(text, "<!-- feedback edge, initialise it before this batch: C B -->") !=
	                NULL,
	        "%s", text);
	ck_assert_msg(strstr(text, "<!-- stage 2: B -->\n  <Exec file=\"../group.exe.xml\"") !=
	                      NULL,
	              "%s", text);
	free(text);
	peast_plan_free(&p);
	graph_free(g);
}
END_TEST

/* Parse a generated batch back with CarSh's own reader. */
static struct batch *read_back(const char *text)
{
	struct xml_doc d;
	struct batch *b = NULL;

	ck_assert_msg(xml_load_memory(text, strlen(text), "/w/g/out/x.bat.xml", &d, &err) == 0,
	              "%s", err.msg);
	struct xml_ctx x = {d.file, d.dir, &err};
	ck_assert_msg(batch_from_node(&x, xmlDocGetRootElement(d.doc), &b) == 0, "%s", err.msg);
	xml_free(&d);
	return b;
}

START_TEST(test_batchgen_output_reads_back_as_a_batch)
{
	struct graph *g = kmeans();
	struct peast_plan p;
	static const enum step_kind want[] = {STEP_EXEC, STEP_SYNC, STEP_EXEC, STEP_SYNC};

	plan(g, &p);
	for (int repeat = 0; repeat < 2; repeat++) {
		char *text;
		struct batch *b;

		ck_assert_int_eq(batchgen_text(g, &p, repeat, "/w/g/out", &text, &err), 0);
		b = read_back(text);
		ck_assert_uint_eq(b->nsteps, repeat ? 6 : 4);
		for (size_t i = 0; !repeat && i < 4; i++)
			ck_assert_int_eq(b->steps[i].kind, want[i]);
		for (size_t i = 0; i < b->nsteps; i++)
			if (b->steps[i].kind == STEP_EXEC)
				ck_assert(b->steps[i].background);
		ck_assert_str_eq(b->steps[0].file, repeat ? "/w/g/out/../center.exe.xml"
		                                          : "/w/g/out/../init.exe.xml");
		batch_free(b);
		free(text);
	}
	peast_plan_free(&p);
	graph_free(g);
}
END_TEST

START_TEST(test_batchgen_needs_an_executable_per_node)
{
	struct graph *g = kmeans();
	struct peast_plan p;
	char *text;

	free(g->nodes[1].exe);
	g->nodes[1].exe = NULL;
	g->nodes[1].line = 7;
	plan(g, &p);
	ck_assert_int_eq(batchgen_text(g, &p, false, "/w/g", &text, &err), -1);
	ck_assert_ptr_null(text);
	ck_assert_str_eq(err.msg, "/w/g/kmeans.xml:7: <Node name=\"B\">: no exe=, so the batches "
	                          "cannot run it; give its executable");
	peast_plan_free(&p);
	graph_free(g);
}
END_TEST

START_TEST(test_batchgen_escapes_names_in_xml)
{
	struct graph *g = graph_of("A--B", "");
	struct peast_plan p;
	char *text;
	struct batch *b;

	g->nodes[0].exe = xstrdup("/w/a&b\".exe.xml");
	plan(g, &p);
	ck_assert_int_eq(batchgen_text(g, &p, true, "/w", &text, &err), 0);
	b = read_back(text); /* "--" in a comment or a raw '&' would not parse */
	ck_assert_str_eq(b->steps[0].file, "/w/g/out/a&b\".exe.xml");
	batch_free(b);
	free(text);
	peast_plan_free(&p);
	graph_free(g);
}
END_TEST

START_TEST(test_relative_paths)
{
	char *s;

	s = path_relative("/w/g/out", "/w/g/x.exe.xml");
	ck_assert_str_eq(s, "../x.exe.xml");
	free(s);
	s = path_relative("/w", "/w/g/x.exe.xml");
	ck_assert_str_eq(s, "g/x.exe.xml");
	free(s);
	s = path_relative("/a/b", "/a/c/d");
	ck_assert_str_eq(s, "../c/d");
	free(s);
	s = path_relative("/a/b", "/c/d"); /* only the root in common */
	ck_assert_str_eq(s, "/c/d");
	free(s);
	s = path_normalise("g/./h/../x.xml", "/w");
	ck_assert_str_eq(s, "/w/g/x.xml");
	free(s);
	s = path_normalise("../x", NULL);
	ck_assert_str_eq(s, "../x");
	free(s);
	s = path_normalise("/a/b/../../..", NULL);
	ck_assert_str_eq(s, "/");
	free(s);
}
END_TEST

static char *dot_of(const struct graph *g, bool with_plan)
{
	struct deadlock d;
	struct peast_plan p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(deadlock_find(g, &d, &err), 0);
	if (with_plan)
		plan(g, &p);
	dot_graph(f, g, &d, with_plan ? &p : NULL);
	fclose(f);
	if (with_plan)
		peast_plan_free(&p);
	deadlock_free(&d);
	return buf;
}

static void expect_in(const char *text, const char *want)
{
	ck_assert_msg(strstr(text, want) != NULL, "'%s' lacks '%s'", text, want);
}

START_TEST(test_dot_dashes_edges_to_initialise_and_ranks_stages)
{
	struct graph *g = kmeans();
	char *dot;

	g->edges[0].output = xstrdup("centers");
	g->edges[0].input = xstrdup("init");
	g->edges[3].limit = 3;
	dot = dot_of(g, true);
	expect_in(dot, "digraph \"t\" {");
	expect_in(dot, "label=\"t: PEA-ST root A, consistency shift 2, parallelism 2\"");
	expect_in(dot, "n1 [label=\"B\\ngroup.exe.xml\\nstages 2, 4\"];");
	expect_in(dot, "{ rank=same; s2 [shape=plaintext, style=\"\", label=\"stage 3\"]; n2; }");
	expect_in(dot, "n0 -> n1 [label=\"centers -> init\"];");
	/* C -> B closes the cycle and is not INITONCE: dashed, red, and a feedback edge. */
	expect_in(dot, "n2 -> n1 [label=\"initialise\", style=\"dashed\", color=\"red\", "
	               "fontcolor=\"red\", constraint=\"false\"];");
	expect_in(dot, "n2 -> n3 [label=\"IT=3\"];");
	expect_in(dot, "n3 -> out0 [label=\"\"];");
	free(dot);
	g->edges[2].kind = EDGE_INITONCE;
	dot = dot_of(g, false);
	expect_in(dot, "n2 -> n1 [label=\"INITONCE\", style=\"dashed\"];");
	ck_assert_ptr_null(strstr(dot, "rank=same"));
	free(dot);
	graph_free(g);
}
END_TEST

#define INLINE_EXE(name, kind)                                                               \
	"<Exec background=\"true\"><CarshExe><FlowModel name=\"f\"><Program><Source>k"       \
	"</Source><Kernel name=\"k\"/></Program><WorkSize global=\"4\"/><Arguments>"         \
	"<Input name=\"x\" type=\"float\" count=\"4\"/><" kind " name=\"y\" type=\"float\" " \
	"count=\"4\"/></Arguments></FlowModel><Input name=\"x\"><Buffer>" name               \
	"</Buffer></Input><" kind " name=\"y\"><Buffer>out</Buffer></" kind "></CarshExe></Exec>"

START_TEST(test_dot_of_a_batch_shows_steps_and_buffer_accesses)
{
	static const char text[] =
	        "<CarshBat><Virtbuf op=\"create\" name=\"re\" type=\"float\" count=\"4\"/>"
	        "<Repeat count=\"3\">" INLINE_EXE("re", "Output") INLINE_EXE(
	                "re",
	                "InOut") "<Sync/></Repeat><Virtbuf op=\"swap\" name=\"re\" with=\"out\"/>"
	                         "<Echo>done</Echo></CarshBat>";
	struct xml_doc d;
	struct batch *b;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(xml_load_memory(text, strlen(text), "b.bat.xml", &d, &err), 0);
	struct xml_ctx x = {d.file, d.dir, &err};
	ck_assert_msg(batch_from_node(&x, xmlDocGetRootElement(d.doc), &b) == 0, "%s", err.msg);
	xml_free(&d);
	ck_assert_int_eq(dot_batch(f, b, &err), 0);
	fclose(f);
	expect_in(buf, "s0 [shape=note, label=\"virtbuf create re float 4\"];");
	expect_in(buf, "subgraph cluster_0 {\n\tlabel=\"repeat 3\";");
	/* reads re, writes out; then reads re and out and writes out (InOut) */
	expect_in(buf, "<tr><td bgcolor=\"lightblue\">re</td><td style=\"dashed\">inline "
	               "&lt;CarshExe&gt; &amp;</td><td bgcolor=\"mistyrose\">out</td></tr>");
	expect_in(buf, "<td bgcolor=\"lightblue\">re<br/>out</td>");
	expect_in(buf, "s3 -> s1 [style=dotted, constraint=false, label=\"again\"];");
	expect_in(buf, "s0 -> s1 [style=bold, weight=10];");
	expect_in(buf, "s3 -> s4 [style=bold, weight=10];");
	expect_in(buf, "s4 [shape=note, label=\"virtbuf swap re out\"];");
	expect_in(buf, "s5 [shape=plaintext, label=\"echo done\"];");
	free(buf);
	batch_free(b);
}
END_TEST

Suite *suite_graph_out(void)
{
	Suite *s = suite_create("graph_out");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_batchgen_runs_each_stage_in_the_background_then_syncs);
	tcase_add_test(tc, test_batchgen_output_reads_back_as_a_batch);
	tcase_add_test(tc, test_batchgen_needs_an_executable_per_node);
	tcase_add_test(tc, test_batchgen_escapes_names_in_xml);
	tcase_add_test(tc, test_relative_paths);
	tcase_add_test(tc, test_dot_dashes_edges_to_initialise_and_ranks_stages);
	tcase_add_test(tc, test_dot_of_a_batch_shows_steps_and_buffer_accesses);
	suite_add_tcase(s, tc);
	return s;
}
