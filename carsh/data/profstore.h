/*
 * The profile history: what earlier runs measured, kept in one file that the partition
 * engine's knowledge base (engines/partition/kb.h, 001 §3.2) and the per-job device choice
 * (runner/devplace.h, 002 §4-5) and the pipeline engine's corrections (engines/pipeline/pipeknow.h)
 * share. A record is a kind ("partition", "partition-map", "device", "pipeline"),
 * the kind's key fields (text), a work size and the kind's numbers:
 *
 *     carsh-profiles 1
 *     KIND	KEY...	SIZE	VALUE...
 *
 * one record a line, tab-separated; the number of keys and values is fixed per kind (the
 * table in profstore.c), so that a line of a kind this build does not know is kept as it
 * is. A corrupt file, or one of another version, is not used: the history starts empty
 * with a one-line warning and the file is rebuilt at the next save.
 *
 * Several carsh processes write the file: a save takes an flock on FILE.lock, reads the
 * file again, puts this process's changes over what is there and renames a new file into
 * place, so that a partition run and a shell's device choices never undo each other's
 * records. The file lives in $XDG_CACHE_HOME/carsh/ (runtime/cache.h); this layer takes
 * the path.
 */
#ifndef CARSH_DATA_PROFSTORE_H
#define CARSH_DATA_PROFSTORE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

#define PROFSTORE_FILE    "profiles.txt"
#define PROFSTORE_VERSION 1
#define PROF_MAX_KEYS     4
#define PROF_MAX_VALUES   64

struct prof_rec {
	char *kind;
	char *keys[PROF_MAX_KEYS];
	size_t size; /* work-items, >= 1 */
	double v[PROF_MAX_VALUES];
	bool changed; /* put or forgotten here since the last save */
	bool gone;    /* forgotten: dropped at the save */
};

struct profstore {
	char *path;
	struct prof_rec *r;
	size_t n, cap;
	bool rebuild;      /* the file was not used: the save writes ours alone */
	char warning[300]; /* why the file was not used; "" else */
};

/* Keys and values of a kind: -1 for a kind this build does not know. */
int profstore_nkeys(const char *kind);
int profstore_nvalues(const char *kind);

/* Read path (a missing or empty file is an empty history); never fails: a file that
 * cannot be used gives an empty one and a warning. */
struct profstore *profstore_open(const char *path);
void profstore_free(struct profstore *ps);

/* The records of kind with keys nearest to size: *lo the largest at or below, *hi the
 * smallest at or above (the same record when size is known); NULL where there is none.
 * false when neither exists. */
bool profstore_near(const struct profstore *ps, const char *kind, const char *const *keys,
                    size_t size, const struct prof_rec **lo, const struct prof_rec **hi);

/* Put the record (kind, keys, size) with values v, replacing one of the same key and
 * size. Keys holding a tab or a newline, or a size of 0, are not kept. */
void profstore_put(struct profstore *ps, const char *kind, const char *const *keys, size_t size,
                   const double *v);

/* Forget the records of kind whose first key is key0 (NULL: all of kind); how many. */
size_t profstore_forget(struct profstore *ps, const char *kind, const char *key0);

/* Merge this history's changes into the file (see above); 0, or -1 with e set. */
int profstore_save(struct profstore *ps, struct cs_err *e);

/* Linear interpolation of value i at size between lo and hi (profstore_near). */
double profstore_lerp(const struct prof_rec *lo, const struct prof_rec *hi, size_t size, int i);

#endif
