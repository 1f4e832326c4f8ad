/*
 * The adaptive pipeline engine (DESIGN §6, 000; docs/pipeline.md): a stream of items through
 * a linear pipeline of flow-models, mapped onto the CPU cores and the GPU by one of the
 * configurations of 000 §II. Adaptive mode alternates a training phase (the homogeneous
 * experiments of 000 §IV-A, engines/pipeline/pipetrain.h) and a running phase with the
 * configuration the analytical model (000 §V, engines/pipeline/pipemodel.h) predicts best for the
 * criterion; the running phase watches the throughput and trains again after a change, no sooner
 * than the overhead bound of equation 2 allows. A configuration given by the user runs as it is.
 *
 * It runs in the shell's process on the thread executor's runtime session (DESIGN §2).
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPELINE_H
#define CARSH_ENGINES_PIPELINE_PIPELINE_H

#include <signal.h>
#include <stdio.h>

#include "engines/pipeline/pipecheck.h"
#include "engines/pipeline/pipemodel.h"
#include "engines/pipeline/piperun.h"
#include "model/pipeplan.h"
#include "runtime/session.h"

struct pipe_opts {
	enum pm_criterion crit;
	double overhead;    /* ov_thl of equation 2, 0 < ov < 1 */
	double change;      /* a throughput change that counts, relative (pipemon) */
	const char *config; /* --config, or NULL: adaptive */
	size_t tokens;      /* items in flight; 0: 2(nC+1) */
	bool explain;       /* keep every training's predictions */
	bool validate;      /* run every configuration and the baseline, and measure */
	size_t val_items;   /* --validate-items: items per validated run; 0: the whole stream */
	double val_secs;    /* --validate-seconds: each validated run takes items this long; 0: no
	                       limit */
	bool progress;      /* draw a progress line on standard error */
	const char *gpu;    /* as partition's --gpu: auto, none, cpu, or a selector */
	double tdp;         /* watts; 0: from the counters' limits */
};

struct pipe_env {
	struct rt_session *rt;
	volatile sig_atomic_t *interrupted;
};

/* A stretch of the stream run with one configuration. */
struct pipe_run {
	struct pm_config c;
	bool strict; /* the baseline: GPU stages wait for the GPU */
	bool predicted;
	struct pm_pred pred;
	size_t first, items;
	double ms;
	double lambda;             /* measured, steady state (pmon_throughput) */
	struct prun_path gpu, cpu; /* the items on each path and their summed times */
	double energy;             /* measured joules per item; < 0 when not measured */
	bool retrain;              /* it ended because the throughput changed */
	bool check;                /* a measurement of the running phase's check */
};

/* The running phase's check after a training (engines/pipeline/pipecheck.h). */
struct pipe_check {
	size_t training;     /* which one (index into tr) */
	size_t first, items; /* the items it ran */
	size_t cost;         /* of those, the items run by configurations other than the kept one */
	double meas[2];      /* the chosen configuration measured twice */
	double noise;        /* pcheck_noise of the two */
	double pred;         /* its prediction */
	bool disagrees;      /* beyond the noise: the next ones and the baseline were measured */
	struct pm_config kept;
	bool kept_strict;  /* the baseline was kept */
	bool switched;     /* the kept one is not the chosen one */
	size_t run0, nrun; /* its measurements in runs[] */
};

/* A training and its predictions. */
struct pipe_training {
	size_t first, items;
	double ms;
	bool complete;
	struct pm_meas m;
	struct pm_config *cfg; /* every configuration, and its prediction */
	struct pm_pred *pred;  /* with the known corrections (pipeknow.h) */
	double *raw;           /* each λ before them */
	size_t ncfg;
	size_t chosen;
	struct pm_config baseline;
};

struct pipe_result {
	char *name;
	const char *stage_names[PIPE_MAX_STAGES]; /* the plan's (printed while it exists) */
	size_t items, tokens;
	struct pm_shape sh;
	bool standin;
	char cpu_name[160], gpu_name[160];
	enum pm_criterion crit;
	double overhead;
	bool adaptive;
	struct pipe_training *tr;
	size_t ntr;
	struct pipe_run *runs; /* the running phases, in stream order */
	size_t nruns;
	struct pipe_check *checks; /* the running phases' checks */
	size_t nchecks;
	double factor[PCHECK_FAMILIES]; /* the corrections the predictions took (1: none) */
	char know_note[320];            /* the knowledge file's warning, or why it was not saved */
	struct pipe_run *val;           /* --validate: every configuration, then the baseline */
	size_t nval;
	struct pipe_run val_again;    /* --validate: the chosen configuration measured again */
	double val_noise;             /* pcheck_noise of its two measurements */
	struct pipe_run val_drift[2]; /* --validate: the CPU alone with 1 and nC threads, again */
	size_t val_drift_of[2];       /* their first measurements: indices into val */
	unsigned nval_drift;
	size_t val_kept;  /* what the running phase's check would keep from these measurements */
	size_t val_items; /* the items each of them may take: 0 .. val_items-1 */
	double val_secs;  /* and for how long (0: no limit) */
	double time_ms;   /* training and running phases */
	double setup_ms;  /* devices, programs, warm-up */
	double build_ms;
	bool energy_ok;
	char cpu_note[160], gpu_note[160], tdp_note[160];
	double tdp;
};

/* Run the stream as o says. Returns 0, 1 on failure, 130 when Ctrl-C stopped it; res is
 * filled on success (free it with pipe_result_free). */
int pipeline_run(const struct pipe_env *env, const struct pipe_plan *pp, const struct pipe_opts *o,
                 struct pipe_result *res, struct cs_err *e);
void pipe_result_free(struct pipe_result *r);

/* The report: a summary line per phase, with o->explain every training's measurements and
 * predictions, with --validate the measured table; or all of it as one JSON object. */
void pipe_print_text(FILE *f, const struct pipe_result *r, bool explain);
void pipe_print_json(FILE *f, const struct pipe_result *r);

#endif
