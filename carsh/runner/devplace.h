/*
 * The per-job device choice of 002 §4-5 (DynPerf and DynEn; docs/auto.md): a job whose
 * device selector is `auto`, `auto:time` or `auto:energy` gets, before a worker is taken,
 * the device that can run it whose queued work plus the job's forecast time ends first, or
 * whose forecast energy is least. Forecasts come from the "device" records of the profile
 * history (data/profstore.h), which every auto-placed job adds to when it ends; a device
 * that has no record of the flow-model yet is tried first (exploration).
 *
 * The choice is made in the shell, which never touches OpenCL: it learns the devices once
 * from a child (or from the thread executor's runtime) and writes the chosen index into the
 * plan's `<Device select>`, so that the worker, the server's lending of workers by device
 * and the runtime see an ordinary selector.
 */
#ifndef CARSH_RUNNER_DEVPLACE_H
#define CARSH_RUNNER_DEVPLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "data/profstore.h"
#include "exec/jobplan.h"
#include "runner/context.h"

enum place_crit { PLACE_TIME, PLACE_ENERGY };

/* A selector's auto form: 1 with *crit set for auto, auto:time, auto:energy (any case); 0
 * for another selector (or NULL); -1 for auto:SOMETHING else. */
int place_mode(const char *sel, enum place_crit *crit);

/* Choose jp's device when its selector says auto: rewrites jp->kp.device_exe to the chosen
 * index (*saved gets the old value, to be put back with place_restore where the plan is
 * kept), sets jp->on_end to learn from the run, and writes why into why ("" when the
 * selector is not auto). Errors: a bad criterion, no device that can run the plan, no
 * energy counter for auto:energy. */
int place_job(struct run_ctx *c, struct job_plan *jp, char **saved, char *why, size_t len,
              struct cs_err *e);
void place_restore(struct job_plan *jp, char *saved);

/* The job's forecast run time on the device that would run it soonest, from the history
 * alone (no queue, whatever its selector): rank="auto" across MPI ranks
 * (mpi/rankforecast.h). 1 with *ms set; 0 where the history knows the flow-model on no
 * device that can run it, or there is no history or no device list. */
int place_job_forecast(struct run_ctx *c, const struct job_plan *jp, double *ms);

struct placer;

/* `devices --profiles`: the "device" records of the profile history, one a line (p, the
 * shell's placer or NULL, saves what it learnt first); warn gets the history's warning. -1 with e
 * set where there is no cache directory. */
int place_profiles_print(struct placer *p, FILE *f, char *warn, size_t n, struct cs_err *e);

/* ---- the arithmetic, pure, for the unit tests ---- */

/* The forecast of value i at size from the records around it (profstore_near): between two
 * sizes the line between them; below the smallest its value (a small job is bound by its
 * launch and transfers, not its size); above the largest the largest's scaled by size. */
double place_forecast(const struct prof_rec *lo, const struct prof_rec *hi, size_t size, int i);

/* The work queued on one device, ms from now: the forecasts of the jobs this shell runs
 * there, in the order they were placed, less what the first has run already (since it was
 * placed, or since the device's last job ended, whichever is later; never more than its
 * forecast). */
double place_busy_ms(const double *forecast, const double *placed_at, size_t n, double last_end,
                     double now);

/* One device that can run the job. */
struct place_cand {
	const char *name; /* "gpu", "cpu0" */
	bool known;       /* the history knows the flow-model there */
	bool exploring;   /* unknown, and a job of it runs there now */
	double time_ms;   /* forecast run time (known) */
	double energy_mj; /* forecast energy, < 0: not measured */
	double busy_ms;   /* place_busy_ms */
	int queued;       /* jobs this shell runs there */
	double idle_w;    /* its energy counter's power while idle (W = mJ/ms); 0: not known */
};

/* The machine's forecast energy of the job on c[i], mJ: its energy there, less that
 * device's idle power over the job's time (drawn whether it runs the job or not, while the
 * machine runs), plus every candidate's idle power over the time by which the job moves the
 * machine's end (the latest end of a queue, busy_ms) later: a device kept busy longer keeps
 * the others powered. Without idle powers, the job's energy. */
double place_energy_mj(const struct place_cand *c, size_t n, size_t i);

/* The candidate to run on (an index into c), with why as `jobs` shows it: an unknown device
 * not being explored yet, first; while a device is being explored, the one with the fewest
 * jobs queued; then the earliest end (busy + time), or with energy the least energy
 * (place_energy_mj) among those measured (the earliest end breaks ties). */
size_t place_pick(const struct place_cand *c, size_t n, enum place_crit crit, char *why,
                  size_t len);

#endif
