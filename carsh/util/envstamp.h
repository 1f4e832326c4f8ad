/*
 * Whether the process's environment may have changed since a stamp was taken, without
 * reading its strings: setenv, putenv, unsetenv and clearenv each change a pointer of
 * environ's array, its length or the array itself, so a stamp is a copy of that array.
 * What a job's environment and its OpenCL loader's narrowing are worked out from is read
 * at every command otherwise (exec/workerwire.c, runtime/icdnarrow.c): a hundred entries
 * scanned twice over, some 20 us of a batch's first job on the H200 machine. Not seen: a
 * string of environ changed in place, which carsh never does.
 */
#ifndef CARSH_UTIL_ENVSTAMP_H
#define CARSH_UTIL_ENVSTAMP_H

#include <stdbool.h>
#include <stddef.h>

struct env_stamp {
	char **at;   /* environ when taken */
	size_t n;    /* its entries */
	char **copy; /* its pointers */
	size_t cap;
};

#define ENV_STAMP_INIT           \
	{                        \
		NULL, 0, NULL, 0 \
	}

/* Whether environ is as when s was taken (false for a stamp never taken). */
bool envstamp_same(const struct env_stamp *s);

/* s now stamps environ as it is. */
void envstamp_take(struct env_stamp *s);

void envstamp_free(struct env_stamp *s);

#endif
