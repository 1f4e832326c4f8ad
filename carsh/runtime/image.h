/*
 * Image streams and samplers on the device (docs/formats.md, "Images"): an image2d_t or
 * image3d_t is made with clCreateImage and a cl_image_desc (OpenCL 1.2, which NVIDIA's driver
 * and PoCL both have), moved with clEnqueueWriteImage / clEnqueueReadImage, and bound with
 * clSetKernelArg like a buffer. A sampler_t argument is made with clCreateSampler (1.2's
 * call: 2.0's clCreateSamplerWithProperties is missing from NVIDIA's 1.2 platforms).
 */
#ifndef CARSH_RUNTIME_IMAGE_H
#define CARSH_RUNTIME_IMAGE_H

#include "runtime/runtime.h"

/* The device takes the image: image support, its size within the device's
 * limits, its format among clGetSupportedImageFormats's. Errors name the stream, the size
 * or the format, and what the device offers. */
int rt_image_check(cl_context ctx, const struct rt_devinfo *dev, const struct kernel_arg *a,
                   struct cs_err *e);
/* A read-write image of the argument's size and format (read-write memory, so that a swap
 * pair's images may change places; the kernel's read_only / write_only is its own). */
cl_mem rt_image_create(cl_context ctx, const struct kernel_arg *a, cl_int *err);
/* The whole image from host (a->bytes, rows packed) or back into it. */
cl_int rt_image_write(cl_command_queue q, cl_mem m, const struct kernel_arg *a, bool blocking,
                      const void *host, cl_event *ev);
cl_int rt_image_read(cl_command_queue q, cl_mem m, const struct kernel_arg *a, void *host,
                     cl_event *ev);
/* A virtual buffer's device copy into the image, or the image back into it. */
cl_int rt_image_from_buffer(cl_command_queue q, cl_mem buf, cl_mem img, const struct kernel_arg *a,
                            cl_event *ev);
cl_int rt_image_to_buffer(cl_command_queue q, cl_mem img, cl_mem buf, const struct kernel_arg *a,
                          cl_event *ev);
cl_sampler rt_sampler_create(cl_context ctx, const struct kernel_arg *a, cl_int *err);

#endif
