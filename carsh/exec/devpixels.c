/* Pictures converted on a device (exec/devpixels.h). */
#include "exec/devpixels.h"

#include <stdlib.h>

#include "runtime/feeder.h"
#include "runtime/runtime.h"
#include "util/alloc.h"

/* One kernel a kind; narrow_float is data/pixels.c's float_byte_bits() on each element:
 * the bits as an unsigned number clamp a non-negative float at 255.0f, truncation and the
 * fraction's bits round halves up, a sign bit or a NaN (bits above +inf's) gives 0. Only
 * integer operations and exact float ones, so a device that flushes denormals to zero
 * gives the same bytes. */
static const char source[] =
        "#define WIDEN(T) __kernel void widen_##T(__global const uchar *s, __global T *d)"
        " { size_t i = get_global_id(0); d[i] = (T)s[i]; }\n"
        "WIDEN(char) WIDEN(uchar) WIDEN(short) WIDEN(ushort) WIDEN(int) WIDEN(uint)"
        " WIDEN(long) WIDEN(ulong) WIDEN(float)\n"
        "__kernel void narrow_float(__global const float *x, __global uchar *o)\n"
        "{\n"
        "	size_t i = get_global_id(0);\n"
        "	uint u = as_uint(x[i]);\n"
        "	float v = as_float(u > 0x437f0000u ? 0x437f0000u : u);\n"
        "	int r = (int)v;\n"
        "	int fb = as_int(v - (float)r);\n"
        "	o[i] = (uchar)((r + (fb >= 0x3f000000 ? 1 : 0)) & (u <= 0x7f800000u ? 0xff : 0));\n"
        "}\n";

static const char *const kernel_names[] = {
        [SC_CHAR] = "widen_char",     [SC_UCHAR] = "widen_uchar", [SC_SHORT] = "widen_short",
        [SC_USHORT] = "widen_ushort", [SC_INT] = "widen_int",     [SC_UINT] = "widen_uint",
        [SC_LONG] = "widen_long",     [SC_ULONG] = "widen_ulong", [SC_FLOAT] = "widen_float",
};

/* A device's program, built on first need. */
struct devprog {
	cl_context ctx;
	cl_device_id dev;
	cl_program prog;
	struct devprog *next;
};

struct devpixels {
	struct devprog *progs;
};

struct devpixels *devpixels_new(void)
{
	return xcalloc(1, sizeof(struct devpixels));
}

void devpixels_free(struct devpixels *p)
{
	if (!p)
		return;
	while (p->progs) {
		struct devprog *d = p->progs;

		p->progs = d->next;
		(void)clReleaseProgram(d->prog);
		(void)clReleaseContext(d->ctx);
		free(d);
	}
	free(p);
}

bool devpixels_widens(enum scalar s)
{
	return s < SC_DOUBLE;
}

/* Built as a flow-model's program is (runtime/program.h): under the build lock, which PoCL's
 * own cache needs across processes, and through the binary cache, so that a thread
 * executor's fresh process loads the binary instead of compiling the source again. */
static int build(struct rt_dev *dev, cl_program *out, struct cs_err *e)
{
	struct kernel_plan kp = {0};
	bool hit;

	kp.label = "carsh";
	kp.source = (char *)source;
	kp.source_name = "the picture kernels";
	kp.build_options = "";
	return rt_program_build(dev->ctx, dev->info, &kp, out, &hit, e);
}

static int built(struct devpixels *p, struct rt_dev *dev, cl_program *out, struct cs_err *e)
{
	struct devprog *d;
	cl_program prog;

	for (d = p->progs; d; d = d->next)
		if (d->ctx == dev->ctx && d->dev == dev->info->device) {
			*out = d->prog;
			return 0;
		}
	if (build(dev, &prog, e))
		return -1;
	/* Kept while the program is: a context made later never takes its address. */
	(void)clRetainContext(dev->ctx);
	d = xcalloc(1, sizeof(*d));
	*d = (struct devprog){dev->ctx, dev->info->device, prog, p->progs};
	p->progs = d;
	*out = prog;
	return 0;
}

/* kernel(a, b) over n items on dev, after wait (when not NULL), queued. */
static int convert(struct devpixels *p, struct rt_dev *dev, const char *kernel, cl_mem a, cl_mem b,
                   size_t n, cl_event wait, struct cs_err *e)
{
	cl_program prog = NULL;
	cl_kernel k;
	cl_int err;

	if (built(p, dev, &prog, e))
		return -1;
	k = clCreateKernel(prog, kernel, &err);
	if (err == CL_SUCCESS) {
		err = clSetKernelArg(k, 0, sizeof(a), &a);
		if (err == CL_SUCCESS)
			err = clSetKernelArg(k, 1, sizeof(b), &b);
		if (err == CL_SUCCESS)
			err = clEnqueueNDRangeKernel(rt_dev_queue(dev), k, 1, NULL, &n, NULL,
			                             wait ? 1 : 0, wait ? &wait : NULL, NULL);
		(void)clReleaseKernel(k);
	}
	if (err != CL_SUCCESS)
		return err_set(e, "%s on '%s': %s", kernel, dev->info->name, rt_cl_error_name(err));
	return 0;
}

int devpixels_widen(struct devpixels *p, struct rt_dev *dev, cl_mem pixels, size_t n, enum scalar s,
                    cl_mem dst, struct cs_err *e)
{
	if (!devpixels_widens(s))
		return err_set(e, "no picture kernel widens to %s", scalar_name(s));
	return convert(p, dev, kernel_names[s], pixels, dst, n, NULL, e);
}

int devpixels_narrow(struct devpixels *p, struct rt_dev *dev, cl_mem src, cl_event wait, size_t n,
                     cl_mem pixels, struct cs_err *e)
{
	return convert(p, dev, "narrow_float", src, pixels, n, wait, e);
}
