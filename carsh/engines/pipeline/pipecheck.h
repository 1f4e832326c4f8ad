/*
 * The running phase's check of the model against what it measures (docs/pipeline.md,
 * "Checking the choice"): the chosen configuration measured twice on the live stream gives
 * the run-to-run noise; where its measurement and its prediction disagree beyond that noise,
 * the configurations the model ranks next and the baseline are measured too, and the best
 * measured one runs the rest of the stream, the chosen one kept while it is within the noise
 * of the best. Pure arithmetic on measured throughputs: tests/unit/test_pipemodel.c drives it.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPECHECK_H
#define CARSH_ENGINES_PIPELINE_PIPECHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/pipeline/pipemodel.h"

/* Configurations the model ranks next to the chosen one that a disagreement measures. */
#define PCHECK_NEXT 2
/* The least noise the check assumes: two measurements that happen to be equal do not make
 * a 1 % error a disagreement. */
#define PCHECK_NOISE_FLOOR 0.02

/* The relative difference of two measurements of one configuration: |a - b| / max(a, b);
 * 1 where one of them is 0 and the other is not. */
double pcheck_noise(double a, double b);

/* Whether a prediction and a measurement disagree beyond the noise: |pred - meas| / meas
 * above max(noise, PCHECK_NOISE_FLOOR). */
bool pcheck_disagrees(double pred, double meas, double noise);

/* The configurations ranked next to `chosen` by crit, best first: at most k indices into
 * p[0 .. n-1] into out; returns how many. */
size_t pcheck_next(const struct pm_pred *p, size_t n, size_t chosen, enum pm_criterion crit,
                   size_t *out, size_t k);

/* Which of n measured throughputs to keep: meas[0] is the configuration running now, kept
 * unless the best of the others beats it by more than the noise (it then counts as the
 * best); else the best. */
size_t pcheck_pick(const double *meas, size_t n, double noise);

/* A configuration's family, what a correction applies to: 0 CP-CG, 1 CP-MG, 2 DP-CG, 3 DP-MG. */
#define PCHECK_FAMILIES 4
unsigned pcheck_family(const struct pm_config *c);
const char *pcheck_family_name(unsigned f);

#endif
