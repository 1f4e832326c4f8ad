/*
 * Watching the throughput of the running phase (000 §IV-B): completions are counted in
 * windows of a few items; the second window's throughput becomes the reference λ_c (the
 * first holds the pipeline's filling), and a change is pending once two windows in a row
 * differ from it by more than the change ratio, the same way (a drop or a rise). Whether a
 * pending change may start a training is equation 2's business (pm_may_retrain). Pure
 * arithmetic on times the caller gives: tests/unit/test_pipemodel.c drives it.
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPEMON_H
#define CARSH_ENGINES_PIPELINE_PIPEMON_H

#include <stdbool.h>
#include <stddef.h>

struct pmon {
	size_t window; /* items per window */
	double change; /* relative change that counts, e.g. 0.25 */
	double ref;    /* λ_c, items per second; 0 until the second window ends */
	double start;  /* when the current window started (seconds) */
	size_t count;  /* items in the current window */
	unsigned windows;
	int trend; /* +1 / -1: the last window was above / below the band, else 0 */
	unsigned strikes;
	bool changed; /* a change is pending */
	double last;  /* the last window's throughput */
};

void pmon_init(struct pmon *m, size_t window, double change, double t0);
/* One item completed at time t. True when a change is pending (from now on, until a new
 * pmon_init). */
bool pmon_item(struct pmon *m, double t);

/* The steady-state throughput of a run while its Input stage fed it, from 0 to `fed`
 * seconds: each item counts for the share of its stay in the pipeline (take[i] to done[i],
 * seconds from the start) that falls in that time. By Little's law, applied to each path,
 * items that stay R seconds with L of them in flight count L/R a second, their throughput,
 * however few of them finish in the time: a core whose items outlast the run still counts
 * for what it did, and the draining after the last item was taken does not count. */
double pmon_throughput(const double *take, const double *done, size_t n, double fed);

#endif
