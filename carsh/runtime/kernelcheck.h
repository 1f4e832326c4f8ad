/*
 * The flow-model's arguments against the kernel's own (clGetKernelArgInfo): a stream given
 * as float to a kernel that takes int * runs, and gives garbage with status 0, unless
 * someone compares them. Programs are built with -cl-kernel-arg-info so that drivers keep
 * the information (PoCL keeps it in the binaries of the cache too).
 */
#ifndef CARSH_RUNTIME_KERNELCHECK_H
#define CARSH_RUNTIME_KERNELCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/runtime.h"

/* A kernel argument's type as a driver spells it (CL_KERNEL_ARG_TYPE_NAME): "uint*",
 * "unsigned int *", "const float4*", "float __attribute__((ext_vector_type(4)))". */
struct arg_type {
	char base[64];     /* CarSh's spelling where it is one of its types ("uint", "float4"),
	                      else the driver's words (a typedef, a struct) */
	unsigned pointers; /* how many '*' */
};

/* Read a driver's spelling: qualifiers dropped, "unsigned int" as "uint", vector
 * attributes as a width. */
void arg_type_normalise(const char *reported, struct arg_type *out);

/* Check the plan's arguments against kernel k of dev: their number, by value or pointer,
 * address space (an Input may be __global or __constant, a Local is __local, a Constant
 * by value) and element type (where the kernel names one of CarSh's types: a typedef is not
 * followed). Errors name the flow-model's file and line: "fm.xml:15: <Input name="x">:
 * float, but kernel 'k' argument 1 is int *". A driver with no argument information gets one
 * warning line per process, and the check passes. */
int rt_kernel_check(cl_kernel k, const struct rt_devinfo *dev, const struct kernel_plan *kp,
                    struct cs_err *e);

#endif
