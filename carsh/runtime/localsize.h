/*
 * local="device" (docs/formats.md, "<FlowModel>"): the work-group size CarSh picks for a
 * kernel on the device it runs on, from what the implementation says about both.
 */
#ifndef CARSH_RUNTIME_LOCALSIZE_H
#define CARSH_RUNTIME_LOCALSIZE_H

#include <stddef.h>

#include "runtime/runtime.h"

/* Dimension 0 gets the largest divisor of global[0] that is at most limit and a multiple of
 * pref; when no multiple of pref divides global[0], the largest divisor at most limit. The
 * other dimensions get 1. pref 0 counts as 1. */
void rt_local_choose(unsigned dims, const size_t *global, size_t limit, size_t pref, size_t *local);
/* rt_local_choose with limit the least of the kernel's CL_KERNEL_WORK_GROUP_SIZE, the
 * device's CL_DEVICE_MAX_WORK_GROUP_SIZE and CL_DEVICE_MAX_WORK_ITEM_SIZES[0], and pref
 * the kernel's CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE on the device. */
int rt_local_for_device(cl_kernel k, const struct rt_devinfo *dev, unsigned dims,
                        const size_t *global, size_t *local, struct cs_err *e);

#endif
