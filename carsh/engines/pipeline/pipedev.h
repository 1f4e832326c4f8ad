/*
 * The devices of the pipeline engine (000 §II) in three domains:
 *   CG   the CPU split into single-core sub-devices (runtime/subdev.h), one queue per core;
 *        a thread leases a core for an item's CPU stages (engines/pipeline/pipestage.h);
 *   MG   the whole CPU device, for one item at a time (the session's context);
 *   GPU  the GPU (the session's context), or a stand-in: one more single-core sub-device
 *        (`--gpu cpu`, for machines without a GPU), in the CG context.
 * Every stage's program is built for each domain it may run in, and the generator's for all
 * three (the Input stage runs where the item's first stage does). A worker thread has a
 * slot: its own MG and GPU queues and its own kernel objects, so that no two threads ever set
 * arguments on one kernel. PoCL 3 runs a sub-device's commands on that core's pool thread only,
 * so the CG queues are per core, shared by the threads that lease it.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPEDEV_H
#define CARSH_ENGINES_PIPELINE_PIPEDEV_H

#include <stdbool.h>

#include "model/pipeplan.h"
#include "runtime/session.h"
#include "runtime/subdev.h"

enum pd_dom { PD_CG, PD_MG, PD_GPU, PD_NDOM };

struct pipe_devs {
	const struct rt_devinfo *cpu;
	const struct rt_devinfo *gpu; /* a real GPU, or NULL */
	bool has_gpu;                 /* a real one or the stand-in */
	bool standin;
	unsigned nc;           /* cores for the CPU threads */
	struct rt_subdevs *sd; /* nc cores, then the stand-in */
	cl_context ctx[PD_NDOM];
	cl_command_queue *cgq; /* one in-order queue per CG core (the subdevs') */
	cl_device_id gpu_id;
	/* Buffers live per context: the stand-in's GPU domain shares the CG context's. */
	unsigned space[PD_NDOM];
	unsigned nspace;
	/* Programs per domain, per kernel index (stage k; index nstages: the generator); NULL
	 * where that kernel does not run in that domain. */
	size_t nkern;
	cl_program *prog[PD_NDOM];
	const struct kernel_plan **kp; /* per kernel index */
	cl_program *owned;             /* CG programs built here (the session keeps the others) */
	size_t nowned;
	double build_ms;
};

/* One worker thread's queues (q[PD_CG] is unused: see cgq) and kernels. */
struct pd_slot {
	cl_command_queue q[PD_NDOM];
	cl_kernel *k[PD_NDOM]; /* per kernel index, NULL where the program is */
};

/* Choose the devices (gpu: NULL or "auto": the first GPU, else the first accelerator, else
 * none; "none"; "cpu": a core stands in; or a selector as <Device select> takes), open the
 * domains and build every program. gen: the generator's plan (for item 0), or NULL. */
int pd_open(struct rt_session *rt, const struct pipe_plan *pp, const struct kernel_plan *gen,
            const char *gpu, struct pipe_devs **out, struct cs_err *e);
void pd_close(struct pipe_devs *dv);

/* Queues and kernels of a worker slot. */
int pd_slot_open(struct pipe_devs *dv, struct pd_slot *s, struct cs_err *e);
void pd_slot_close(struct pipe_devs *dv, struct pd_slot *s);

const char *pd_dom_name(enum pd_dom d);

#endif
