/*
 * numpy's .npy header (format versions 1.0, 2.0 and 3.0): the magic, the version, and a
 * Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded so
 * that the data starts at a multiple of 64 bytes. Only this header is parsed here; the data
 * that follows is the stream's scalars, little-endian (data/binio.c).
 */
#ifndef CARSH_DATA_NPY_H
#define CARSH_DATA_NPY_H

#include <stdbool.h>
#include <stddef.h>

#include "data/types.h"
#include "util/error.h"

#define NPY_MAGIC_LEN 6
/* The fixed part: magic, version, and the 2- or 4-byte header length. */
#define NPY_PRELUDE_MAX 12
/* Longer dicts are refused: numpy writes a few dozen bytes plus the shape. */
#define NPY_DICT_MAX 65536
#define NPY_DIMS_MAX 32

struct npy_header {
	char descr[16]; /* "<f4" */
	bool fortran_order;
	int ndim;
	size_t shape[NPY_DIMS_MAX];
	size_t count;       /* the product of the shape; 1 for shape () */
	size_t data_offset; /* bytes before the data */
};

/* From the first bytes of a file: how many bytes the whole header takes (prelude and dict),
 * read from the first `have` bytes (at least NPY_PRELUDE_MAX, or the whole file if shorter).
 * Errors: "not a .npy file (no \x93NUMPY magic)", "unsupported .npy version 4.0". */
int npy_header_size(const unsigned char *p, size_t have, size_t *size, struct cs_err *e);

/* Parse a whole header (size bytes from npy_header_size()). Errors: "bad .npy header:
 * expected ':' at byte 17". */
int npy_parse(const unsigned char *p, size_t size, struct npy_header *h, struct cs_err *e);

/* The header holds n scalars of kind s, C order, little-endian. Errors: "dtype '<f8'
 * (double) does not match the stream's float", "shape (3, 4) holds 12 values, expected 16",
 * "dtype '>f4' is big-endian: ...", "fortran_order arrays are not read: ...". */
int npy_check(const struct npy_header *h, enum scalar s, size_t n, struct cs_err *e);

/* The header for n scalars of kind s: shape (n / columns, columns) when columns > 1 divides
 * n, else (n,). Returns its length (a multiple of 64); out holds NPY_WRITE_MAX bytes. */
#define NPY_WRITE_MAX 192
size_t npy_header_make(enum scalar s, size_t n, size_t columns, char *out);

/* numpy's name of scalar kind s ("<f4", "|u1"). */
const char *npy_descr(enum scalar s);

#endif
