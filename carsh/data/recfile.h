/*
 * Streams of structs in data files: CSV, one record a line (data/reccsv.h); .npy with a
 * structured dtype (data/recnpy.h); or raw, the records' bytes as the device lays them out,
 * padding included (what a C program with the same struct writes with fwrite). A PGM file
 * is refused: "nodes.pgm: a stream of struct Node is read and written as CSV, .npy or raw
 * (.raw, .bin), not as .pgm".
 */
#ifndef CARSH_DATA_RECFILE_H
#define CARSH_DATA_RECFILE_H

#include <stddef.h>
#include <stdio.h>

#include "data/binio.h"
#include "data/record.h"
#include "util/error.h"

/* Whether path names a format that holds records: 0, or -1 with the error above. */
int recfile_format(const char *path, const struct cs_record *r, struct cs_err *e);

/* Read exactly n records into dst; standard input is `in` (stdin when NULL). */
int recfile_read(const char *path, FILE *in, const struct cs_record *r, void *dst, size_t n,
                 struct cs_err *e);

/* A regular raw file's records in place (datafile_map): 1 mapped, 0 when it must be read
 * (CSV, standard input, not a regular file), -1 on an error in the file. */
int recfile_map(const char *path, const struct cs_record *r, size_t n, struct bin_map *m,
                struct cs_err *e);

/* How many records the data holds, as datafile_count counts scalars: 0 counted, 1 not
 * counted (not a regular file), -1 with the reader's error. `in` must be a regular file. */
int recfile_count(const char *path, FILE *in, const struct cs_record *r, size_t *n,
                  struct cs_err *e);

/* Write n records to path (through a temporary file and a rename; "-" is `out`, stdout
 * when NULL). */
int recfile_write(const char *path, FILE *out, const struct cs_record *r, const void *src, size_t n,
                  struct cs_err *e);

#endif
