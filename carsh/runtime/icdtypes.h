/*
 * Only the OpenCL vendors a job's device type needs. At the first OpenCL call the ICD loader
 * opens every vendor of its directory and asks each for its platforms, which starts that
 * vendor's driver: NVIDIA's takes tens to hundreds of ms in every process, partly serialized
 * across processes (docs/scale-out.md), and a job on the CPU pays it for nothing. A loader
 * can be told to skip vendors only through its environment, before that first call, and says
 * which vendor gives which device type only by starting them all. So each ICD file is probed
 * once, in a forked child that loads its library alone and asks it for devices of each type;
 * the answer is kept in the cache directory (icd/types.txt), valid while the ICD file and its
 * library keep their path, size and modification time and the drivers' environment (POCL_*,
 * CUDA_*, ..., LD_LIBRARY_PATH), which can change what a driver shows, is the same. A process
 * whose device is chosen by a pure type (rt_device_type_chosen) then gets OCL_ICD_VENDORS
 * naming a directory (icd/TYPE-HASH/) that holds a copy of the one ICD file giving that type.
 *
 * Only where the job cannot tell: the vendor kept gives every device of the type, so "the
 * first cpu" and a rank's GPU are the devices they were (with two vendors of the type the
 * order of their platforms is the loader's directory order, which a new directory does not
 * promise to keep); every ICD file is known; there is another vendor to leave out; and the
 * user set no loader variable but, at most, a vendors directory in OCL_ICD_VENDORS (whose set
 * is the one narrowed). Otherwise, with CARSH_ICD_BY_TYPE=0, or without a cache directory
 * (CARSH_NO_CACHE=1), the loader reads its usual set, as before.
 */
#ifndef CARSH_RUNTIME_ICDTYPES_H
#define CARSH_RUNTIME_ICDTYPES_H

#include "runtime/plan.h"
#include "runtime/runtime.h"

/* The directory for OCL_ICD_VENDORS of a process whose device is of type (CL_DEVICE_TYPE_CPU,
 * _GPU or _ACCELERATOR), learning the vendors' types first if needed (the probes run here);
 * NULL when the loader's usual set must stay. Free it. Call it where no OpenCL runs (the
 * shell): a probe is a fork that loads a driver. */
char *rt_icd_vendors_for(cl_device_type type);

/* rt_icd_vendors_for the type that decides kp's device (rt_device_type_chosen), or NULL. */
char *rt_icd_vendors_for_plan(const struct kernel_plan *kp);

/* The library an ICD file names (its first line), or NULL. Free it. */
char *rt_icd_file_library(const char *path);

#endif
