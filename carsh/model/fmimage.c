#include "model/fmimage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/imageformat.h"
#include "util/alloc.h"

bool fm_is_image(xmlNodePtr n)
{
	return xmlHasProp(n, (const xmlChar *)"image") != NULL;
}

/* The pixel: format= and channels= (R by default). */
static int read_pixel(const struct xml_ctx *x, xmlNodePtr n, struct fm_arg *a)
{
	char *format = NULL, *channels = xml_attr(n, "channels");
	unsigned count = 1;
	int rc = xml_attr_req(x, n, "format", &format);

	if (rc == 0 && image_format_parse(format, &a->image_type, &a->type.scalar, x->e))
		rc = xml_err(x, n, "%s", x->e->msg);
	if (rc == 0 &&
	    image_channels_parse(channels ? channels : "R", &a->image_order, &count, x->e))
		rc = xml_err(x, n, "%s", x->e->msg);
	a->type.width = count;
	free(format);
	free(channels);
	return rc;
}

int fm_read_image(const struct xml_ctx *x, xmlNodePtr n, struct fm_arg *a)
{
	char *image = xml_attr(n, "image");
	bool three = strcmp(image, "3d") == 0;
	size_t len;
	int rc = 0;

	if (!three && strcmp(image, "2d") != 0)
		rc = xml_err(x, n,
		             "image='%s': image=\"2d\" (an image2d_t) or image=\"3d\" (an "
		             "image3d_t)",
		             image);
	else if (!three && xmlHasProp(n, (const xmlChar *)"depth"))
		rc = xml_err(x, n, "depth= is for image=\"3d\"");
	else if (a->kind == ARG_INOUT)
		rc = xml_err(x, n,
		             "an image cannot be an InOut: OpenCL 1.2 has no read_write images; "
		             "read one image as an <Input> and write another as an <Output>");
	else if (xmlHasProp(n, (const xmlChar *)"type") || xmlHasProp(n, (const xmlChar *)"count"))
		rc = xml_err(x, n,
		             "an image takes no type= or count=: format= and channels= give its "
		             "pixel, width= and height= its size");
	free(image);
	if (rc != 0 || xml_attr_req(x, n, "width", &a->width) ||
	    xml_attr_req(x, n, "height", &a->height) ||
	    (three && xml_attr_req(x, n, "depth", &a->depth)) || read_pixel(x, n, a))
		return -1;
	a->image_dims = three ? 3 : 2;
	len = strlen(a->width) + strlen(a->height) + (three ? strlen(a->depth) + 3 : 0) + 6;
	a->count = xmalloc(len);
	if (three)
		snprintf(a->count, len, "(%s)*(%s)*(%s)", a->width, a->height, a->depth);
	else
		snprintf(a->count, len, "(%s)*(%s)", a->width, a->height);
	return 0;
}

int fm_read_sampler(const struct xml_ctx *x, xmlNodePtr n, struct fm_arg *a)
{
	static const char *const attrs[] = {"name", "coords", "address", "filter", NULL};
	char *coords = NULL, *address = NULL, *filter = NULL;
	int rc = -1;

	a->kind = ARG_CONSTANT;
	a->is_sampler = true;
	a->type = (struct cs_type){SC_UCHAR, 1};
	a->line = xml_line(n);
	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    xml_attr_req(x, n, "name", &a->name))
		return -1;
	coords = xml_attr(n, "coords");
	address = xml_attr(n, "address");
	filter = xml_attr(n, "filter");
	/* The defaults are what a kernel that reads pixel by pixel with integer coordinates
	 * wants, and the only combination every OpenCL device must support. */
	if (sampler_coords_parse(coords ? coords : "unnormalized", &a->sampler_normalized, x->e) ||
	    sampler_address_parse(address ? address : "clamp_to_edge", &a->sampler_address, x->e) ||
	    sampler_filter_parse(filter ? filter : "nearest", &a->sampler_filter, x->e))
		xml_err(x, n, "%s", x->e->msg);
	else
		rc = 0;
	free(coords);
	free(address);
	free(filter);
	return rc;
}
