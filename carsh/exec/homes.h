/*
 * The process executor's side of resident buffers (docs/executors.md "What moves when"):
 * what a job on a warm worker is told about each of its buffers, what it leaves where, and
 * host access, all through the session's table of where buffers are (data/vhome.h).
 */
#ifndef CARSH_EXEC_HOMES_H
#define CARSH_EXEC_HOMES_H

#include <stdint.h>

#include "data/vhome.h"
#include "exec/jobplan.h"
#include "exec/workers.h"

/* The worker that holds the data of jp's buffers (its serial; 0: none), for workers_take. */
uint64_t homes_holder(struct vhome *h, const struct job_plan *jp);

/* Before jp runs on wk: homes[i] for each argument bound to a buffer (here: current on wk;
 * else shared memory is current). A buffer the job reads whose data is on another worker is
 * written back first (the time goes to *d2h_ms). wk becomes a holder. -1 with e when a
 * buffer was lost (data/vhome.h's message) or cannot be written back (then it is lost). */
int homes_prepare(struct vhome *h, struct workers *w, struct worker *wk, const struct job_plan *jp,
                  struct job_home *homes, double *d2h_ms, struct cs_err *e);

/* After jp ran on wk with status (its message how; launched: whether a kernel ran): what it
 * wrote is current on wk's device (device: where it ran), what it read there too; a worker
 * that ended takes with it what only it held (lost, how it ended said); a failed job's
 * outputs on wk are not trusted once a kernel ran. */
void homes_settle(struct vhome *h, struct worker *wk, const struct job_plan *jp, int status,
                  bool launched, const char *device, const char *how);

/* A window's job (exec/jobwin.h) sent to wk after homes_prepare: counted as run there
 * (homes_settle's success), its buffers' states before in before[i] (one per argument). */
void homes_assume(struct vhome *h, struct worker *wk, const struct job_plan *jp,
                  struct vhome_state *before);
/* The same buffers' states put back (the job did not run, or did not end well); jobs undone
 * from the last sent to the first leave the table as it was before them. */
void homes_undo(struct vhome *h, const struct job_plan *jp, const struct vhome_state *before);

/* -1 with the message of data/vhome.h when one of jp's buffers was lost (the thread
 * executor's check: it reads shared memory, where a lost buffer's old data still is). */
int homes_check_plan(struct vhome *h, const struct job_plan *jp, struct cs_err *e);

/* Make shared memory current for a host reader of shm (named name in messages): written back
 * from a device, its pixels widened into it, or the value the table keeps written there. */
int homes_to_host(struct vhome *h, struct workers *w, const char *shm, const char *name,
                  struct cs_err *e);
/* Only the last of those: the value a fill between a window's jobs left in the table alone
 * (data/vhome.h's value_only) written into shared memory, before a host writer changes part of
 * it (a file fill that fails part way) or a host reader reads it. 0, or -1 with e. */
int homes_value_to_host(struct vhome *h, const char *shm, const char *name, struct cs_err *e);
/* For a dump as a PGM picture: 1 when shm's pixels (data/vpixels.h) hold its data narrowed as
 * pixels_to_bytes() does: they hold a PGM fill's samples (widened exactly, they narrow back
 * to themselves), or, with narrow (a float buffer) and its data only on a worker's device,
 * that worker narrowed them there. 0: not so (make shared memory current and convert it);
 * -1 with e when the buffer was lost. Shared memory and the table stay as they were. */
int homes_pixels(struct vhome *h, struct workers *w, const char *shm, const char *name, bool narrow,
                 struct cs_err *e);
/* homes_to_host for every buffer whose shared memory is stale (its data only on a device,
 * its pixels, or its value in the table), before the thread executor, which reads shared memory,
 * takes over. */
int homes_all_to_host(struct vhome *h, struct workers *w, struct cs_err *e);

#endif
