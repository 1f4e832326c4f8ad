/*
 * Pictures converted on a device (docs/executors.md "What moves when"): a PGM's 8-bit samples
 * widened into a buffer's device copy, and a float buffer's device copy narrowed to 8-bit
 * pixels, by built-in kernels, so that only a quarter of a float picture's bytes cross the
 * bus and no host float copy is made. Both give exactly the host's conversions
 * (data/pixels.h): a byte widened is exact in every kind, and the narrowing is
 * pixels_to_bytes()'s float rounding, written with the same integer operations on the bits.
 */
#ifndef CARSH_EXEC_DEVPIXELS_H
#define CARSH_EXEC_DEVPIXELS_H

#include <stdbool.h>
#include <stddef.h>

#include "data/types.h"
#include "runtime/session.h"

struct devpixels;

struct devpixels *devpixels_new(void);
/* Releases the programs built. */
void devpixels_free(struct devpixels *p);

/* Whether devpixels_widen converts to kind s (every kind but double). */
bool devpixels_widens(enum scalar s);

/* n samples (bytes) of pixels into dst on dev as n scalars of kind s, queued in order. */
int devpixels_widen(struct devpixels *p, struct rt_dev *dev, cl_mem pixels, size_t n, enum scalar s,
                    cl_mem dst, struct cs_err *e);

/* n floats of src on dev (complete once wait has, when not NULL) as n bytes of pixels, queued
 * in order. */
int devpixels_narrow(struct devpixels *p, struct rt_dev *dev, cl_mem src, cl_event wait, size_t n,
                     cl_mem pixels, struct cs_err *e);

#endif
