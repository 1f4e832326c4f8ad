/*
 * Image streams and samplers (docs/formats.md, "Images"): the names a flow-model gives to
 * OpenCL's channel orders, channel types, addressing and filter modes, and the host element
 * type each image's pixels are read and written as. A pixel of `channels` channels is one
 * element of that many components, so every data file format serves images unchanged.
 */
#ifndef CARSH_RUNTIME_IMAGEFORMAT_H
#define CARSH_RUNTIME_IMAGEFORMAT_H

#include <stdbool.h>
#include <stddef.h>

#include "data/types.h"
#include "util/error.h"

/* format="unorm8" -> CL_UNORM_INT8, pixels' components as uchar. Error: "unknown image
 * format 'x' (formats: float unorm8 ...)". */
int image_format_parse(const char *name, unsigned *cl_type, enum scalar *scalar, struct cs_err *e);
/* channels="RGBA" -> CL_RGBA and 4. Error: "unknown channels 'x' (channels: R RG RGBA
 * BGRA)". */
int image_channels_parse(const char *name, unsigned *cl_order, unsigned *count, struct cs_err *e);
/* "R/unorm8" for messages; buf of at least 32 bytes. */
const char *image_format_name(unsigned cl_order, unsigned cl_type, char *buf, size_t n);

/* <Sampler coords="normalized|unnormalized" address="clamp_to_edge|clamp|repeat|
 * mirrored_repeat|none" filter="nearest|linear">. Errors list the accepted words. */
int sampler_address_parse(const char *name, unsigned *cl_address, struct cs_err *e);
int sampler_filter_parse(const char *name, unsigned *cl_filter, struct cs_err *e);
int sampler_coords_parse(const char *name, bool *normalized, struct cs_err *e);

#endif
