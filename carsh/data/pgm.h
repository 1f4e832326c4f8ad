/*
 * PGM images (netpbm: P2 plain and P5 raw, maxval up to 65535) as streams of numbers, one
 * value per pixel, row-major: how CarSh reads a picture into a virtual buffer or a stream and
 * writes one back for a person to look at.
 */
#ifndef CARSH_DATA_PGM_H
#define CARSH_DATA_PGM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data/types.h"
#include "util/error.h"

/* True when the file name ends in ".pgm" (any case). */
bool pgm_path(const char *path);

/* Read exactly n pixels into dst as scalars of kind s ("-" is standard input). Errors:
 * "lena.pgm: 512x512 = 262144 pixels, expected 65536", "x.pgm: not a PGM image (magic
 * 'P6'; expected P2 or P5)", truncated data, values above maxval; *width and *height are
 * set when not NULL. dst is written only when the whole image is good, so it may be the
 * data's final place. */
int pgm_read(const char *path, enum scalar s, void *dst, size_t n, size_t *width, size_t *height,
             struct cs_err *e);

/* An 8-bit P5 file's n samples as they are (checked as pgm_read checks them for kind s),
 * copied into the n bytes dst(arg, e) gives once the whole raster is good: 0. 1 when the file
 * is a P2 or 16-bit image (read it with pgm_read), -1 with e as pgm_read's. */
int pgm_read_samples(const char *path, enum scalar s, size_t n,
                     unsigned char *(*dst)(void *arg, struct cs_err *e), void *arg,
                     struct cs_err *e);

/* The width and height a PGM file's header gives, reading nothing more (an image stream's
 * size from its data). Errors as pgm_read's for the header. */
int pgm_size(const char *path, size_t *width, size_t *height, struct cs_err *e);

/* The same from an open stream; name is used in messages. */
int pgm_read_stream(FILE *f, const char *name, enum scalar s, void *dst, size_t n, size_t *width,
                    size_t *height, struct cs_err *e);

/* Write n values as a P5 image `width` pixels wide with maxval 255; values are rounded to
 * the nearest integer and clamped to 0..255 (NaN as 0). n must be a multiple of width. A
 * regular file is written through a temporary file and a rename, as csvio_write does; "-"
 * is standard output. */
int pgm_write(const char *path, enum scalar s, const void *src, size_t n, size_t width,
              struct cs_err *e);

/* pgm_write of n pixels already narrowed to bytes (as pixels_to_bytes does). */
int pgm_write_pixels(const char *path, const unsigned char *pixels, size_t n, size_t width,
                     struct cs_err *e);

/* The same to an open stream; name is used in messages. */
int pgm_write_stream(FILE *f, const char *name, enum scalar s, const void *src, size_t n,
                     size_t width, struct cs_err *e);

#endif
