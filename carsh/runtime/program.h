/* What the runtime's two builders (program.c for one device, subdev.c for a CPU's cores)
 * share. */
#ifndef CARSH_RUNTIME_PROGRAM_H
#define CARSH_RUNTIME_PROGRAM_H

#include "runtime/runtime.h"

/* The options a plan's program is built with (and its cache key made of): the flow-model's
 * and -cl-kernel-arg-info, which keeps the argument types for runtime/kernelcheck.h.
 * Free it. */
char *rt_build_options(const char *options);

/* clBuildProgram without the compiler's "N errors generated." on standard error: the
 * message rt_build_error makes holds the errors. */
cl_int rt_build_program(cl_program prog, cl_uint n, const cl_device_id *devs, const char *options);

/* "<source>: build failed on <device>: <error>\n<log>", the log's places in the driver's
 * copy of the source ("/tmp/.../tempfile_nv4IPJ.cl:3:17") turned into the user's: the .cl
 * file, or the flow-model file and line of an inline source; the log cut to leave room for
 * the caller's prefix. Returns -1. */
int rt_build_error(cl_program prog, cl_device_id dev, const char *dev_name,
                   const struct kernel_plan *kp, cl_int err, struct cs_err *e);

#endif
