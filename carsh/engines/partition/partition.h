/*
 * The partition engine (DESIGN §6, 003): one data-parallel flow-model run over all the
 * devices of the machine. The CPU device is split into single-core sub-devices
 * (runtime/subdev.h), each driven by a host thread of its own, plus one thread for the GPU;
 * a scheduler (engines/partition/sched.h) hands out chunks of the global work space (of its
 * rows or planes in 2-D and 3-D: engines/partition/space.h), which each device runs with a
 * global work offset. Streams marked partition="copy" are written whole to every context
 * that runs chunks; block streams move per chunk (unit elements per work-item): a chunk's
 * part of the block inputs goes to the device before its launch and its part of the block
 * outputs comes back to the host arrays after it. With several time steps the executable's
 * swap pairs carry each step's outputs to the next step's inputs on the host, so every
 * device sees the whole state at the next step.
 *
 * It runs in the shell's process on the thread executor's runtime session (DESIGN §2).
 */
#ifndef CARSH_ENGINES_PARTITION_PARTITION_H
#define CARSH_ENGINES_PARTITION_PARTITION_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "engines/energy.h"
#include "engines/partition/gpus.h"
#include "engines/partition/kb.h"
#include "engines/partition/sched.h"
#include "exec/jobplan.h"
#include "runtime/session.h"

/* How a kernel argument is split (the flow-model's partition= and unit=, evaluated). */
struct part_stream {
	bool block; /* block: element range [i·unit, (i+1)·unit) belongs to work-item i */
	size_t unit;
};

/* A block stream the engine writes, as a sharer of the space sees it (part_share). */
struct part_block {
	void *data;       /* the whole stream on the host */
	size_t row_bytes; /* its bytes per row of the space */
	bool next;        /* the next step reads it: a swap pair's output, or an InOut */
};

/*
 * The engine as one of several that share the space: the MPI ranks of mpi/partranks.c
 * (docs/scale-out.md, "Partition across ranks"). The engine knows nothing of them: it runs
 * the rows the caller gives it before each step, and hands each step's outcome and its
 * written block streams to the caller, which makes them whole. It calls these at the same
 * points on every sharer whatever happened there (a failed setup or step still calls
 * them, with its status), so that the sharers never wait for each other in vain.
 */
struct part_share {
	void *arg;
	/* Setup ended with status rc (a failure's message in e). Returns the agreed status
	 * (every sharer's; the first failure's message in e). runs: the whole runs that
	 * follow (static's profile: PART_PROFILE_N + 1, else 1); rows and granule: the
	 * space's. */
	int (*ready)(void *arg, int rc, unsigned runs, size_t rows, size_t granule,
	             struct cs_err *e);
	/* Before each step (first: a run's first step): this engine's rows [*begin, *end),
	 * multiples of the granule, perhaps none. */
	void (*rows)(void *arg, bool first, size_t *begin, size_t *end);
	/* After each step, with its status and time: the agreed status. On success the other
	 * sharers' rows of every block in b that the next step reads are in place (last:
	 * the run's last step, after which every block is whole where the outputs are
	 * delivered). */
	int (*step_end)(void *arg, int rc, double ms, bool last, const struct part_block *b,
	                size_t nb, struct cs_err *e);
	bool deliver; /* this sharer writes the outputs (files, buffers) */
};

#define PART_SHARE_AUTO (-1.0)
#define PART_PROFILE_N  11 /* static auto: 0 %, 10 %, ... 100 % (003 §5.1) */

struct part_opts {
	enum sched_kind sched;
	unsigned threads; /* 0: all (every core and the GPU) */
	double gpu_share; /* static: 0 to 1, or PART_SHARE_AUTO */
	long long steps;  /* 0: the executable's swap count + 1 */
	/* Which devices play the GPUs (engines/partition/gpus.h): NULL or "auto" (every GPU,
	 * else every accelerator, else none), "all" (every GPU and accelerator), "none", "cpu"
	 * (one core of the CPU stands in for one), or selectors as <Device select> takes
	 * (INDEX, type, name substring), separated by commas. */
	const char *gpu;
	bool progress; /* a progress bar on standard error */
	/* logfit and marrow start from what it knows of this flow-model, devices and size,
	 * and keep what the run learnt in it; NULL: none. */
	struct part_kb *kb;
	/* One of several engines that share the space (NULL: the whole space here). */
	const struct part_share *share;
};

/* Where the engine runs. Its job plan's virtual buffers are the caller's to claim before
 * and to release after (runner/buffers.h): the engine stages and writes them. */
struct part_env {
	struct rt_session *rt;              /* the thread executor's */
	volatile sig_atomic_t *interrupted; /* Ctrl-C, or NULL */
};

struct part_trace {
	unsigned step;
	unsigned dev;
	size_t offset, size;
	double start_ms, end_ms; /* from the start of the timed run */
	enum sched_phase phase;
};

struct part_devstat {
	char label[16]; /* "gpu" (one GPU) or "gpu0", "gpu1", ..., then "cpu0", ... */
	char name[160];
	bool gpu;
	unsigned compute_units;
	size_t chunks, items;
	double busy_ms; /* in chunks: block transfers and kernels */
	double copy_ms; /* writing copy streams into its context */
	size_t last_chunk;
	size_t in_bytes; /* written to it: its chunks' block inputs and its copy streams */
};

struct part_result {
	char *label;
	enum sched_kind asked, ran;
	size_t items, granule;
	unsigned steps, threads, ncpu;
	unsigned ngpu;   /* devices ncpu .. ncpu+ngpu-1 are the GPUs */
	bool gpu;        /* device ncpu is a GPU */
	bool standin;    /* ... played by a CPU core */
	double time_ms;  /* the timed run: every step, transfers included */
	double setup_ms; /* devices, contexts, programs, buffers, staging (not in time_ms) */
	double build_ms; /* of which program builds (or loads from the binary cache) */
	struct part_devstat *dev;
	unsigned ndev;
	struct part_trace *trace;
	size_t ntrace;
	struct energy_reading energy;
	/* static with --gpu-share auto */
	bool profiled;
	double profile_ms[PART_PROFILE_N];
	double gpu_share; /* static: the share that ran */
	/* schedulers' state at the end */
	bool fitted;
	double fit_a, fit_b, gpu_chunk; /* logfit: the first GPU's (hdss: the GPUs' pooled) */
	struct part_fit {
		bool fitted;
		double a, b, chunk;
	} fits[PART_MAX_GPUS]; /* logfit with several GPUs: each one's */
	bool core_cost;        /* logfit, marrow: the cores' fixed cost was learnt */
	double core_fixed_ms;  /* ... its mean a chunk */
	double core_min_chunk; /* ... the smallest chunk it allows, items */
	double gpu_fraction;   /* concord */
	double relative_speed; /* hdss */
	char kb_warning[400];  /* the knowledge base was not used or not saved: why ("" else) */
	/* Across MPI ranks (filled by mpi/partranks.c): each rank's rows and time in the
	 * last step; nranks 0 without. */
	unsigned nranks;
	size_t *rank_rows;
	double *rank_ms;
};

/* Stage the plan's data, run it as o says, deliver the outputs. ps has one entry per kernel
 * argument. Returns 0, 1 on failure, 130 when Ctrl-C stopped it; res is filled on success
 * (free it with part_result_free). */
int partition_run(const struct part_env *env, struct job_plan *jp, const struct part_stream *ps,
                  const struct part_opts *o, struct part_result *res, struct cs_err *e);
void part_result_free(struct part_result *r);

/* The summary (time, each device's share, the final chunk sizes) as text or as one JSON
 * object, and the trace as CSV: step,device,offset,size,start_ms,end_ms,throughput,phase. */
void part_print_summary(FILE *f, const struct part_result *r);
void part_print_json(FILE *f, const struct part_result *r);
int part_write_trace(const char *path, const struct part_result *r, struct cs_err *e);

#endif
