/*
 * Inside the partition engine (partition.h, docs/partition.md): the state of one command and
 * the steps its parts share. partition.c holds partition_run (the plan's checks, staging,
 * static's profile, the timed run); the parts, one file each, each calling only those listed
 * after it: part-run.c (one whole run over every step), part-shares.c (the hooks of a caller
 * that shares the space: the MPI ranks), part-sched.c (a run's scheduler), part-kb.c (the
 * knowledge base's key, prior and lesson), part-threads.c (the device threads and one step),
 * part-chunk.c (one chunk on one device: block transfers, launch pieces, PoCL's launch gate;
 * the warm-up), part-head.c (the step's head latch at the launch gate), part-devices.c (the
 * devices the threads drive: the cores as sub-devices, the GPUs, their kernels and queues),
 * part-buffers.c (the OpenCL buffers, the kernels' arguments, the copy streams in each
 * context), part-host.c (the host data the engine reads and writes, the swaps between
 * steps), part-result.c (the result handed back). Their functions are part_*, not prun_*
 * after the struct: prun_ is the pipeline engine's (engines/pipeline/piperun.h), and the
 * library is one.
 */
#ifndef CARSH_ENGINES_PARTITION_PARTITION_INT_H
#define CARSH_ENGINES_PARTITION_PARTITION_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engines/energy.h"
#include "engines/partition/partition.h"
#include "engines/partition/space.h"
#include "engines/progress.h"
#include "runtime/subdev.h"

/* One OpenCL context and the copy streams in it: written once per context (not per
 * device), again only when the host data changed (a swap between steps). */
struct pctx {
	cl_context ctx;
	cl_mem *copy;      /* per argument: the copy stream's buffer, or NULL */
	unsigned *written; /* per argument: the host version it holds */
	pthread_mutex_t lock;
	bool used;
};

/* The bytes [lo, hi) of a block input that a device's buffer holds at the stream's version
 * ver (0: nothing): a chunk inside them writes nothing, as an input that no swap changes
 * (Jacobi's f) would otherwise go to the device again at every step. */
struct held {
	unsigned ver;
	size_t lo, hi;
};

struct pdev {
	struct part_devstat st;
	const struct rt_devinfo *info;
	cl_device_id id;
	cl_command_queue q;
	bool own_q; /* created here (the GPU's; the cores' belong to the sub-device group) */
	cl_kernel k;
	struct pctx *pc;
	cl_mem *block;     /* per argument: this device's buffer of a block stream, or NULL */
	struct held *held; /* per argument: what of a block input its buffer already holds */
	bool guarded;      /* launches go through the launch gate (PoCL) */
};

struct prun {
	const struct part_env *env;
	const struct part_opts *o;
	struct job_plan *jp;
	const struct kernel_plan *kp;
	const struct part_stream *ps;
	unsigned steps;
	struct part_space sp;  /* the space cut in rows (1-D: in work-items) */
	size_t items, granule; /* sp.rows, sp.granule */
	uint64_t launch_key;   /* the kernel's, for the launch gate */
	void **host;           /* per argument: the data the engine reads and writes */
	void **owned;          /* per argument: what the engine allocated itself */
	void **pristine;       /* per argument: the state before the first run (several runs) */
	unsigned *version;     /* per argument: bumped whenever the host data changes */
	bool several_runs;
	struct rt_subdevs *sd;
	struct pctx *ctx; /* 0: the CPU cores' (and a stand-in's), then one per GPU device */
	unsigned nctx;
	struct pdev *dev;
	unsigned ndev, ncpu, ngpu, threads; /* devices ncpu .. ncpu+ngpu-1 are the GPUs */
	bool gpu, standin;
	/* Sharing the space (o->share): this step's rows [begin, begin + len) of it, and the
	 * scheduler's space (sched_len rows); without, 0, items and items. */
	size_t begin, len, sched_len;
	struct part_block *blocks; /* the written block streams, for the sharers */
	size_t nblocks;
	/* one run */
	struct sched *sched;
	double share;
	pthread_mutex_t lock;   /* the scheduler, the trace, the progress bar, the steps */
	pthread_cond_t cond;    /* a chunk or a device's step ended */
	struct worker *workers; /* the device threads while they run (part-threads.c) */
	unsigned generation, finished;
	bool quit;
	unsigned in_flight;
	/* Where every device is a PoCL one, a chunk past offset 0 waits until the step's
	 * launch at offset 0 has passed the launch gate (part-head.c). */
	bool head_open;
	bool failed;
	struct cs_err err;
	double t0;
	unsigned step;
	size_t done_items;
	struct progress progress;
	const char *what; /* progress bar label */
	struct part_trace *trace;
	size_t ntrace, cap;
};

static inline bool part_interrupted(const struct prun *r)
{
	return r->env->interrupted && *r->env->interrupted;
}

/* ---- part-devices.c ---- */

int part_open_devices(struct prun *r, double *build_ms, struct cs_err *e);
void part_close_devices(struct prun *r);

/* ---- part-buffers.c ---- */

int part_make_args(struct prun *r, struct cs_err *e);
int part_ensure_copies(struct prun *r, struct pdev *d, struct cs_err *e);
void part_copies_stale(struct prun *r);
void part_mems_free(cl_mem *m, size_t n);

/* ---- part-host.c ---- */

int part_host_data(struct prun *r, struct cs_err *e);
void part_host_restore(struct prun *r);
void part_host_swap(struct prun *r);
void part_host_free(struct prun *r);

/* ---- part-chunk.c ---- */

/* What a chunk's time holds besides its commands. */
struct chunk_times {
	bool want_fixed; /* in: measure fixed_ms (an event per command: only where it is used) */
	double gate_ms; /* waiting at PoCL's launch gate for other devices' launches: not its own */
	double fixed_ms; /* its own time outside its commands (< 0: not measured, or no profiling
	                    on the queue) */
};

/* One chunk, start to finish; *t (NULL: nothing wanted) gets its times. */
int part_run_chunk(struct prun *r, struct pdev *d, const struct sched_chunk *c, bool keep,
                   struct chunk_times *t, struct cs_err *e);
int part_warm_up(struct prun *r, struct cs_err *e);
/* The widest chunk whose launches, on the cores, need not run alone at the launch gate:
 * SIZE_MAX where chunks are launched in pieces no wider than the widest so far. */
size_t part_widest_launch(const struct prun *r);

/* ---- part-head.c ---- */

/* Under r->lock: a step begins (the latch closes where it applies), and a thread that got
 * chunk c waits until the step's launch at offset 0 has passed the gate. */
void part_head_close(struct prun *r);
void part_head_wait(struct prun *r, const struct sched_chunk *c);
/* The step's launch at offset 0 has passed the launch gate. */
void part_head_entered(struct prun *r);

/* ---- part-threads.c ---- */

struct worker;
struct worker *part_start_threads(struct prun *r, struct cs_err *e);
void part_stop_threads(struct prun *r, struct worker *w);
int part_run_step(struct prun *r, struct cs_err *e);

/* ---- part-sched.c ---- */

int part_new_sched(struct prun *r, double share, size_t len, const struct sched_prior *prior,
                   struct cs_err *e);

/* ---- part-run.c ---- */

int part_run_all(struct prun *r, double share, double *ms, struct energy_meter *m,
                 struct energy_reading *en, struct cs_err *e);

/* ---- part-shares.c ---- */

int part_share_ready(struct prun *r, int rc, struct cs_err *e);
int part_share_step(struct prun *r, double share, bool last, struct cs_err *e);

/* ---- part-kb.c ---- */

void part_kb_prime(struct prun *r);
void part_kb_keep(struct prun *r, double ms);

/* ---- part-result.c ---- */

void part_fill_result(struct prun *r, struct part_result *res, double ms);

#endif
