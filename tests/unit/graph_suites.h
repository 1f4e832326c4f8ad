/* The pipeline-graph tests (check_graph): reader, Algorithm 1, PEA-ST, generated output. */
#ifndef CARSH_TESTS_GRAPH_SUITES_H
#define CARSH_TESTS_GRAPH_SUITES_H

#include <check.h>

#include "model/graph.h"

Suite *suite_graph_read(void);
Suite *suite_graph_cycles(void);
Suite *suite_graph_peast(void);
Suite *suite_graph_out(void);

/* A graph from a compact description: nodes "A B C" in order, edges "A>B B>C C=>A" ("=>"
 * marks INITONCE), and an EXIT port on the last node. */
struct graph *graph_of(const char *nodes, const char *edges);

/* A small deterministic generator (a 64-bit LCG), so property tests are repeatable. */
unsigned rnd_next(unsigned long long *state, unsigned bound);

#endif
