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

/* Build the plan's program for the n devices of ctx, which are alike (one device, or the
 * single-core sub-devices of one CPU: info describes them), through the binary cache: a
 * binary is loaded when the cache holds one for the same device, driver, options, source and
 * included files' contents (runtime/includes.h), else the source is built and its binary
 * stored. On a compile error the message holds the build log. */
int rt_program_build_on(cl_context ctx, const struct rt_devinfo *info, cl_uint n,
                        const cl_device_id *devs, const struct kernel_plan *kp, cl_program *out,
                        bool *cache_hit, struct cs_err *e);

#endif
