/*
 * What an item's buffers cost to move between the host and the GPU under a mapping, buffer by
 * buffer (docs/pipeline.md, "The model"). The GPU experiment times each stage's inputs going
 * in and its outputs coming back, but it moves only what the stage before left stale, so a
 * buffer that a CPU stage writes and a GPU stage reads two or more stages later moves in a
 * stream and in no stage's figure. Knowing which stage reads and writes which buffer
 * (struct pm_flow), each buffer's move is the GPU experiment's timing of the moves it took
 * part in, shared among their buffers by size; a mapping pays each move its item makes.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPEMOVE_H
#define CARSH_ENGINES_PIPELINE_PIPEMOVE_H

#include <stdbool.h>
#include <stdint.h>

#include "engines/pipeline/pipemodel.h"

/* Seconds per item that the moves of an item whose stages in mask run on the GPU (and the
 * others on the CPU) take on the GPU's side: each buffer a GPU stage reads that the CPU wrote
 * last goes in, each one a CPU stage or the Output stage reads that the GPU wrote last comes
 * back. false (and nothing in *t) where m has no flow. */
bool pmove_gpu_time(const struct pm_meas *m, uint32_t mask, double *t);

/* Each buffer's move in and back, seconds, as the GPU experiment timed them (0: it did not
 * move that way there). in and back hold PIPE_MAX_BUFFERS. */
void pmove_buffer_times(const struct pm_meas *m, double *in, double *back);

#endif
