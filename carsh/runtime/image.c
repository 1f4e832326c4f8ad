#include "runtime/image.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/imageformat.h"
#include "util/alloc.h"

static int dev_info(const struct rt_devinfo *dev, cl_device_info what, size_t n, void *out,
                    const char *name, struct cs_err *e)
{
	cl_int err = clGetDeviceInfo(dev->device, what, n, out, NULL);

	if (err != CL_SUCCESS)
		return err_set(e, "device '%s': clGetDeviceInfo(%s) failed: %s", dev->name, name,
		               rt_cl_error_name(err));
	return 0;
}

/* A kernel writes a 3-D image only with cl_khr_3d_image_writes (NVIDIA's driver has it
 * not), so an Output image3d_t needs the extension. */
static int check_size_3d(const struct rt_devinfo *dev, const struct kernel_arg *a, struct cs_err *e)
{
	size_t w = 0, h = 0, d = 0;
	char ext[8192];

	if (dev_info(dev, CL_DEVICE_IMAGE3D_MAX_WIDTH, sizeof(w), &w, "CL_DEVICE_IMAGE3D_MAX_WIDTH",
	             e) ||
	    dev_info(dev, CL_DEVICE_IMAGE3D_MAX_HEIGHT, sizeof(h), &h,
	             "CL_DEVICE_IMAGE3D_MAX_HEIGHT", e) ||
	    dev_info(dev, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof(d), &d, "CL_DEVICE_IMAGE3D_MAX_DEPTH",
	             e))
		return -1;
	if (a->width > w || a->height > h || a->depth > d)
		return err_set(e,
		               "image '%s' is %zu x %zu x %zu pixels; device '%s' takes 3-D images "
		               "of at most %zu x %zu x %zu",
		               a->name, a->width, a->height, a->depth, dev->name, w, h, d);
	if (a->kind == ARG_INPUT)
		return 0;
	if (dev_info(dev, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, "CL_DEVICE_EXTENSIONS", e))
		return -1;
	if (!strstr(ext, "cl_khr_3d_image_writes"))
		return err_set(e,
		               "image '%s': device '%s' cannot write 3-D images (no "
		               "cl_khr_3d_image_writes); write a buffer, or a 2-D image a slice",
		               a->name, dev->name);
	return 0;
}

static int check_size(const struct rt_devinfo *dev, const struct kernel_arg *a, struct cs_err *e)
{
	cl_bool images = CL_FALSE;
	size_t w = 0, h = 0;

	if (dev_info(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images,
	             "CL_DEVICE_IMAGE_SUPPORT", e))
		return -1;
	if (!images)
		return err_set(e, "stream '%s' is an image; device '%s' has no image support",
		               a->name, dev->name);
	if (a->image_dims == 3)
		return check_size_3d(dev, a, e);
	if (dev_info(dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(w), &w, "CL_DEVICE_IMAGE2D_MAX_WIDTH",
	             e) ||
	    dev_info(dev, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(h), &h,
	             "CL_DEVICE_IMAGE2D_MAX_HEIGHT", e))
		return -1;
	if (a->width > w || a->height > h)
		return err_set(e,
		               "image '%s' is %zu x %zu pixels; device '%s' takes 2-D images of "
		               "at most %zu x %zu",
		               a->name, a->width, a->height, dev->name, w, h);
	return 0;
}

/* "R/float RGBA/unorm8 ..." of the formats CarSh can name among those given. */
static void format_list(const cl_image_format *f, cl_uint n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (cl_uint i = 0; i < n && o + 40 < len; i++) {
		char name[32];

		image_format_name(f[i].image_channel_order, f[i].image_channel_data_type, name,
		                  sizeof(name));
		if (strchr(name, '?'))
			continue;
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", name);
	}
}

static int check_format(cl_context ctx, const struct rt_devinfo *dev, const struct kernel_arg *a,
                        struct cs_err *e)
{
	cl_mem_object_type kind =
	        a->image_dims == 3 ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D;
	cl_uint n = 0;
	cl_image_format *f;
	cl_int err = clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, kind, 0, NULL, &n);
	char want[32], list[1024];

	if (err == CL_SUCCESS && n > 0) {
		f = xcalloc(n, sizeof(*f));
		err = clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, kind, n, f, NULL);
		for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++)
			if (f[i].image_channel_order == a->image_order &&
			    f[i].image_channel_data_type == a->image_type) {
				free(f);
				return 0;
			}
		format_list(f, n, list, sizeof(list));
		free(f);
	}
	if (err != CL_SUCCESS)
		return err_set(e, "device '%s': clGetSupportedImageFormats failed: %s", dev->name,
		               rt_cl_error_name(err));
	image_format_name(a->image_order, a->image_type, want, sizeof(want));
	return err_set(e,
	               "image '%s': device '%s' does not support the image format %s "
	               "(channels=\"%.*s\" format=\"%s\"); it supports: %s",
	               a->name, dev->name, want, (int)strcspn(want, "/"), want,
	               strchr(want, '/') + 1, n ? list : "none");
}

int rt_image_check(cl_context ctx, const struct rt_devinfo *dev, const struct kernel_arg *a,
                   struct cs_err *e)
{
	return check_size(dev, a, e) || check_format(ctx, dev, a, e) ? -1 : 0;
}

cl_mem rt_image_create(cl_context ctx, const struct kernel_arg *a, cl_int *err)
{
	cl_image_format fmt = {a->image_order, a->image_type};
	cl_image_desc desc;

	memset(&desc, 0, sizeof(desc));
	desc.image_type = a->image_dims == 3 ? CL_MEM_OBJECT_IMAGE3D : CL_MEM_OBJECT_IMAGE2D;
	desc.image_width = a->width;
	desc.image_height = a->height;
	desc.image_depth = a->image_dims == 3 ? a->depth : 0;
	return clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, err);
}

/* The whole image: a 2-D one is one slice deep. */
static void image_region(const struct kernel_arg *a, size_t region[3])
{
	region[0] = a->width;
	region[1] = a->height;
	region[2] = a->image_dims == 3 ? a->depth : 1;
}

cl_int rt_image_write(cl_command_queue q, cl_mem m, const struct kernel_arg *a, bool blocking,
                      const void *host, cl_event *ev)
{
	size_t origin[3] = {0, 0, 0}, region[3];

	image_region(a, region);

	return clEnqueueWriteImage(q, m, blocking ? CL_TRUE : CL_FALSE, origin, region, 0, 0, host,
	                           0, NULL, ev);
}

cl_int rt_image_read(cl_command_queue q, cl_mem m, const struct kernel_arg *a, void *host,
                     cl_event *ev)
{
	size_t origin[3] = {0, 0, 0}, region[3];

	image_region(a, region);

	return clEnqueueReadImage(q, m, CL_FALSE, origin, region, 0, 0, host, 0, NULL, ev);
}

cl_int rt_image_from_buffer(cl_command_queue q, cl_mem buf, cl_mem img, const struct kernel_arg *a,
                            cl_event *ev)
{
	size_t origin[3] = {0, 0, 0}, region[3];

	image_region(a, region);

	return clEnqueueCopyBufferToImage(q, buf, img, 0, origin, region, 0, NULL, ev);
}

cl_int rt_image_to_buffer(cl_command_queue q, cl_mem img, cl_mem buf, const struct kernel_arg *a,
                          cl_event *ev)
{
	size_t origin[3] = {0, 0, 0}, region[3];

	image_region(a, region);

	return clEnqueueCopyImageToBuffer(q, img, buf, origin, region, 0, 0, NULL, ev);
}

cl_sampler rt_sampler_create(cl_context ctx, const struct kernel_arg *a, cl_int *err)
{
	return clCreateSampler(ctx, a->sampler_normalized ? CL_TRUE : CL_FALSE,
	                       (cl_addressing_mode)a->sampler_address,
	                       (cl_filter_mode)a->sampler_filter, err);
}
