/*
 * Configuration names (docs/pipeline.md): MAPPING-GRAIN[:THREADS][:STAGES], as `pipeline
 * --config` takes them and every report prints them.
 *   DP-CG:3        decoupled, coarse grain, 3 threads (the GPU thread and 2 CPU threads)
 *   DP-MG          decoupled, medium grain
 *   CP-CG:2:010    coupled, coarse grain, 2 threads, stage 2 of 3 mapped to the GPU
 *   CP-MG::110     coupled, medium grain (the thread count is always nC+1)
 * STAGES has one digit per stage, the first stage first (000 §III-B's tuple); left out, no
 * stage is mapped to the GPU. `baseline` names 000 §VI-B's baseline (pm_baseline).
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPECONF_H
#define CARSH_ENGINES_PIPELINE_PIPECONF_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/pipeline/pipemodel.h"
#include "util/error.h"

#define PM_NAME_MAX 64

const char *pm_config_name(const struct pm_shape *sh, const struct pm_config *c, char *buf,
                           size_t len);

/* Parse and check s against the shape; *baseline is set for "baseline" (c is then left for
 * the training to decide). Errors say what is wrong and what would be right. */
int pm_config_parse(const struct pm_shape *sh, const char *s, struct pm_config *c, bool *baseline,
                    struct cs_err *e);

#endif
