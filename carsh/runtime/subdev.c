/* Single-core sub-devices of a CPU device for the partition engine (003 §3). */
#include "runtime/subdev.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/program.h"
#include "util/alloc.h"

static bool splits_equally(cl_device_id d)
{
	cl_device_partition_property props[8];
	size_t len = 0;

	if (clGetDeviceInfo(d, CL_DEVICE_PARTITION_PROPERTIES, sizeof(props), props, &len) !=
	    CL_SUCCESS)
		return false;
	for (size_t i = 0; i < len / sizeof(props[0]); i++)
		if (props[i] == CL_DEVICE_PARTITION_EQUALLY)
			return true;
	return false;
}

unsigned rt_subdevs_max(const struct rt_devinfo *dev)
{
	cl_uint max = 0;

	if (!splits_equally(dev->device) ||
	    clGetDeviceInfo(dev->device, CL_DEVICE_PARTITION_MAX_SUB_DEVICES, sizeof(max), &max,
	                    NULL) != CL_SUCCESS ||
	    max < 2)
		return 1;
	return max < dev->compute_units ? max : dev->compute_units;
}

/*
 * The sub-devices of each parent, made once and kept until the process ends. PoCL 3.1
 * crashes when sub-devices are released: a device thread of its pthread driver finishing
 * its last event after clFinish returned reads the released sub-device (POclReleaseEvent;
 * most runs of three partition commands in a row crash). Contexts, queues and programs
 * are released as usual; only the sub-devices themselves stay.
 */
struct kept {
	cl_device_id parent;
	cl_device_id *ids;
	cl_uint n;
	struct kept *next;
};

static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept *kept_list;

void rt_subdevs_free(struct rt_subdevs *sd)
{
	if (!sd)
		return;
	for (size_t i = 0; sd->q && i < sd->n; i++)
		if (sd->q[i]) {
			(void)clFinish(sd->q[i]);
			(void)clReleaseCommandQueue(sd->q[i]);
		}
	if (sd->prog)
		(void)clReleaseProgram(sd->prog);
	if (sd->ctx)
		(void)clReleaseContext(sd->ctx);
	free(sd->q);
	free(sd->ids);
	free(sd);
}

/* Every single-core sub-device of the parent, made on first use and kept (see kept). */
static struct kept *subdevices_of(const struct rt_devinfo *parent, struct cs_err *e)
{
	const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
	struct kept *k;
	cl_uint avail = 0;
	cl_int err;

	for (k = kept_list; k; k = k->next)
		if (k->parent == parent->device)
			return k;
	err = clCreateSubDevices(parent->device, props, 0, NULL, &avail);
	if (err != CL_SUCCESS || avail == 0) {
		err_set(e, "device '%s': cannot split it into single-core sub-devices: %s",
		        parent->name, err != CL_SUCCESS ? rt_cl_error_name(err) : "no core");
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->ids = xcalloc(avail, sizeof(*k->ids));
	err = clCreateSubDevices(parent->device, props, avail, k->ids, &k->n);
	if (err != CL_SUCCESS) {
		free(k->ids);
		free(k);
		err_set(e, "device '%s': clCreateSubDevices failed: %s", parent->name,
		        rt_cl_error_name(err));
		return NULL;
	}
	k->parent = parent->device;
	k->next = kept_list;
	kept_list = k;
	return k;
}

/* The first n of the device's single-core sub-devices. */
static int create_subdevices(struct rt_subdevs *sd, size_t n, struct cs_err *e)
{
	struct kept *k;
	int rc = 0;

	pthread_mutex_lock(&kept_lock);
	k = subdevices_of(sd->parent, e);
	if (!k)
		rc = -1;
	else if (k->n < n)
		rc = err_set(e, "device '%s': %zu cores asked for, it splits into %u",
		             sd->parent->name, n, (unsigned)k->n);
	else
		memcpy(sd->ids, k->ids, n * sizeof(*sd->ids));
	pthread_mutex_unlock(&kept_lock);
	if (rc == 0)
		sd->split = true;
	return rc;
}

int rt_subdevs_open(const struct rt_devinfo *parent, size_t n, struct rt_subdevs **out,
                    struct cs_err *e)
{
	cl_context_properties cprops[] = {CL_CONTEXT_PLATFORM,
	                                  (cl_context_properties)parent->platform, 0};
	unsigned max = rt_subdevs_max(parent);
	struct rt_subdevs *sd;
	cl_int err;

	if (n == 0 || n > max)
		return err_set(e, "device '%s': %zu cores asked for, it has %u", parent->name, n,
		               max);
	sd = xcalloc(1, sizeof(*sd));
	sd->parent = parent;
	sd->n = n;
	sd->ids = xcalloc(n, sizeof(*sd->ids));
	sd->q = xcalloc(n, sizeof(*sd->q));
	if (max == 1)
		sd->ids[0] = parent->device;
	else if (create_subdevices(sd, n, e)) {
		sd->n = 0;
		rt_subdevs_free(sd);
		return -1;
	}
	sd->ctx = clCreateContext(cprops, (cl_uint)n, sd->ids, NULL, NULL, &err);
	if (err != CL_SUCCESS) {
		sd->ctx = NULL;
		rt_subdevs_free(sd);
		return err_set(e, "device '%s': clCreateContext for %zu sub-devices failed: %s",
		               parent->name, n, rt_cl_error_name(err));
	}
	for (size_t i = 0; i < n; i++) {
		/* Profiling: the partition engine tells a chunk's commands from its fixed cost
		 * (engines/partition/part-chunk.c). */
		sd->q[i] =
		        clCreateCommandQueue(sd->ctx, sd->ids[i], CL_QUEUE_PROFILING_ENABLE, &err);
		if (err != CL_SUCCESS) {
			sd->q[i] = NULL;
			rt_subdevs_free(sd);
			return err_set(e,
			               "device '%s': clCreateCommandQueue on core %zu failed: %s",
			               parent->name, i, rt_cl_error_name(err));
		}
	}
	*out = sd;
	return 0;
}

int rt_subdevs_build(struct rt_subdevs *sd, const struct kernel_plan *kp, bool *cache_hit,
                     struct cs_err *e)
{
	return rt_program_build_on(sd->ctx, sd->parent, (cl_uint)sd->n, sd->ids, kp, &sd->prog,
	                           cache_hit, e);
}
