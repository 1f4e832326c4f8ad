/* Staging: host data for a plan's streams before the launch, and delivery afterwards. */
#ifndef CARSH_EXEC_STAGE_H
#define CARSH_EXEC_STAGE_H

#include "exec/jobplan.h"
#include "util/error.h"

/* Give every stream a host buffer: read input files, fill, map virtual buffers, allocate
 * outputs. On failure what was staged is released. */
int stage_in(struct job_plan *jp, struct cs_err *e);

/* The same for every stream except those bound to virtual buffers (the thread executor
 * keeps those on the device). */
int stage_in_files(struct job_plan *jp, struct cs_err *e);

/* Write Output and InOut data to their files (atomically) or leave it in their buffers. */
int stage_out(struct job_plan *jp, struct cs_err *e);

/* The time since t0 (clock_ms) when the job reads or writes a file (standard input and output
 * included), else 0: what `time` shows as its files' time, without the checks of a job that
 * binds only buffers. */
double stage_files_ms(const struct job_plan *jp, double t0);

/* Release host buffers (also after a failure). */
void stage_release(struct job_plan *jp);

#endif
