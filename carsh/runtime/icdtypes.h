/*
 * Only the OpenCL vendors a job's device type needs. At the first OpenCL call the ICD loader
 * opens every vendor of its directory (and of OCL_ICD_FILENAMES) and asks each for its
 * platforms, which starts that vendor's driver: NVIDIA's takes tens to hundreds of ms in
 * every process, partly serialized across processes (docs/scale-out.md), and a job on the
 * CPU pays it for nothing. A loader can be told to skip vendors only through its
 * environment, before that first call, and says which vendor gives which device type only
 * by starting them all. So each source of vendors is probed once (runtime/icdtypes-int.h)
 * and a process whose device is chosen by a pure type (rt_device_type_chosen) gets its
 * loader's variables narrowed to the sources that give that type: OCL_ICD_VENDORS naming a
 * directory (icd/TYPE-HASH/) with copies of their ICD files, and OCL_ICD_FILENAMES listing
 * only their libraries (unset where none of its libraries gives the type).
 *
 * Only where the job cannot tell: the vendor kept gives every device of the type, so "the
 * first cpu" and a rank's GPU are the devices they were (two vendors of the type are left as
 * they are: the order of their platforms is the loader's, which a new directory does not
 * promise to keep; sources that resolve to one library are one vendor); every source is
 * known; there is another source to leave out; and OPENCL_VENDOR_PATH is unset and
 * OCL_ICD_VENDORS, if set, names a directory (whose set is the one narrowed). Otherwise,
 * with CARSH_ICD_BY_TYPE=0, or without a cache directory (CARSH_NO_CACHE=1), the loader
 * reads its usual set, as before.
 */
#ifndef CARSH_RUNTIME_ICDTYPES_H
#define CARSH_RUNTIME_ICDTYPES_H

#include <stdbool.h>

#include "runtime/plan.h"
#include "runtime/runtime.h"
#include "util/strvec.h"

/* The loader's variables for a process whose device is of type (CL_DEVICE_TYPE_CPU, _GPU or
 * _ACCELERATOR), as "NAME=VALUE" entries added to env, learning the sources' types first if
 * needed (the probes run here). true when narrowed: the process's own OCL_ICD_VENDORS and
 * OCL_ICD_FILENAMES (rt_icd_loader_var) are to be replaced by these, or unset where env has
 * none. false, env untouched, where the usual set must stay. Call it where no OpenCL runs
 * (the shell): a probe is a fork that loads a driver. */
bool rt_icd_env_for(cl_device_type type, struct strvec *env);

/* rt_icd_env_for the type that decides kp's device (rt_device_type_chosen). */
bool rt_icd_env_for_plan(const struct kernel_plan *kp, struct strvec *env);

/* Whether an environment entry is one of the loader's variables a narrowing replaces. */
bool rt_icd_loader_var(const char *entry);

/* The library an ICD file names (its first line), or NULL. Free it. */
char *rt_icd_file_library(const char *path);

#endif
