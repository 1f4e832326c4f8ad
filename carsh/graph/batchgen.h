/*
 * The startup and the repeat batch of a PEA-ST plan (004 §4.3.4-4.3.5) as <CarshBat> files:
 * each stage runs its nodes' executables as background jobs, then a <Sync/>.
 */
#ifndef CARSH_GRAPH_BATCHGEN_H
#define CARSH_GRAPH_BATCHGEN_H

#include <stdbool.h>

#include "graph/peast.h"
#include "model/graph.h"

#define BATCH_STARTUP "startup.bat.xml"
#define BATCH_REPEAT  "repeat.bat.xml"

/* The text of the startup batch (repeat false) or the repeat batch, naming each executable
 * by its path as seen from dir. Fails when a node of the batch has no exe=. */
int batchgen_text(const struct graph *g, const struct peast_plan *p, bool repeat, const char *dir,
                  char **out, struct cs_err *e);
/* Write dir/startup.bat.xml and dir/repeat.bat.xml (dir is created when missing). */
int batchgen_write(const struct graph *g, const struct peast_plan *p, const char *dir,
                   struct cs_err *e);

#endif
