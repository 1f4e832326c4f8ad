/*
 * What the running phase's check learnt, kept for the next run in the profile history
 * (data/profstore.h, the file the partition engine's knowledge base uses): per pipeline,
 * machine and configuration family (pcheck_family), the ratio of measured to predicted
 * throughput, a geometric mean over the runs that measured it. A training's predictions
 * are multiplied by their family's ratio before the choice (docs/pipeline.md).
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPEKNOW_H
#define CARSH_ENGINES_PIPELINE_PIPEKNOW_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/pipeline/pipecheck.h"
#include "util/error.h"

/* A correction is kept within [1/PKNOW_MAX_RATIO, PKNOW_MAX_RATIO], and the runs it
 * averages are counted up to PKNOW_MAX_RUNS, so that a later measurement still moves it. */
#define PKNOW_MAX_RATIO 4.0
#define PKNOW_MAX_RUNS  8

struct pknow {
	struct profstore *ps;
	char *keys[2]; /* the pipeline's name, the machine's devices */
	double ratio[PCHECK_FAMILIES];
	double runs[PCHECK_FAMILIES]; /* 0: nothing known */
	bool learnt;
};

/* The corrections of pipeline `name` on the devices named (gpu may be ""), from the file at
 * path (NULL: the default one, $XDG_CACHE_HOME/carsh/profiles.txt; none: no file is read or
 * written). Never fails: a file that cannot be used gives no corrections and a warning
 * (pknow_warning). */
struct pknow *pknow_open(const char *path, const char *name, const char *cpu, const char *gpu);
void pknow_free(struct pknow *k);
const char *pknow_warning(const struct pknow *k);

/* The factor a prediction of family f is multiplied by: 1 where nothing is known. */
double pknow_factor(const struct pknow *k, unsigned f);

/* One run's measured / predicted (uncorrected) throughput of family f. */
void pknow_learn(struct pknow *k, unsigned f, double ratio);

/* Write what was learnt (nothing when nothing was); 0, or -1 with e set. */
int pknow_save(struct pknow *k, struct cs_err *e);

#endif
