/* Pinned staging for transfers to and from a device (exec/staging.h). */
#include "exec/staging.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/feeder.h"
#include "util/alloc.h"
#include "util/parcopy.h"

/* A piece: large enough that a transfer's fixed cost is small beside it, small enough that
 * two of them overlap well over a 64 MiB buffer. */
#define PIECE ((size_t)8 << 20)
/* Below this a buffer goes directly: two pieces' set-up would cost more than it saves. */
#define STAGE_MIN ((size_t)4 << 20)
#define DEVS_MAX  16

struct area {
	struct rt_dev *dev;
	cl_mem mem[2];
	void *ptr[2];
	bool failed; /* could not be made: this device transfers directly */
};

struct staging {
	struct area areas[DEVS_MAX];
	size_t n;
};

struct staging *staging_new(void)
{
	return xcalloc(1, sizeof(struct staging));
}

static void area_release(struct area *a)
{
	for (int i = 0; i < 2; i++) {
		if (a->ptr[i])
			(void)clEnqueueUnmapMemObject(rt_dev_queue(a->dev), a->mem[i], a->ptr[i], 0,
			                              NULL, NULL);
		if (a->mem[i])
			(void)clReleaseMemObject(a->mem[i]);
		a->mem[i] = NULL;
		a->ptr[i] = NULL;
	}
}

void staging_free(struct staging *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (!s->areas[i].failed) {
			area_release(&s->areas[i]);
			(void)clFinish(s->areas[i].dev->q);
		}
	free(s);
}

static bool wanted(const struct rt_dev *dev, size_t bytes)
{
	const char *knob = getenv("CARSH_STAGED");

	if (bytes < STAGE_MIN || (knob && strcmp(knob, "0") == 0))
		return false;
	return !(dev->info->type & CL_DEVICE_TYPE_CPU) || (knob && strcmp(knob, "1") == 0);
}

/* Two pinned pieces in dev's context, mapped for the host; a device that cannot is marked and
 * transfers directly from then on. */
static struct area *area_of(struct staging *s, struct rt_dev *dev)
{
	struct area *a;
	cl_int err = CL_SUCCESS;

	for (size_t i = 0; i < s->n; i++)
		if (s->areas[i].dev == dev)
			return s->areas[i].failed ? NULL : &s->areas[i];
	if (s->n == DEVS_MAX)
		return NULL;
	a = &s->areas[s->n++];
	a->dev = dev;
	for (int i = 0; i < 2 && err == CL_SUCCESS; i++) {
		a->mem[i] = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
		                           PIECE, NULL, &err);
		if (err == CL_SUCCESS)
			a->ptr[i] = clEnqueueMapBuffer(rt_dev_queue(dev), a->mem[i], CL_TRUE,
			                               CL_MAP_READ | CL_MAP_WRITE, 0, PIECE, 0,
			                               NULL, NULL, &err);
	}
	if (err == CL_SUCCESS)
		return a;
	area_release(a);
	a->failed = true;
	return NULL;
}

/* Wait for *ev (if any) and release it: 0, or the OpenCL error. */
static cl_int settle(cl_event *ev)
{
	cl_int err = CL_SUCCESS;

	if (*ev) {
		err = clWaitForEvents(1, ev);
		(void)clReleaseEvent(*ev);
		*ev = NULL;
	}
	return err;
}

int staging_write(struct staging *s, struct rt_dev *dev, cl_mem dst, const void *src, size_t bytes,
                  struct cs_err *e)
{
	struct area *a = wanted(dev, bytes) ? area_of(s, dev) : NULL;
	cl_command_queue q;
	cl_event ev[2] = {NULL, NULL};
	cl_int err = CL_SUCCESS;

	if (!a)
		return 0;
	q = rt_dev_queue(dev);
	for (size_t off = 0, k = 0; off < bytes && err == CL_SUCCESS; off += PIECE, k ^= 1) {
		size_t len = bytes - off < PIECE ? bytes - off : PIECE;

		/* The piece's area is free once its last transfer ended. */
		err = settle(&ev[k]);
		if (err != CL_SUCCESS)
			break;
		par_memcpy(a->ptr[k], (const char *)src + off, len, 0);
		err = clEnqueueWriteBuffer(q, dst, CL_FALSE, off, len, a->ptr[k], 0, NULL, &ev[k]);
	}
	for (int k = 0; k < 2; k++) {
		cl_int end = settle(&ev[k]);

		if (err == CL_SUCCESS)
			err = end;
	}
	if (err != CL_SUCCESS)
		return err_set(e, "copying a virtual buffer to '%s': %s", dev->info->name,
		               rt_cl_error_name(err));
	return 1;
}

int staging_read(struct staging *s, struct rt_dev *dev, cl_mem src, cl_event wait, void *dst,
                 size_t bytes, struct cs_err *e)
{
	struct area *a = wanted(dev, bytes) ? area_of(s, dev) : NULL;
	size_t pieces = (bytes + PIECE - 1) / PIECE;
	cl_event ev[2] = {NULL, NULL};
	cl_command_queue q;
	cl_int err = CL_SUCCESS;

	if (!a)
		return 0;
	q = rt_dev_queue(dev);
	/* Two pieces in flight: the host copies one out while the device fills the other. */
	for (size_t i = 0; i < pieces && i < 2 && err == CL_SUCCESS; i++) {
		size_t off = i * PIECE, len = bytes - off < PIECE ? bytes - off : PIECE;

		err = clEnqueueReadBuffer(q, src, CL_FALSE, off, len, a->ptr[i], wait ? 1 : 0,
		                          wait ? &wait : NULL, &ev[i]);
	}
	for (size_t i = 0; i < pieces && err == CL_SUCCESS; i++) {
		size_t k = i % 2, off = i * PIECE, len = bytes - off < PIECE ? bytes - off : PIECE;
		size_t next = i + 2, noff = next * PIECE;

		err = settle(&ev[k]);
		if (err != CL_SUCCESS)
			break;
		par_memcpy((char *)dst + off, a->ptr[k], len, 0);
		if (next < pieces)
			err = clEnqueueReadBuffer(q, src, CL_FALSE, noff,
			                          bytes - noff < PIECE ? bytes - noff : PIECE,
			                          a->ptr[k], 0, NULL, &ev[k]);
	}
	for (int k = 0; k < 2; k++)
		(void)settle(&ev[k]);
	if (err != CL_SUCCESS)
		return err_set(e, "reading a virtual buffer back from '%s': %s", dev->info->name,
		               rt_cl_error_name(err));
	return 1;
}
