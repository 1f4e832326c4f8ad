/*
 * Between runtime/icdtypes.c, which learns what device types each source of OpenCL vendors
 * gives, and runtime/icdnarrow.c, which narrows a job's loader to the sources of its type
 * (runtime/icdtypes.h says why and when).
 *
 * A source is an ICD file (its path) or a library that OCL_ICD_FILENAMES names ("lib:" and
 * the name as given). Each is probed once, in a forked child that loads its library alone
 * and asks it for devices of each type; the answer is kept in the cache directory
 * (icd/types.txt), valid while the ICD file and its library keep their path, size and
 * modification time and the drivers' environment (POCL_*, CUDA_*, ..., LD_LIBRARY_PATH) is
 * the same.
 */
#ifndef CARSH_RUNTIME_ICDTYPES_INT_H
#define CARSH_RUNTIME_ICDTYPES_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/icdtypes.h"

#define ICDS_MAX    32   /* sources looked at */
#define ICD_LIB_MAX 1024 /* a library's path */
#define LIB_PREFIX  "lib:"

/* The CL_DEVICE_TYPE_* bits each of srcs gives and the library it resolved to ("-" where
 * none loaded), learning those the cache of icddir lacks (the probes run here, under a
 * lock: the ranks of an MPI job start together). false when one is of unknown types (its
 * probe crashed or hung), or could not be read. */
bool icd_sources_types(const char *icddir, char **srcs, size_t nsrc, long long *types,
                       char (*libs)[ICD_LIB_MAX]);

/* A sum of the drivers' settings (OCL_*, POCL_*, CUDA_*, ..., LD_LIBRARY_PATH), which decide
 * what a source gives. */
unsigned long long icd_driver_env(void);

#endif
