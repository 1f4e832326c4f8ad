/*
 * The cores' cost model a scheduler owns (LogFit and Marrow, and the cpu scheduler standing in
 * for them without a GPU; sched-int.h): a core's fixed cost per chunk and the smallest chunk it
 * allows (sched-cost.c), what each region of the space costs a core (sched-map.c), and its
 * life and what a finished chunk adds to it (sched-learn.c). It knows the configuration, not
 * the scheduler: the scheduler that owns it hands it every chunk.
 */
#ifndef CARSH_ENGINES_PARTITION_SCHED_LEARN_H
#define CARSH_ENGINES_PARTITION_SCHED_LEARN_H

#include <stdbool.h>
#include <stddef.h>

#include "engines/partition/sched.h"

/* The cores' fixed cost per chunk over the run (sched-cost.c). */
struct cost {
	double n;     /* chunks that reported one */
	double fixed; /* their fixed costs, ms */
	double rest;  /* the rest of their time, ms */
	double items; /* their items */
};

/* The cores' cost of each region of the space, from the steps before (sched-map.c). */
struct cmap {
	size_t bin; /* items a region: a multiple of the granule */
	size_t n;   /* regions */
	double *ms; /* per region: a core's ms an item besides its fixed cost; < 0: unknown */
	double *sum_ms, *sum_items; /* per region, in this step: the cores' chunks on it */
	double *cum;                /* n + 1: the cost of regions [0, i), for this step */
	bool ready;                 /* cum holds a map for this step */
};

struct learn {
	size_t items, granule; /* of the configuration (struct sched_cfg) */
	unsigned ncpu, ndev;
	bool gpu_is_core;
	struct cost cost;      /* the cores' fixed cost per chunk, in the steps done */
	struct cost cost_step; /* in this step */
	double *fixed_ms;      /* per core: its next chunk's fixed cost (< 0: none) */
	double ctail;          /* the cores' equal chunk at this step's end (sched_take_guided) */
	struct cmap map;
	double *work,
	        *work_ms; /* per device, in this step: the map's cost of its chunks, their ms */
	double *pace;     /* per device: the last step's work / work_ms (0: none) */
};

/* ---- sched-learn.c ---- */

/* ndev devices, the cores first. */
struct learn *learn_new(const struct sched_cfg *cfg, unsigned ndev);
void learn_free(struct learn *l);
/* A step begins: the last one's chunks join the steps done, the map for it. */
void learn_step(struct learn *l);
/* Device dev (a GPU where gpu is set) finished chunk c in ms. */
void learn_done(struct learn *l, unsigned dev, bool gpu, const struct sched_chunk *c, double ms);

/* ---- sched-cost.c ---- */

/* Core dev's next chunk has a fixed cost of ms (sched_fixed). */
void sched_cost_fixed(struct learn *l, unsigned dev, double ms);
/* Returns the chunk's time besides its fixed cost (< 0: none was reported). */
double sched_cost_add(struct learn *l, unsigned dev, size_t items, double ms);
/* The least time a core's chunk of one granule takes at throughput lc: its items at lc, and
 * never less than the fixed cost of a chunk. */
double sched_least_chunk_ms(const struct learn *l, double lc);
/* A step begins: the last one's chunks join the steps done. */
void sched_cost_step(struct learn *l);
/* The smallest chunk whose fixed cost is at most a quarter of its time, at the cores' mean
 * cost an item (0: none learnt). */
double sched_cost_min_chunk(const struct learn *l);
/* That chunk's time besides its fixed cost, ms (0: none). */
double sched_cost_min_ms(const struct learn *l);
/* The cores' mean fixed cost a chunk and the smallest chunk it allows (sched_core_cost). */
bool sched_cost_of_cores(const struct learn *l, double *fixed_ms, double *min_chunk);

/* ---- sched-map.c ---- */

void sched_map_init(struct learn *l); /* the map, empty */
void sched_map_free(struct learn *l);
void sched_map_add(struct learn *l, const struct sched_chunk *c, double ms);
/* A step begins: the map for it from the chunks of the steps before. */
void sched_map_step(struct learn *l);
bool sched_map_ready(const struct learn *l);
/* With a map ready: a core's ms for items [from, to), and the items from on that take ms. */
double sched_map_cost(const struct learn *l, size_t from, size_t to);
double sched_map_reach(const struct learn *l, size_t from, double ms);
/* A device ran chunk c in ms: the map's cost of it counts in the device's pace. */
void sched_map_pace(struct learn *l, unsigned dev, const struct sched_chunk *c, double ms);
/* The GPU's share by cost of the items from `from` to the step's end: its pace against the
 * cores' (those for which counts says yes), as the items from `from` on; 0 where the map or a
 * pace is missing. */
double sched_map_gpu_share(const struct learn *l, unsigned gpu_dev, const bool *counts,
                           size_t from);
/* items, no more than the widest chunk so far (widest) or guided self-scheduling's first. */
double sched_map_cap(const struct learn *l, size_t widest, double items);
/* A map of n regions to start from, and what this run learnt (sched_prime_map). */
void sched_map_prime(struct learn *l, const double *map, unsigned n);
bool sched_map_profile(const struct learn *l, double *map, unsigned n);

#endif
