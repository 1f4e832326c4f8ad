/*
 * The analytical model of 000 §V: a pipeline configuration as a closed network of M/M/1
 * queues, instantiated from the homogeneous measurements of the training phase (000 §IV-A,
 * Tables I and II), predicting the effective throughput λ_e and the effective energy per
 * item E_e of every configuration (Tables III and IV, equations 3-10). Pure arithmetic: no
 * OpenCL, no clock; tests/unit/test_pipemodel.c checks it against closed forms.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPEMODEL_H
#define CARSH_ENGINES_PIPELINE_PIPEMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/pipespec.h"

#define PM_MAX_CORES 256

/* Energy per item in 000's three domains: C (CPU), G (GPU), U (uncore), joules. */
struct pm_energy {
	double c, g, u;
};

/* Table I and Table II, per stage. Times in seconds per item. */
struct pm_stage {
	double t_cg; /* T_k^CG: one thread, one core */
	double t_mg; /* T_k^MG: the whole CPU for one item */
	double t_g;  /* T_k^G: the GPU's kernel */
	/* 000 §V-C: host-to-device time of the stage's inputs and device-to-host time of its
	 * outputs on the GPU, charged to a run of GPU stages at its ends; the same for the CPU's
	 * contexts (CG, MG), charged to a run of CPU stages where it meets a GPU stage. */
	double h2d_g, d2h_g;
	double h2d_cg, d2h_cg, h2d_mg, d2h_mg;
	struct pm_energy e_cg, e_mg, e_g;
};

/* The pipeline and the machine: what the configurations range over. */
struct pm_shape {
	unsigned s;      /* stages */
	unsigned nc;     /* CPU cores nC */
	bool gpu;        /* there is a GPU (maybe a stand-in) */
	uint32_t gpu_ok; /* stages that may run on the GPU (gpu="no" clears a bit) */
};

/* Which item buffers each stage reads and writes, and their sizes: what an item moves
 * between the host and the GPU where a mapping splits its stages (engines/pipeline/pipemove.h).
 * nb = 0: not known; the moves are then charged per stage, as the GPU experiment timed them. */
struct pm_flow {
	unsigned nb;                    /* item buffers */
	double bytes[PIPE_MAX_BUFFERS]; /* each buffer's size */
	uint64_t rd[PIPE_MAX_STAGES];   /* bit b: stage k reads buffer b */
	uint64_t wr[PIPE_MAX_STAGES];   /* bit b: stage k writes buffer b */
	uint64_t sink;                  /* the buffer the Output stage reads on the host */
};

/* What the training phase measured. */
struct pm_meas {
	struct pm_shape sh;
	struct pm_flow flow;
	bool energy; /* the energy fields hold measurements */
	struct pm_stage st[PIPE_MAX_STAGES];
	/* T^CG(n) and E^CG(n), n = 1 .. nC+1 (nC without a GPU): time and energy per item when n
	 * threads process n items at once. T^CG(1) = Σ T_k^CG (Table I). */
	double t_cgn[PM_MAX_CORES + 2];
	struct pm_energy e_cgn[PM_MAX_CORES + 2];
	/* Each stage's mean time in that experiment, n = 1 .. (T_k^CG at n = 1); 0: not
	 * measured. A stage of n threads at once takes longer than alone, a short one the most
	 * (docs/pipeline.md): what a GPU-CPU item's CPU stage meets beside n - 1 CPU threads. */
	double t_cgn_stage[PM_MAX_CORES + 2][PIPE_MAX_STAGES];
	/* The share of a core that the thread feeding the GPU keeps busy while its items are on
	 * the GPU, 0 .. 1: its CPU time over its wall time in the GPU experiment (a runtime that
	 * spins while it waits for the GPU keeps a whole core). The cores' bound of the CPU path
	 * (docs/pipeline.md) leaves it to that thread. */
	double gpu_host;
	/* The CG experiment beside the GPU: beside_n threads' items on cores, started together
	 * while one more thread fed the GPU item after item, and each stage's mean time in it; 0:
	 * not measured (the model then takes a coupled run's cores as a homogeneous run's). What
	 * a coupled run's CPU stages meet that no homogeneous experiment has: the GPU path's
	 * thread, its moves and its launches beside them (docs/pipeline.md, "The model"). */
	unsigned beside_n;
	double t_beside_stage[PIPE_MAX_STAGES];
	/* In the same experiment, the feeding thread's mean item through every stage on the GPU,
	 * one right after the other as a stream's GPU path runs them (0: not measured): the GPU
	 * experiment waits for each stage and transfer apart to time it, which the stream does
	 * not (docs/pipeline.md, "The model"). */
	double t_gpu_fed;
	/* The same feeder's median item beside the CG threads, and its median item of three alone,
	 * back to back, before they started (0: not measured). Reported, not used by the model: a
	 * mean of a few dozen items moves with one late item, and which of the three a stream's GPU
	 * path bears out is for a live run to say (docs/pipeline.md, "Training"). */
	double t_gpu_fed_median, t_gpu_alone;
	/* The serial stages per item (an extension, docs/pipeline.md); 0: no bound. */
	double t_in, t_out;
	double tdp; /* watts; 0: unknown (E_e is not capped) */
	/* Equation 1: the collection step's time and the items it processed (N_s). */
	double t_collect;
	size_t n_collect;
};

/* The most the model slows a coupled run's CPU-path item for the GPU's thread beside it (the
 * CG experiment beside the GPU over the homogeneous time): the coupled runs on a GPU
 * measured their CPU-path items 1.04-1.32 times the homogeneous run's at 9-17 threads (SRAD,
 * two validations; ViVid LD 1.07-1.29), where the experiment, one cold item a thread, read up
 * to 1.43 (docs/pipeline.md, "The model"). */
#define PM_BESIDE_MAX 1.30

/* The CG experiment beside the GPU's item over the homogeneous one with as many threads (0:
 * not measured); *used: what the model slows a coupled CPU path by, within 1 .. PM_BESIDE_MAX
 * (1 where not measured). */
double pm_beside_ratio(const struct pm_meas *m, double *used);

/* T^CG(1) as the model takes it: the median of the one-thread experiment's item and the two-
 * and three-thread batches' items per thread (n · T^CG(n)) with 3 cores or more, else the
 * one-thread experiment's (docs/pipeline.md, "The contention line"). */
double pm_one_thread_item(const struct pm_meas *m);

/* A configuration of 000 §II. */
struct pm_config {
	bool dp;          /* decoupled: an item goes all GPU or all CPU; else coupled */
	bool mg;          /* medium grain: the whole CPU for one item; else coarse grain */
	unsigned threads; /* CG: 1 .. nC+1 (the GPU or GPU-CPU thread among them); MG: nC+1 */
	uint32_t mask;    /* stages mapped to the GPU (bit k: stage k) */
};

struct pm_pred {
	double lambda;          /* λ_e, items per second (after the serial bound) */
	double lambda_q;        /* λ_e of the queues alone (equations 3-6) */
	double energy;          /* E_e, joules per item (equation 8); < 0 when not measured */
	double p_gpu;           /* probability of the GPU (or GPU-CPU) path */
	struct pm_energy e_sum; /* (E_eC, E_eG, E_eU): equations 9 / 10 */
};

enum pm_criterion { PM_THROUGHPUT, PM_ENERGY, PM_TPE };

/* Predict one configuration (which must be valid for m: pm_valid). */
void pm_predict(const struct pm_meas *m, const struct pm_config *c, struct pm_pred *out);

/* Equations 9 and 10 share this: each component is the larger of the two devices'. */
struct pm_energy pm_energy_balance(struct pm_energy gpu, struct pm_energy cpu);
/* Equation 8: min(TDP/λ, E_eC + E_eG + E_eU); tdp 0 means no cap. */
double pm_effective_energy(double tdp, double lambda, struct pm_energy sum);

/* Most threads a configuration has: nC+1 with a GPU (its thread oversubscribes a core,
 * 000 §II-B), nC without. */
unsigned pm_max_threads(const struct pm_shape *sh);

/* Every configuration, 2^g·(nC+2) with g GPU-capable stages (000 §II-B), or nC+1 without a
 * GPU (CG with 1 .. nC threads, and MG). The caller frees *out. */
size_t pm_enumerate(const struct pm_shape *sh, struct pm_config **out);

/* The choice under crit (highest λ, lowest E, or highest λ/E): of the configurations c[i]
 * whose prediction p[i] is within tol (relative) of the best one, the one with the fewest
 * threads (MG counts nC+1), the best of those, the first of equals. Predictions that close
 * are within the measurements' own spread on a real machine (docs/pipeline.md), and more
 * threads than needed only oversubscribe the cores the GPU's thread needs. The energy
 * criteria need m->energy. Returns the index. */
#define PM_CHOICE_TOLERANCE 0.05
size_t pm_choose(const struct pm_config *c, const struct pm_pred *p, size_t n,
                 enum pm_criterion crit, double tol, unsigned nc);
/* The value crit ranks by (higher is better). */
double pm_score(const struct pm_pred *p, enum pm_criterion crit);

/* 000 §VI-B's baseline (Totoni et al.): every stage on the device where it ran faster in
 * training (GPU against MG), MG granularity, nC+1 threads; the GPU stages then wait for the
 * GPU instead of falling back to the CPU. */
struct pm_config pm_baseline(const struct pm_meas *m);

/* Equation 1: Δt, the collection step's time minus what its N_s items would have taken at
 * the current throughput λ_c. */
double pm_delta_t(const struct pm_meas *m, double lambda_c);
/* Equation 2: a new training is allowed after t seconds in the running phase when
 * t > (1 - ov) / ov · Δt. */
bool pm_may_retrain(double t, double delta_t, double ov);

const char *pm_criterion_name(enum pm_criterion c);
int pm_criterion_parse(const char *s, enum pm_criterion *c);

#endif
