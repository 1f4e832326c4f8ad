/*
 * The state of the per-job device choice (runner/devplace.h), shared by devplace.c, which
 * places each job, devlearn.c, which learns from each job's end, and devstate.c, which reads
 * the history and ends the state. The runner's own.
 */
#ifndef CARSH_RUNNER_DEVPLACE_INT_H
#define CARSH_RUNNER_DEVPLACE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/runtime.h"

#define KIND     "device"
#define MAX_DEVS 64
/* A measurement of a size already known counts as much as this many earlier ones at most:
 * the history follows a machine that changed. */
#define KEEP_RUNS 4

enum { V_TIME, V_ENERGY, V_RUNS };

struct inflight {
	struct placer *p;
	int dev;
	double forecast_ms;
	double placed_at;
	double gpu_j0, cpu_j0; /* the counters when it was placed */
	char *keys[3];         /* model, kernel, device */
	size_t size;
	/* Placed before any job of its device had ended in this shell: the first, or behind
	 * it (warm: neither). */
	enum { J_WARM, J_FIRST, J_BEHIND_FIRST } when;
	struct inflight *next;
};

/* A device's run of back-to-back jobs of one kind (flow-model, kernel, size): each of its
 * jobs waited for the one before, so together they cost the time since the first began. */
struct backlog {
	uint64_t kind;
	double start;
	unsigned n;
};

struct placer {
	pthread_mutex_t lock;
	struct rt_devinfo *devs;
	size_t ndev;
	char names[MAX_DEVS][24];
	double last_end[MAX_DEVS];
	struct backlog backlog[MAX_DEVS];
	unsigned ended[MAX_DEVS];
	unsigned energy_jobs[MAX_DEVS]; /* jobs placed under auto:energy, for ENERGY_EVERY */
	struct inflight *jobs;          /* in the order placed */
	struct energy_meter *meter;
	bool meter_tried, gpu_counter, cpu_counter; /* open_meter */
	/* Per counter (COUNTER_GPU, COUNTER_CPU): its power while its devices ran nothing,
	 * W, from the jobs of the other kind measured (devlearn.c); 0: not seen yet. */
	double idle_w[2];
	char *path; /* the history's file; NULL: no cache directory */
	/* The history, read once and saved now and then: reading and writing the file for
	 * every job (a lock, a read, an fsync'd write) costs 8 ms a job, more than a tiny job
	 * runs (64 tiny jobs took four times as long with auto as on the CPU). */
	struct profstore *store;
	double saved_at;
};

#define SAVE_EVERY_MS 2000.0
#define ENERGY_EVERY  8

/* The history, read when first wanted (lock held). */
struct profstore *placer_history(struct placer *p);
/* Whether device i has an energy counter (opens the meter); the counters' readings. */
bool placer_has_counter(struct placer *p, size_t i);
/* The counter that covers device i (NVML's every GPU, RAPL's the CPU packages), or -1. */
enum { COUNTER_GPU, COUNTER_CPU };
int placer_counter_of(const struct placer *p, size_t i);
void placer_counters(struct placer *p, double *gpu_j, double *cpu_j);
/* A tracked job's end (job_plan.on_end): what it measured goes into the history, and it
 * leaves its device's queue (devlearn.c). */
void placer_job_ended(void *arg, int status, const struct run_stats *st);

#endif
