/* libFuzzer target: the <CarshGraph> reader, then what check, peast and graph run on it:
 * the pipeline-model conditions, Algorithm 1, PEA-ST (Algorithms 2-3), the two batches and
 * the DOT picture. */
#include <stdio.h>

#include "fuzz.h"
#include "graph/batchgen.h"
#include "graph/deadlock.h"
#include "graph/dot.h"
#include "graph/peast.h"
#include "graph/validate.h"
#include "model/graph.h"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	return 0;
}

static void analyse(const struct graph *g, struct cs_err *e)
{
	struct deadlock dl;
	struct peast_opts o;
	struct peast_plan p;
	bool have_dl, planned;

	(void)graph_validate(g, e);
	have_dl = deadlock_find(g, &dl, e) == 0;
	if (have_dl)
		deadlock_print(sink, g, &dl);
	if (peast_opts_resolve(g, NULL, NULL, &o, e))
		return;
	planned = peast_select(g, &o, &p, e) == 0;
	if (planned) {
		for (int repeat = 0; repeat < 2; repeat++) {
			char *text;

			if (batchgen_text(g, &p, repeat, "out", &text, e) == 0)
				free(text);
		}
		peast_print(sink, g, &p);
	}
	if (have_dl) {
		dot_graph(sink, g, &dl, planned ? &p : NULL);
		deadlock_free(&dl);
	}
	if (planned)
		peast_plan_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_err e;
	struct xml_doc d;
	struct xml_ctx x;
	struct graph *g;
	xmlNodePtr root = fuzz_xml(data, size, &d, &x, &e);

	if (root && xml_is(root, "CarshGraph") && graph_from_node(&x, root, &g) == 0) {
		analyse(g, &e);
		graph_free(g);
	}
	xml_free(&d);
	return 0;
}
