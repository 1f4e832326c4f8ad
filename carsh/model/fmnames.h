/* The names a flow-model answers to on a command line: its streams, its <Param>s and the
 * names its expressions use (a caller may give those, DESIGN §3.1). A NAME=VALUE word naming
 * none of them is a misspelling: `a=10` for the parameter `A` was taken silently. */
#ifndef CARSH_MODEL_FMNAMES_H
#define CARSH_MODEL_FMNAMES_H

#include "model/flowmodel.h"
#include "util/error.h"

/* 0 when name is one of fm's names; else -1 with e saying so and naming the nearest one
 * ("did you mean A?") or, with none near, the parameters and streams there are. */
int flowmodel_check_name(const struct flowmodel *fm, const char *name, struct cs_err *e);

#endif
