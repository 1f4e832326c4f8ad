/*
 * The reference tools' CSV reader (ref, fftref, swapref): every number of a file, whatever
 * separates them (commas, blanks, line ends). Plain stdio, no code of carsh's, so that a bug
 * in carsh's CSV layer cannot cancel itself out. A tool hands in its fail, which prints "TOOL:
 * MSG[: ARG]" and exits; the reader calls it with "cannot read", "out of memory" or "not a
 * number in" and the path.
 */
#ifndef CARSH_TESTS_TOOLS_CSVREAD_H
#define CARSH_TESTS_TOOLS_CSVREAD_H

#include <stddef.h>
#include <stdio.h>

typedef void csv_fail(const char *msg, const char *arg);

/* The numbers of f, named path in messages; *n of them, in a buffer the caller frees. */
double *csv_read_stream(FILE *f, const char *path, size_t *n, csv_fail *fail);
/* The numbers of the file path ("-": stdin). */
double *csv_read(const char *path, size_t *n, csv_fail *fail);
/* Exactly want numbers of the file path: else "PATH has N values, expected WANT". */
double *csv_read_n(const char *path, size_t want, csv_fail *fail);

#endif
