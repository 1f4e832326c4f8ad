/*
 * Numeric CSV through libcsv. Values are scalars listed row-major; rows may have any length
 * on input. "-" names standard input or output. Errors name the file, the line and the
 * field ("x.csv:3:7: 'abc' is not a number"; field numbers count from 1).
 */
#ifndef CARSH_DATA_CSVIO_H
#define CARSH_DATA_CSVIO_H

#include <stddef.h>
#include <stdio.h>

#include "data/types.h"
#include "util/error.h"

/* Read exactly n scalars of kind s into dst. Too few or too many values is an error that
 * says how many were found and how many were expected. */
int csvio_read(const char *path, enum scalar s, void *dst, size_t n, struct cs_err *e);

/* Read every value; *dst is allocated (free() it), *n set to the number of scalars. */
int csvio_read_all(const char *path, enum scalar s, void **dst, size_t *n, struct cs_err *e);
int csvio_read_all_stream(FILE *f, const char *name, enum scalar s, void **dst, size_t *n,
                          struct cs_err *e);
/* The same for a text that follows lines_before lines of its input (a chunk of a stream):
 * errors name the line counted from the input's start. */
int csvio_read_all_after(FILE *f, const char *name, size_t lines_before, enum scalar s, void **dst,
                         size_t *n, struct cs_err *e);

/* Same from an open stream; name is used in messages. */
int csvio_read_stream(FILE *f, const char *name, enum scalar s, void *dst, size_t n,
                      struct cs_err *e);

/* The same through libcsv alone, without the fast path: the reference the fast path is
 * fuzzed and tested against (same values or same error). */
int csvio_read_general(FILE *f, const char *name, enum scalar s, void *dst, size_t n,
                       struct cs_err *e);

/* Write n scalars, `columns` per row (0 means 1). A regular file is written to a temporary
 * file in the same directory and renamed over the target, so a failure never leaves a
 * half-written file. */
int csvio_write(const char *path, enum scalar s, const void *src, size_t n, size_t columns,
                struct cs_err *e);

/* Same to an open stream (no atomic rename); name is used in messages. */
int csvio_write_stream(FILE *f, const char *name, enum scalar s, const void *src, size_t n,
                       size_t columns, struct cs_err *e);

#endif
