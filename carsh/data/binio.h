/*
 * Binary streams: raw (the stream's scalars, little-endian, nothing else) and numpy's .npy
 * (a header, then the same bytes). A regular file is mapped; its data can be used in place
 * (binio_map) where the caller can keep the mapping, else copied over the cores.
 */
#ifndef CARSH_DATA_BINIO_H
#define CARSH_DATA_BINIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data/types.h"
#include "util/error.h"

enum bin_kind { BIN_RAW, BIN_NPY };

/* A file's data in place: data points at n scalars inside the mapping [base, base + len),
 * which is private (writes stay in memory) and ends with binio_unmap(). */
struct bin_map {
	void *base;
	size_t len;
	void *data;
};

/* Read exactly n scalars of kind s into dst from path, or from `in` (name in messages) when
 * path is NULL. Errors: "x.raw: 1000 bytes, expected 4096 (1024 float values)", "x.npy:
 * dtype '<f8' (double) does not match the stream's float ('<f4')", "<stdin>: 1000 bytes of
 * data, expected 4096 (1024 float values): a short read". */
int binio_read(const char *path, FILE *in, const char *name, enum bin_kind k, enum scalar s,
               void *dst, size_t n, struct cs_err *e);

/* Map a regular file's data when it holds exactly n scalars of kind s: 1 with m set, 0 when
 * path is not a regular file (read it with binio_read), -1 with the error binio_read gives. */
int binio_map(const char *path, enum bin_kind k, enum scalar s, size_t n, struct bin_map *m,
              struct cs_err *e);
void binio_unmap(struct bin_map *m);

/* A regular file whose data is checked to hold exactly n scalars of kind s, open to be
 * read (binio_read_into), for a copy into memory that is not mapped from the file. */
struct bin_file {
	int fd;
	size_t offset, bytes;
	char *path;
};

/* 1 with bf open, 0 when path is not a regular file, -1 with the error binio_read gives. */
int binio_open(const char *path, enum bin_kind k, enum scalar s, size_t n, struct bin_file *bf,
               struct cs_err *e);
/* The data into dst (bf->bytes) over the cores: the copy out of the page cache and the
 * taking of dst's pages where they are new go over the cores together, with no mapping of
 * the file. -1 when a read failed or the file ended early: dst may then hold part of it. */
int binio_read_into(const struct bin_file *bf, void *dst, struct cs_err *e);
void binio_close(struct bin_file *bf);

/* How many scalars of kind s a regular file holds (read from its start, rewound after): a
 * .npy's shape (its dtype checked), a raw file's size over the scalar's. Errors: "x.raw:
 * 1001 bytes are not a whole number of float values (4 bytes each)", the .npy header's. */
int binio_count(FILE *f, const char *name, enum bin_kind k, enum scalar s, size_t *n,
                struct cs_err *e);

/* Write n scalars to path (through a temporary file and a rename, "-" standard output) or
 * to `out` when path is NULL; a .npy is 2-D (n / columns, columns) when columns > 1 divides
 * n, else 1-D. */
int binio_write(const char *path, FILE *out, enum bin_kind k, enum scalar s, const void *src,
                size_t n, size_t columns, struct cs_err *e);

#endif
