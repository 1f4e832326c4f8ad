/*
 * Data files by format: CSV (the default), PGM (.pgm), numpy (.npy) and raw little-endian
 * binary (.raw, .bin), chosen by the file name's extension; standard input or output is "-"
 * (CSV) or "-:FORMAT" ("-:npy", "-:raw", "-:pgm", "-:csv").
 */
#ifndef CARSH_DATA_DATAFILE_H
#define CARSH_DATA_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data/binio.h"
#include "data/types.h"
#include "util/error.h"

enum data_format { DF_CSV, DF_PGM, DF_NPY, DF_RAW };

/* The format of path. Error: "'-:xyz': unknown format 'xyz' (formats: csv npy raw pgm)". */
int datafile_format(const char *path, enum data_format *f, struct cs_err *e);

/* Read exactly n scalars of kind s into dst; standard input is `in` (stdin when NULL). */
int datafile_read(const char *path, FILE *in, enum scalar s, void *dst, size_t n, struct cs_err *e);

/* How many scalars of kind s the data holds: CSV values (the whole input parsed), a .npy's
 * shape, a raw file's size over the scalar's. Standard input is `in`, which must be a regular
 * file (a copy of the input: runner/datalen.c) and is rewound after. 0 counted, 1 for data
 * not counted (PGM; a path that is not a regular file, which a count would leave empty for
 * the job), -1 with the reader's error (a bad value's file:line:field). */
int datafile_count(const char *path, FILE *in, enum scalar s, size_t *n, struct cs_err *e);
/* path opened to be counted: 0 with *f, 1 when it is not a regular file (a pipe or a device
 * read here would be empty for the job: not counted), -1 with e. */
int datafile_open_counted(const char *path, FILE **f, struct cs_err *e);

/* The same, and a CSV's values are kept: *values (free() it) holds the n scalars parsed, so
 * that a caller who counts need not parse again; NULL for the other formats (and on errors). */
int datafile_count_values(const char *path, FILE *in, enum scalar s, size_t *n, void **values,
                          struct cs_err *e);

/* A regular .npy or raw file's data in place (binio_map): 1 mapped, 0 when it must be read
 * (another format, standard input, not a regular file), -1 on an error in the file. */
int datafile_map(const char *path, enum scalar s, size_t n, struct bin_map *m, struct cs_err *e);
/* The same checks, the file open to be read into memory of the caller's (binio_read_into):
 * 1 open, 0 when it must be read otherwise, -1 on an error in the file. */
int datafile_open(const char *path, enum scalar s, size_t n, struct bin_file *bf, struct cs_err *e);

/* Write n scalars, `columns` per row (CSV), as the image width (PGM, which needs it) or as a
 * .npy's second dimension; standard output is `out` (stdout when NULL). */
int datafile_write(const char *path, FILE *out, enum scalar s, const void *src, size_t n,
                   size_t columns, struct cs_err *e);

#endif
