/*
 * Streams of structs as numpy .npy files with a structured dtype: the header's descr lists
 * the struct's leaves in order as numpy's dtype.descr writes an aligned struct, padding as
 * ('', '|Vn') entries, a vector or a fixed array as a subarray ('v', '<i4', (2,)), a nested
 * struct's leaves flattened under their C names ('p[0].lat'); the shape is (count,). What
 * carsh writes, numpy loads (np.load gives the record array); a file numpy saves for a dtype
 * of the same names, formats, offsets and itemsize (np.dtype({'names': ..., 'formats': ...,
 * 'offsets': ..., 'itemsize': ...})) has the same descr and is read.
 */
#ifndef CARSH_DATA_RECNPY_H
#define CARSH_DATA_RECNPY_H

#include <stddef.h>
#include <stdio.h>

#include "data/record.h"
#include "util/error.h"

/* The descr of r, as numpy writes it: "[('starting', '<i4'), ('no_of_edges', '<i4')]"
 * (owned by the caller). */
char *recnpy_descr(const struct cs_record *r);

/* The whole header for n records (a multiple of 64 bytes; *len its length), owned. */
char *recnpy_header(const struct cs_record *r, size_t n, size_t *len);

/* Read a header from f: the number of records its shape holds. Errors: "x.npy: dtype
 * [('a', '<i4')] is not struct Node's [('starting', '<i4'), ('no_of_edges', '<i4')]",
 * "x.npy: shape (2, 3) is not one-dimensional: a stream of structs is (count,)". */
int recnpy_read_header(FILE *f, const char *name, const struct cs_record *r, size_t *n,
                       struct cs_err *e);

#endif
