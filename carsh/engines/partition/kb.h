/*
 * The partition engine's knowledge base (001 §3.2): per flow-model (its file and kernel),
 * device set (the devices' names and count) and problem size (work-items), the throughput
 * of each device class (the GPU, one core) and the best split found. A size not in it is
 * interpolated linearly between the two nearest known sizes of the same flow-model and
 * device set (001 interpolates its scattered profiles; over one dimension this is the
 * line between the neighbours), or taken from the nearest one outside their range.
 *
 * Its entries are the "partition" records of the profile history (data/profstore.h), the
 * file the per-job device choice keeps its "device" records in too:
 *
 *     partition	MODEL	KERNEL	DEVICES	ITEMS	SHARE	GPU_ITEMS_PER_MS
 * CORE_ITEMS_PER_MS	STEP_MS
 *
 * and, where the cores' chunks covered the space, a cost map of it (sched-map.c): what an
 * item of each of 64 regions cost a core, a "partition-map" record of the same key:
 *
 *     partition-map	MODEL	KERNEL	DEVICES	ITEMS	MS_PER_ITEM x 64
 *
 * A corrupt file, or one of another version, is not used: the knowledge base starts empty
 * with a one-line warning and the file is rebuilt at the next save.
 */
#ifndef CARSH_ENGINES_PARTITION_KB_H
#define CARSH_ENGINES_PARTITION_KB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "engines/partition/sched.h"
#include "util/error.h"

struct kb_key {
	const char *model;   /* the flow-model's file, absolute */
	const char *kernel;  /* its kernel */
	const char *devices; /* "GPU NAME + 16 x CPU NAME" (part_kb_devices) */
	size_t items;
};

struct profstore;

/* The regions of a cost map in the knowledge base. */
#define KB_MAP_REGIONS 64

struct part_kb {
	struct profstore *ps;
	size_t n;          /* entries: profiles, and cost maps without one */
	char warning[300]; /* set when the file was not used; "" else */
};

/* The default file, or NULL where there is no cache directory (CARSH_NO_CACHE=1, no HOME).
 * Free it. */
char *kb_default_path(void);

/* Read path (a missing file is an empty knowledge base); never fails: a file that cannot be
 * used gives an empty one and a warning in kb->warning. */
struct part_kb *kb_open(const char *path);
void kb_free(struct part_kb *kb);

/* Write the file when something changed; 0, or -1 with e set. */
int kb_save(struct part_kb *kb, struct cs_err *e);

/* What is known at k (exactly, or interpolated between sizes): false when nothing is known
 * of that flow-model on that device set. */
bool kb_lookup(const struct part_kb *kb, const struct kb_key *k, struct sched_prior *p);

/* Keep what a run learnt at k: it replaces an entry of the same key (the run started from
 * that entry and refined it). */
void kb_learn(struct part_kb *kb, const struct kb_key *k, const struct sched_prior *p,
              double step_ms);

/* The cost map known at k (interpolated between sizes, region by region), as kb_lookup;
 * kb_learn_map keeps one. */
bool kb_lookup_map(const struct part_kb *kb, const struct kb_key *k, double *map);
void kb_learn_map(struct part_kb *kb, const struct kb_key *k, const double *map);

/* Forget the entries of one flow-model file (NULL: all), cost maps too; returns how many
 * entries. */
size_t kb_forget(struct part_kb *kb, const char *model);

/* One line per entry (a profile; a cost map where there is no profile of its key and size),
 * "" when there is none. */
void kb_print(FILE *f, const struct part_kb *kb);

#endif
