/*
 * A CPU device split into single-core sub-devices (clCreateSubDevices with
 * CL_DEVICE_PARTITION_EQUALLY, one compute unit each), all in one context so that a buffer
 * every core reads exists once, each with its own in-order queue, and the program built for
 * all of them through the binary cache: the CPU cores of the partition engine (003 §3: one
 * host thread per core). A device that cannot be split serves as a single core.
 */
#ifndef CARSH_RUNTIME_SUBDEV_H
#define CARSH_RUNTIME_SUBDEV_H

#include <stdbool.h>

#include "runtime/runtime.h"

struct rt_subdevs {
	const struct rt_devinfo *parent; /* the session's; it outlives this */
	size_t n;
	cl_device_id *ids; /* the sub-devices, or the parent itself when it was not split */
	bool split;        /* ids are sub-devices (kept for the process: see subdev.c) */
	cl_context ctx;
	cl_command_queue *q; /* one in-order queue per sub-device */
	cl_program prog;     /* after rt_subdevs_build */
};

/* How many single-core sub-devices dev can give: its compute units when it supports equal
 * partitioning, else 1 (the whole device as one core). */
unsigned rt_subdevs_max(const struct rt_devinfo *dev);

/* n single-core sub-devices of parent (1 <= n <= rt_subdevs_max), a context and queues. */
int rt_subdevs_open(const struct rt_devinfo *parent, size_t n, struct rt_subdevs **out,
                    struct cs_err *e);

/* Build the plan's program for every sub-device, through the binary cache (keyed as the
 * parent's builds: a sub-device runs the parent's binaries). On a compile error the message
 * holds the build log (rt_build_error). */
int rt_subdevs_build(struct rt_subdevs *sd, const struct kernel_plan *kp, bool *cache_hit,
                     struct cs_err *e);

void rt_subdevs_free(struct rt_subdevs *sd);

#endif
