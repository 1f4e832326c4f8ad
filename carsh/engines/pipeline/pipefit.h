/*
 * The CG experiments' stage times smoothed into a contention line (docs/pipeline.md, "The
 * model"): stage k beside n - 1 other threads takes a_k + b_k·n, fitted by least squares over
 * the experiments with n = 1 .. nC threads, then again over those at or below that first line.
 * Each T^CG(n) comes from one batch of n items, and a batch only ever loses time to what else
 * the machine does (a late item, its threads' stages in step as they are not in a stream): the
 * lower points measure the cores, the line keeps what they agree on (each thread more slowing
 * each stage by b_k) and drops what one batch alone lost. Pure arithmetic:
 * tests/unit/test_pipemodel.c checks it.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPEFIT_H
#define CARSH_ENGINES_PIPELINE_PIPEFIT_H

#include <stdbool.h>

#include "engines/pipeline/pipemodel.h"

/* Fewest experiments a line is fitted to: through two points it is the points. */
#define PM_FIT_MIN 3

struct pm_cgfit {
	bool ok;       /* fitted: every stage measured at every n = 1 .. last, every time > 0 */
	unsigned s;    /* stages */
	unsigned last; /* the most threads with a core each: nC */
	double a[PIPE_MAX_STAGES], b[PIPE_MAX_STAGES];
};

/* Fit m's stage times; f->ok is false where m lacks them (then the model uses T^CG(n) as
 * measured). */
void pm_cgfit(const struct pm_meas *m, struct pm_cgfit *f);
/* Stage k's time beside n - 1 other threads, n >= 1 (beyond last: as at last). */
double pm_cgfit_stage(const struct pm_cgfit *f, unsigned k, unsigned n);
/* T^CG(n): n threads' items, each the sum of its stages, n at a time; beyond last the
 * threads share the last cores and serve what they do. */
double pm_cgfit_time(const struct pm_cgfit *f, unsigned n);

#endif
