/* The kinds of file `run` runs (runner/run.h): adding one is its runner's entry and one
 * line here. */
#include "runner/run.h"

extern const struct file_kind file_kind_flowmodel, file_kind_exe, file_kind_batch, file_kind_graph;

const struct file_kind *const file_kinds[] = {
        &file_kind_flowmodel, &file_kind_exe, &file_kind_batch, &file_kind_graph, NULL,
};
