/*
 * A scratch directory for the unit tests that read and write files (test_csv.c,
 * test_pgm.c): made fresh for each test by the fixture, removed with what the test left in
 * it, and the small file helpers they share.
 */
#ifndef CARSH_TESTS_SCRATCH_H
#define CARSH_TESTS_SCRATCH_H

#include <stddef.h>

/* The directory's path while a test runs. */
extern char scratch[64];

/* The checked fixture: tcase_add_checked_fixture(tc, scratch_create, scratch_remove). */
void scratch_create(void);
void scratch_remove(void);

/* scratch/name, in one of a few rotating buffers (a call may hold up to four). */
const char *at(const char *name);

/* Write len bytes of data to path (a test fails when it cannot). */
void write_bytes(const char *path, const void *data, size_t len);

/* The entries of dir, less "." and "..". */
int entries_in(const char *dir);

#endif
