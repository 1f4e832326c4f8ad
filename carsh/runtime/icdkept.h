/*
 * The last narrowing of each device type (runtime/icdtypes.h), kept while what it was worked
 * out from is unchanged. A job's environment is worked out afresh for every command
 * (exec/workers.c), and reading the cache of types and the ICD files each time was most of a
 * command's first job on a GPU: some 70 us of a batch's 0.5 ms on the H200 machine. What a
 * narrowing read is checked instead, in a few stat calls: the variables it read, the sources
 * it found (the ICD files the directory lists and the libraries OCL_ICD_FILENAMES names), the
 * ICD files' and their libraries' stamps (device, inode, size, modification and change
 * times), and the narrowed directory it gave. Any change there, and it is worked out again.
 * A narrowing found unchanged so is watched from then on (util/filewatch.h, as the parsed
 * files are): while the kernel reports no change to a watched file, not even the stat calls
 * are made. Not seen: a library that OCL_ICD_FILENAMES names by a bare name appearing in a
 * directory searched before the one it was found in (the cache of types has the same blind
 * spot).
 */
#ifndef CARSH_RUNTIME_ICDKEPT_H
#define CARSH_RUNTIME_ICDKEPT_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/icdtypes-int.h"
#include "util/strvec.h"

/* What one narrowing read: key, the variables it read joined; dir, the vendors directory;
 * srcs[0..nsrc), the sources in the order found, of which the first nicd are ICD files;
 * libs, what each resolved to ("-": none), or NULL where the sources' types were not looked
 * up. */
struct icd_read {
	const char *key, *dir;
	char *const *srcs;
	size_t nsrc, nicd;
	char (*libs)[ICD_LIB_MAX];
};

/* The narrowing kept for type with this key, where it is watched and no watched file changed
 * since it was last found unchanged: true, its answer in *narrowed and its entries added to
 * env. */
bool icd_kept_watched(cl_device_type type, const char *key, bool *narrowed, struct strvec *env);

/* The narrowing kept for type whose key and sources are r's (r->libs is not read), if what
 * it read is unchanged: true, its answer in *narrowed and its entries added to env. */
bool icd_kept_find(cl_device_type type, const struct icd_read *r, bool *narrowed,
                   struct strvec *env);

/* Keeps a narrowing: what it read (r) and its answer (narrowed, and env's entries). */
void icd_kept_store(cl_device_type type, const struct icd_read *r, bool narrowed,
                    const struct strvec *env);

#endif
