/* local="device": the work-group size for a kernel on a device (runtime/localsize.h). */
#include "runtime/localsize.h"

/* The largest divisor of g that is at most limit and a multiple of step, or 0. */
static size_t largest_divisor(size_t g, size_t limit, size_t step)
{
	size_t l = limit < g ? limit : g;

	for (l -= l % step; l >= step; l -= step)
		if (g % l == 0)
			return l;
	return 0;
}

void rt_local_choose(unsigned dims, const size_t *global, size_t limit, size_t pref, size_t *local)
{
	size_t l;

	if (limit == 0)
		limit = 1;
	l = pref > 1 ? largest_divisor(global[0], limit, pref) : 0;
	local[0] = l ? l : largest_divisor(global[0], limit, 1);
	for (unsigned d = 1; d < dims; d++)
		local[d] = 1;
}

int rt_local_for_device(cl_kernel k, const struct rt_devinfo *dev, unsigned dims,
                        const size_t *global, size_t *local, struct cs_err *e)
{
	size_t kmax = 0, pref = 1, limit = dev->max_work_group;
	cl_int err;

	err = clGetKernelWorkGroupInfo(k, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kmax),
	                               &kmax, NULL);
	if (err == CL_SUCCESS)
		err = clGetKernelWorkGroupInfo(k, dev->device,
		                               CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
		                               sizeof(pref), &pref, NULL);
	if (err != CL_SUCCESS)
		return err_set(e, "local=\"device\": clGetKernelWorkGroupInfo on '%s': %s",
		               dev->name, rt_cl_error_name(err));
	if (kmax < limit)
		limit = kmax;
	if (dev->max_item_sizes[0] < limit)
		limit = dev->max_item_sizes[0];
	rt_local_choose(dims, global, limit, pref, local);
	return 0;
}
