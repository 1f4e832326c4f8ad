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

struct part_kb {
	struct profstore *ps;
	size_t n;          /* entries */
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

/* Forget the entries of one flow-model file (NULL: all); returns how many. */
size_t kb_forget(struct part_kb *kb, const char *model);

/* One line per entry, "" when there is none. */
void kb_print(FILE *f, const struct part_kb *kb);

#endif
