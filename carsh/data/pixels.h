/*
 * Rasters converted whole, over the cores: PGM samples (one byte, or two big-endian) to a
 * stream's scalars, and scalars to 8-bit pixels. data/pgm.c reads and writes the files.
 */
#ifndef CARSH_DATA_PIXELS_H
#define CARSH_DATA_PIXELS_H

#include <stddef.h>

#include "data/types.h"

/* The index of the first of n samples of bps bytes (one, or two big-endian) at src that is
 * above limit, or n. */
size_t pixels_first_above(const unsigned char *src, size_t bps, size_t n, long limit);

/* n samples of bps bytes at src as scalars of kind s at dst (each fits: checked first). */
void pixels_from_samples(enum scalar s, const unsigned char *src, size_t bps, size_t n, void *dst);

/* n scalars of kind s as bytes: rounded to the nearest integer (halves away from zero, as
 * round()), clamped to 0..255, NaN as 0. */
void pixels_to_bytes(enum scalar s, const void *src, size_t n, unsigned char *dst);

#endif
