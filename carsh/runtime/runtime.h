/*
 * The OpenCL runtime: device discovery and choice, program build with the binary cache,
 * launch with profiling. Only processes that may own an OpenCL context call into this layer
 * (flow-model children, `devices` children, the thread executor's runtime).
 */
#ifndef CARSH_RUNTIME_RUNTIME_H
#define CARSH_RUNTIME_RUNTIME_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

#include "runtime/plan.h"
#include "util/error.h"

/* Timings of one execution; event-based where OpenCL gives them. Milliseconds. */
struct run_stats {
	double wall_ms;     /* the whole execution, from the start of the job */
	double platform_ms; /* platform and device discovery */
	double context_ms;  /* context and queue creation */
	double build_ms;    /* program build, or load from the binary cache */
	bool cache_hit;
	double h2d_ms;    /* host-to-device writes (profiling events) */
	double kernel_ms; /* all kernel launches (profiling events) */
	double swap_ms;   /* swap re-binding, device copies or host round trips */
	double d2h_ms;    /* device-to-host reads (profiling events) */
	double in_ms;     /* the job's input files read (and parsed) into its host arrays */
	double out_ms;    /* its output files written from them */
	long long launches;
	char device[160]; /* "NAME (PLATFORM)" */
};

/* Add from's profiled device times to to's: the work of a job harvested after the job
 * returned (the thread executor queues it). */
static inline void run_stats_add_device(struct run_stats *to, const struct run_stats *from)
{
	to->h2d_ms += from->h2d_ms;
	to->kernel_ms += from->kernel_ms;
	to->swap_ms += from->swap_ms;
	to->d2h_ms += from->d2h_ms;
}

struct rt_devinfo {
	int index; /* position in the list `devices` prints; `Device select="INDEX"` */
	cl_platform_id platform;
	cl_device_id device;
	cl_device_type type;
	char name[256];
	char vendor[128];
	char platform_name[128];
	char version[128]; /* CL_DEVICE_VERSION */
	char driver[128];  /* CL_DRIVER_VERSION */
	char platform_version[128];
	cl_uint compute_units;
	cl_ulong global_mem;
	cl_ulong max_alloc;
	size_t max_work_group;
	cl_ulong local_mem; /* CL_DEVICE_LOCAL_MEM_SIZE */
	size_t max_item_sizes[3];
	bool fp64; /* CL_DEVICE_DOUBLE_FP_CONFIG is not 0 */
};

/* Every device of every platform, in platform order. Error when there is none:
 * "no OpenCL platform found: install an OpenCL driver (e.g. the Debian package
 * pocl-opencl-icd for the CPU)". Free *out with free(). */
int rt_devices_list(struct rt_devinfo **out, size_t *n, struct cs_err *e);

/* Choose a device (DESIGN §4): the first of exe, cli, fm that is given and not "any" decides;
 * a selector is cpu | gpu | accelerator | INDEX | a case-insensitive name substring; with
 * none, the first GPU, else the first CPU, else the first device. Error when the requested
 * device is absent, naming the selector, where it came from, and the devices there are. */
int rt_device_pick(const struct rt_devinfo *devs, size_t n, const char *exe, const char *cli,
                   const char *fm, size_t *chosen, struct cs_err *e);

/* Where several processes of one node share its GPUs (MPI ranks, one per GPU), this one's
 * number among them: where the choice takes the first GPU, it takes the GPU of that
 * number instead, modulo their count. 0 (the first GPU) unless set; set it before the first device
 * is chosen. */
void rt_devices_share_gpus(int number);

/* The type that decides rt_device_pick's choice when the deciding selector (the first given)
 * is a pure type (cpu, gpu, accelerator); 0 when it is an index or a name, or when none is
 * given (the default rule looks at every device). runtime/icdtypes.h loads only the vendors
 * that give that type. */
cl_device_type rt_device_type_chosen(const char *exe, const char *cli, const char *fm);

/* The first device of the type, or NULL. */
const struct rt_devinfo *rt_device_first(const struct rt_devinfo *devs, size_t n,
                                         cl_device_type type);

/* The GPU an engine drives beside the CPU's cores (`--gpu`, partition and pipeline): sel NULL
 * or "auto": the first GPU, else the first accelerator, else none; "none"; "cpu": a core of
 * cpu (the CPU device the engine splits) stands in for a GPU (*standin); any other sel as
 * rt_device_pick takes it, where choosing cpu itself also means the stand-in. Error
 * "--gpu: no OpenCL device matches 'SEL'; devices: ...". Whether cpu has a core to spare is
 * the engine's to check. */
int rt_device_choose_gpu(const struct rt_devinfo *devs, size_t n, const struct rt_devinfo *cpu,
                         const char *sel, const struct rt_devinfo **gpu, bool *standin,
                         struct cs_err *e);

/* "cpu", "gpu", "accelerator" or "other". */
const char *rt_device_type_name(cl_device_type t);

/* Build (or load from the binary cache) the plan's program; on a compile error the message
 * holds the build log, its places in the user's files (runtime/program.h). */
int rt_program_build(cl_context ctx, const struct rt_devinfo *dev, const struct kernel_plan *kp,
                     cl_program *out, bool *cache_hit, struct cs_err *e);

/* Called once the device is chosen, the program built and the plan checked against the
 * device, before any buffer exists: the executor stages its host data here, so that a plan
 * the device cannot run fails before anything is read or allocated. */
typedef int (*rt_stage_fn)(void *arg, struct cs_err *e);

/* Run a plan from scratch: discovery, device choice, context, build, checks, stage(arg)
 * when given, buffers, the S+1 launches with the plan's swap method, reading the outputs
 * back to their host buffers (an Output whose host is NULL is not read back). Errors start
 * with the plan's label. */
int rt_run_plan(const struct kernel_plan *kp, rt_stage_fn stage, void *stage_arg,
                struct run_stats *st, struct cs_err *e);

/* "CL_OUT_OF_RESOURCES" for -5, etc. */
const char *rt_cl_error_name(cl_int err);

#endif
