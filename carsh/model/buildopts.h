/*
 * A flow-model's build options as the compiler gets them (docs/formats.md, "Includes"):
 * a kernel's `#include "x.h"` and a relative `-I DIR` are taken from the kernel's folder
 * (the flow-model's for an inline source), wherever carsh runs.
 */
#ifndef CARSH_MODEL_BUILDOPTS_H
#define CARSH_MODEL_BUILDOPTS_H

#include "util/error.h"

/* options with each relative -I folder made absolute from kernel_dir, and -I<kernel_dir>
 * in front when source has an `#include "..."` line. Error when a folder that must be named
 * holds white space (OpenCL splits its options there, and PoCL takes no quotes). */
int buildopts_resolve(const char *options, const char *kernel_dir, const char *source, char **out,
                      struct cs_err *e);

#endif
