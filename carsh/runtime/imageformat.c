#include "runtime/imageformat.h"

#include <stdio.h>
#include <string.h>

#include <CL/cl.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Each channel type with the host scalar that holds one component without loss: a
 * normalized type is stored as its integer, as OpenCL's clEnqueueWriteImage takes it. */
static const struct {
	const char *name;
	unsigned cl;
	enum scalar scalar;
} formats[] = {
        {"float", CL_FLOAT, SC_FLOAT},
        {"unorm8", CL_UNORM_INT8, SC_UCHAR},
        {"unorm16", CL_UNORM_INT16, SC_USHORT},
        {"snorm8", CL_SNORM_INT8, SC_CHAR},
        {"snorm16", CL_SNORM_INT16, SC_SHORT},
        {"uint8", CL_UNSIGNED_INT8, SC_UCHAR},
        {"uint16", CL_UNSIGNED_INT16, SC_USHORT},
        {"uint32", CL_UNSIGNED_INT32, SC_UINT},
        {"int8", CL_SIGNED_INT8, SC_CHAR},
        {"int16", CL_SIGNED_INT16, SC_SHORT},
        {"int32", CL_SIGNED_INT32, SC_INT},
};

/* Orders whose pixel is a vector CarSh has (width 1, 2 or 4). */
static const struct {
	const char *name;
	unsigned cl;
	unsigned count;
} orders[] = {
        {"R", CL_R, 1},
        {"RG", CL_RG, 2},
        {"RGBA", CL_RGBA, 4},
        {"BGRA", CL_BGRA, 4},
};

static const struct {
	const char *name;
	unsigned cl;
} addresses[] =
        {
                {"clamp_to_edge", CL_ADDRESS_CLAMP_TO_EDGE},
                {"clamp", CL_ADDRESS_CLAMP},
                {"repeat", CL_ADDRESS_REPEAT},
                {"mirrored_repeat", CL_ADDRESS_MIRRORED_REPEAT},
                {"none", CL_ADDRESS_NONE},
},
  filters[] = {
          {"nearest", CL_FILTER_NEAREST},
          {"linear", CL_FILTER_LINEAR},
};

int image_format_parse(const char *name, unsigned *cl_type, enum scalar *scalar, struct cs_err *e)
{
	for (size_t i = 0; i < COUNT(formats); i++)
		if (strcmp(name, formats[i].name) == 0) {
			*cl_type = formats[i].cl;
			*scalar = formats[i].scalar;
			return 0;
		}
	return err_set(e,
	               "unknown image format '%s' (formats: float unorm8 unorm16 snorm8 snorm16 "
	               "uint8 uint16 uint32 int8 int16 int32)",
	               name);
}

int image_channels_parse(const char *name, unsigned *cl_order, unsigned *count, struct cs_err *e)
{
	for (size_t i = 0; i < COUNT(orders); i++)
		if (strcmp(name, orders[i].name) == 0) {
			*cl_order = orders[i].cl;
			*count = orders[i].count;
			return 0;
		}
	return err_set(e, "unknown channels '%s' (channels: R RG RGBA BGRA)", name);
}

const char *image_format_name(unsigned cl_order, unsigned cl_type, char *buf, size_t n)
{
	const char *o = "?", *t = "?";

	for (size_t i = 0; i < COUNT(orders); i++)
		if (orders[i].cl == cl_order)
			o = orders[i].name;
	for (size_t i = 0; i < COUNT(formats); i++)
		if (formats[i].cl == cl_type)
			t = formats[i].name;
	snprintf(buf, n, "%s/%s", o, t);
	return buf;
}

int sampler_address_parse(const char *name, unsigned *cl_address, struct cs_err *e)
{
	for (size_t i = 0; i < COUNT(addresses); i++)
		if (strcmp(name, addresses[i].name) == 0) {
			*cl_address = addresses[i].cl;
			return 0;
		}
	return err_set(e,
	               "unknown address '%s' (addresses: clamp_to_edge clamp repeat "
	               "mirrored_repeat none)",
	               name);
}

int sampler_filter_parse(const char *name, unsigned *cl_filter, struct cs_err *e)
{
	for (size_t i = 0; i < COUNT(filters); i++)
		if (strcmp(name, filters[i].name) == 0) {
			*cl_filter = filters[i].cl;
			return 0;
		}
	return err_set(e, "unknown filter '%s' (filters: nearest linear)", name);
}

int sampler_coords_parse(const char *name, bool *normalized, struct cs_err *e)
{
	if (strcmp(name, "normalized") == 0 || strcmp(name, "unnormalized") == 0) {
		*normalized = name[0] == 'n';
		return 0;
	}
	return err_set(e, "unknown coords '%s' (coords: normalized unnormalized)", name);
}
