#include "exec/jobcopies.h"

#include "runtime/feeder.h"

bool job_bound_to_buffer(const struct job_plan *jp, size_t i)
{
	return jp->binds[i].how == BIND_BUFFER && jp->binds[i].shm;
}

bool job_pair_input(const struct kernel_plan *kp, size_t i)
{
	for (size_t p = 0; p < kp->npairs; p++)
		if (kp->pairs[p].input == i)
			return true;
	return false;
}

int job_private_copy(struct rt_dev *dev, cl_mem *mem, size_t bytes, struct cs_err *e)
{
	cl_int err;
	cl_mem copy = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);

	if (err == CL_SUCCESS)
		err = clEnqueueCopyBuffer(rt_dev_queue(dev), *mem, copy, 0, 0, bytes, 0, NULL,
		                          NULL);
	if (err != CL_SUCCESS) {
		if (copy)
			(void)clReleaseMemObject(copy);
		return err_set(e, "a private copy of %zu bytes on '%s': %s", bytes, dev->info->name,
		               rt_cl_error_name(err));
	}
	*mem = copy;
	return 0;
}
