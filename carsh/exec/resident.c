#include "exec/resident.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "data/vbuf.h"
#include "data/vpixels.h"
#include "exec/devpixels.h"
#include "exec/staging.h"
#include "runtime/feeder.h"
#include "util/alloc.h"
#include "util/clock.h"

#define COPIES_MAX 16

struct copy {
	struct rt_dev *dev;
	cl_mem mem;
	bool valid;
	cl_event pending; /* the data in mem is complete once this has completed */
};

struct entry {
	char *shm;
	size_t bytes;
	void *map; /* the master's mapping, made on first need */
	bool host_valid;
	/* The host side's data is the buffer's pixels (data/vpixels.h) widened to kind scalar
	 * (resident_host_pixels): shared memory is widened from them when it is not current. */
	bool pixels;
	enum scalar scalar;
	struct copy copies[COPIES_MAX];
	size_t ncopies;
	struct entry *next;
};

struct resident {
	pthread_mutex_t lock;
	struct entry *head;
	bool guarded;            /* CPU copies in guarded memory (resident_guard_cpu) */
	struct staging *staging; /* pinned pieces for transfers to and from GPUs */
	struct devpixels *px;    /* the picture kernels, built on first need */
};

struct resident *resident_new(void)
{
	struct resident *r = xcalloc(1, sizeof(*r));

	pthread_mutex_init(&r->lock, NULL);
	r->staging = staging_new();
	r->px = devpixels_new();
	return r;
}

void resident_guard_cpu(struct resident *r)
{
	r->guarded = true;
}

struct guarded {
	void *p;
	size_t bytes;
};

/* The memory goes with the last reference to its buffer, whichever copy holds it then
 * (swaps move buffers between copies). */
static void CL_CALLBACK unmap_guarded(cl_mem mem, void *arg)
{
	struct guarded *g = arg;

	(void)mem;
	vbuf_unmap(g->p, g->bytes);
	free(g);
}

/* A CPU device's buffer on memory with an inaccessible page on each side (data/vbuf.h). */
static cl_mem guarded_buffer(struct rt_dev *dev, size_t bytes, cl_int *err, struct cs_err *e)
{
	struct guarded *g = xmalloc(sizeof(*g));
	cl_mem mem;

	g->bytes = bytes;
	g->p = vbuf_guarded_alloc(bytes, e);
	if (!g->p) {
		free(g);
		*err = CL_OUT_OF_HOST_MEMORY;
		return NULL;
	}
	mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, g->p, err);
	if (*err == CL_SUCCESS) {
		*err = clSetMemObjectDestructorCallback(mem, unmap_guarded, g);
		if (*err == CL_SUCCESS)
			return mem;
		(void)clReleaseMemObject(mem);
	}
	vbuf_unmap(g->p, bytes);
	free(g);
	return NULL;
}

static void copy_clear(struct copy *c)
{
	if (c->pending) {
		(void)clWaitForEvents(1, &c->pending);
		(void)clReleaseEvent(c->pending);
	}
	if (c->mem) {
		(void)rt_dev_queue(c->dev); /* the feeder may still name it */
		(void)clReleaseMemObject(c->mem);
	}
	memset(c, 0, sizeof(*c));
}

static void entry_free(struct entry *en)
{
	for (size_t i = 0; i < en->ncopies; i++)
		copy_clear(&en->copies[i]);
	vbuf_unmap(en->map, en->bytes);
	free(en->shm);
	free(en);
}

void resident_forget_all(struct resident *r)
{
	struct entry *head;

	pthread_mutex_lock(&r->lock);
	head = r->head;
	r->head = NULL;
	pthread_mutex_unlock(&r->lock);
	while (head) {
		struct entry *en = head;

		head = en->next;
		entry_free(en);
	}
}

void resident_free(struct resident *r)
{
	if (!r)
		return;
	resident_forget_all(r);
	staging_free(r->staging);
	devpixels_free(r->px);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* A buffer no job has used yet: its shared memory is the only copy, and current. */
static struct entry *entry_of(struct resident *r, const char *shm, size_t bytes)
{
	struct entry *en;

	for (en = r->head; en; en = en->next)
		if (strcmp(en->shm, shm) == 0)
			return en;
	if (!bytes)
		return NULL;
	en = xcalloc(1, sizeof(*en));
	en->shm = xstrdup(shm);
	en->bytes = bytes;
	en->host_valid = true;
	en->next = r->head;
	r->head = en;
	return en;
}

static struct copy *copy_on(struct entry *en, const struct rt_dev *dev)
{
	for (size_t i = 0; i < en->ncopies; i++)
		if (en->copies[i].dev == dev)
			return &en->copies[i];
	return NULL;
}

static int host_map(struct entry *en, struct cs_err *e)
{
	if (!en->map)
		en->map = vbuf_map(en->shm, en->bytes, true, e);
	return en->map ? 0 : -1;
}

/* Bring the data to shared memory from a current device copy. */
static int to_host_locked(struct resident *r, struct entry *en, struct cs_err *e)
{
	struct copy *src = NULL;
	cl_int err;
	int rc;

	if (en->host_valid)
		return 0;
	if (en->pixels) {
		if (vpixels_widen(en->shm, en->scalar, e))
			return -1;
		en->host_valid = true;
		return 0;
	}
	for (size_t i = 0; i < en->ncopies && !src; i++)
		if (en->copies[i].valid)
			src = &en->copies[i];
	if (!src)
		return err_set(e,
		               "virtual buffer %s has no current copy (a job failed while "
		               "writing it)",
		               en->shm);
	if (host_map(en, e))
		return -1;
	rc = staging_read(r->staging, src->dev, src->mem, src->pending, en->map, en->bytes, e);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		en->host_valid = true;
		return 0;
	}
	err = clEnqueueReadBuffer(rt_dev_queue(src->dev), src->mem, CL_TRUE, 0, en->bytes, en->map,
	                          src->pending ? 1 : 0, src->pending ? &src->pending : NULL, NULL);
	if (err != CL_SUCCESS)
		return err_set(e, "reading a virtual buffer back from '%s': %s",
		               src->dev->info->name, rt_cl_error_name(err));
	en->host_valid = true;
	return 0;
}

static int new_copy(struct resident *r, struct entry *en, struct rt_dev *dev, struct copy **out,
                    struct cs_err *e)
{
	struct copy *c;
	cl_int err;

	if (en->ncopies == COPIES_MAX)
		return err_set(e, "a virtual buffer is on more than %d devices", COPIES_MAX);
	c = &en->copies[en->ncopies];
	if (r->guarded && (dev->info->type & CL_DEVICE_TYPE_CPU))
		c->mem = guarded_buffer(dev, en->bytes, &err, e);
	else
		c->mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, en->bytes, NULL, &err);
	if (err != CL_SUCCESS)
		return err_set(e, "a device buffer of %zu bytes on '%s': %s", en->bytes,
		               dev->info->name, rt_cl_error_name(err));
	c->dev = dev;
	en->ncopies++;
	*out = c;
	return 0;
}

static int refresh_copy(struct resident *r, struct entry *en, struct copy *c, double *h2d_ms,
                        struct cs_err *e)
{
	double t0 = clock_ms();
	cl_int err = CL_SUCCESS;
	int rc;

	if (to_host_locked(r, en, e) || host_map(en, e))
		return -1;
	rc = staging_write(r->staging, c->dev, c->mem, en->map, en->bytes, e);
	if (rc < 0)
		return -1;
	if (rc == 0)
		err = clEnqueueWriteBuffer(rt_dev_queue(c->dev), c->mem, CL_TRUE, 0, en->bytes,
		                           en->map, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return err_set(e, "copying a virtual buffer to '%s': %s", c->dev->info->name,
		               rt_cl_error_name(err));
	c->valid = true;
	if (h2d_ms)
		*h2d_ms += clock_ms() - t0;
	return 0;
}

/* n bytes between host memory and a device buffer of pixels, waited for: through the
 * staging areas where they help. */
static int pixels_write(struct resident *r, struct rt_dev *dev, cl_mem mem, const void *src,
                        size_t n, struct cs_err *e)
{
	int rc = staging_write(r->staging, dev, mem, src, n, e);
	cl_int err;

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	err = clEnqueueWriteBuffer(rt_dev_queue(dev), mem, CL_TRUE, 0, n, src, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return err_set(e, "copying a picture to '%s': %s", dev->info->name,
		               rt_cl_error_name(err));
	return 0;
}

static int pixels_read(struct resident *r, struct rt_dev *dev, cl_mem mem, void *dst, size_t n,
                       struct cs_err *e)
{
	int rc = staging_read(r->staging, dev, mem, NULL, dst, n, e);
	cl_int err;

	if (rc != 0)
		return rc < 0 ? -1 : 0;
	err = clEnqueueReadBuffer(rt_dev_queue(dev), mem, CL_TRUE, 0, n, dst, 0, NULL, NULL);
	if (err != CL_SUCCESS)
		return err_set(e, "reading a picture back from '%s': %s", dev->info->name,
		               rt_cl_error_name(err));
	return 0;
}

/* A device buffer of n bytes of pixels on dev, or NULL with e. */
static cl_mem pixels_buffer(struct rt_dev *dev, size_t n, struct cs_err *e)
{
	cl_int err;
	cl_mem m = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, n, NULL, &err);

	if (err != CL_SUCCESS) {
		err_set(e, "a device buffer of %zu bytes on '%s': %s", n, dev->info->name,
		        rt_cl_error_name(err));
		return NULL;
	}
	return m;
}

/* c made current from the buffer's pixels; its shared memory is stale. */
static int widen_copy(struct resident *r, struct entry *en, struct copy *c, enum scalar s,
                      double *h2d_ms, struct cs_err *e)
{
	size_t n = en->bytes / scalar_size(s);
	double t0 = clock_ms();
	unsigned char *px = vpixels_map(en->shm, n, false, false, e);
	cl_mem mem = px ? pixels_buffer(c->dev, n, e) : NULL;
	int rc = mem ? pixels_write(r, c->dev, mem, px, n, e) : -1;

	if (h2d_ms)
		*h2d_ms += clock_ms() - t0;
	if (rc == 0)
		rc = devpixels_widen(r->px, c->dev, mem, n, s, c->mem, e);
	if (mem)
		(void)clReleaseMemObject(mem); /* the queue keeps it for the kernel */
	vbuf_unmap(px, n);
	if (rc)
		return -1;
	if (c->pending)
		(void)clReleaseEvent(c->pending);
	c->pending = NULL;
	for (size_t i = 0; i < en->ncopies; i++)
		en->copies[i].valid = &en->copies[i] == c;
	return 0;
}

/* Whether the thread executor converts a picture on dev: not on a CPU device, whose copy is
 * host memory already (the conversion would cost the picture program's load in each fresh
 * process, and save no transfer), unless CARSH_PIXELS_CPU=1 (a test hook). A warm worker
 * converts where the shell tells it to: its program is built once. */
static bool pixels_on(const struct rt_dev *dev)
{
	const char *hook = getenv("CARSH_PIXELS_CPU");

	return !(dev->info->type & CL_DEVICE_TYPE_CPU) || (hook && strcmp(hook, "1") == 0);
}

/* The buffer's copy on dev, made (not filled) where it has none; the caller holds r->lock. */
static int copy_for(struct resident *r, const char *shm, size_t bytes, struct rt_dev *dev,
                    struct entry **en, struct copy **c, struct cs_err *e)
{
	*en = entry_of(r, shm, bytes);
	*c = copy_on(*en, dev);
	return *c ? 0 : new_copy(r, *en, dev, c, e);
}

int resident_acquire(struct resident *r, const char *shm, size_t bytes, struct rt_dev *dev,
                     bool read, cl_mem *out, double *h2d_ms, struct cs_err *e)
{
	struct entry *en;
	struct copy *c;
	int rc;

	pthread_mutex_lock(&r->lock);
	rc = copy_for(r, shm, bytes, dev, &en, &c, e);
	if (rc == 0 && read && !c->valid)
		rc = en->pixels && pixels_on(dev) ? widen_copy(r, en, c, en->scalar, h2d_ms, e)
		                                  : refresh_copy(r, en, c, h2d_ms, e);
	if (rc == 0)
		*out = c->mem;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int resident_acquire_filled(struct resident *r, const char *shm, size_t bytes, struct rt_dev *dev,
                            const void *value, size_t vsize, cl_mem *out, struct cs_err *e)
{
	struct entry *en;
	struct copy *c;
	int rc;

	pthread_mutex_lock(&r->lock);
	rc = copy_for(r, shm, bytes, dev, &en, &c, e);
	if (rc == 0 && !c->valid) {
		rc = rt_feed_fill(c->dev, c->mem, value, vsize, en->bytes, e);
		if (rc == 0) {
			if (c->pending)
				(void)clReleaseEvent(c->pending);
			c->pending = NULL;
			c->valid = true;
		}
	}
	if (rc == 0)
		*out = c->mem;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int resident_acquire_widened(struct resident *r, const char *shm, size_t bytes, struct rt_dev *dev,
                             enum scalar s, cl_mem *out, double *h2d_ms, struct cs_err *e)
{
	struct entry *en;
	struct copy *c;
	int rc;

	pthread_mutex_lock(&r->lock);
	rc = copy_for(r, shm, bytes, dev, &en, &c, e);
	if (rc == 0 && !c->valid) {
		rc = widen_copy(r, en, c, s, h2d_ms, e);
		en->host_valid = false; /* the shell's word: shared memory is stale */
	}
	if (rc == 0)
		*out = c->mem;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

static struct copy *current_copy(struct entry *en)
{
	for (size_t i = 0; i < en->ncopies; i++)
		if (en->copies[i].valid)
			return &en->copies[i];
	return NULL;
}

/* The current copy of en narrowed into its pixels object; the caller holds r->lock. */
static int narrow_locked(struct resident *r, struct entry *en, struct cs_err *e)
{
	size_t n = en->bytes / sizeof(float);
	struct copy *src = current_copy(en);
	unsigned char *px;
	cl_mem mem;
	int rc;

	if (!src)
		return err_set(e, "worker: no current copy of buffer %s here", en->shm);
	if (!(mem = pixels_buffer(src->dev, n, e)))
		return -1;
	px = vpixels_map(en->shm, n, true, true, e);
	rc = px ? devpixels_narrow(r->px, src->dev, src->mem, src->pending, n, mem, e) : -1;
	if (rc == 0)
		rc = pixels_read(r, src->dev, mem, px, n, e);
	vbuf_unmap(px, n);
	(void)clReleaseMemObject(mem);
	return rc;
}

int resident_narrow(struct resident *r, const char *shm, struct cs_err *e)
{
	struct entry *en;
	int rc;

	pthread_mutex_lock(&r->lock);
	en = entry_of(r, shm, 0);
	rc = en ? narrow_locked(r, en, e) : err_set(e, "worker: no copy of buffer %s here", shm);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void resident_store(struct resident *r, const char *shm, struct rt_dev *dev, cl_mem mem,
                    cl_event done)
{
	struct entry *en;
	struct copy *c;

	pthread_mutex_lock(&r->lock);
	en = entry_of(r, shm, 0);
	c = en ? copy_on(en, dev) : NULL;
	if (!c) {
		pthread_mutex_unlock(&r->lock);
		return;
	}
	/* After swaps the job's output may be another buffer: the copy takes it over. */
	if (c->mem != mem && clRetainMemObject(mem) == CL_SUCCESS) {
		(void)rt_dev_queue(dev); /* the feeder may still name the old one */
		(void)clReleaseMemObject(c->mem);
		c->mem = mem;
	}
	if (c->pending)
		(void)clReleaseEvent(c->pending);
	c->pending = done;
	if (done)
		clRetainEvent(done);
	for (size_t i = 0; i < en->ncopies; i++)
		en->copies[i].valid = &en->copies[i] == c;
	en->host_valid = false;
	en->pixels = false;
	pthread_mutex_unlock(&r->lock);
}

/* The copy to fill: the current one, else the first there is. */
static struct copy *fill_target(struct entry *en)
{
	for (size_t i = 0; i < en->ncopies; i++)
		if (en->copies[i].valid)
			return &en->copies[i];
	return en->ncopies ? &en->copies[0] : NULL;
}

int resident_fill(struct resident *r, const char *shm, const void *pattern, size_t psize,
                  struct cs_err *e)
{
	struct entry *en;
	struct copy *c;
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	en = entry_of(r, shm, 0);
	c = en ? fill_target(en) : NULL;
	if (c) {
		/* Queued in order with the jobs (through the feeder when it runs). */
		if (rt_feed_fill(c->dev, c->mem, pattern, psize, en->bytes, e)) {
			rc = -1;
		} else {
			if (c->pending)
				(void)clReleaseEvent(c->pending);
			c->pending = NULL;
			for (size_t i = 0; i < en->ncopies; i++)
				en->copies[i].valid = &en->copies[i] == c;
			en->host_valid = false;
			en->pixels = false;
			rc = 1;
		}
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

/* again: copied from the device even where shared memory was counted current. */
static int to_host(struct resident *r, const char *shm, bool again, struct cs_err *e)
{
	struct entry *en;
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	en = entry_of(r, shm, 0);
	if (en && again && !en->pixels)
		en->host_valid = false;
	if (en)
		rc = to_host_locked(r, en, e);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int resident_to_host(struct resident *r, const char *shm, struct cs_err *e)
{
	return to_host(r, shm, false, e);
}

int resident_to_host_again(struct resident *r, const char *shm, struct cs_err *e)
{
	return to_host(r, shm, true, e);
}

void resident_host_wrote(struct resident *r, const char *shm)
{
	struct entry *en;

	pthread_mutex_lock(&r->lock);
	en = entry_of(r, shm, 0);
	if (en) {
		en->host_valid = true;
		en->pixels = false;
		for (size_t i = 0; i < en->ncopies; i++)
			en->copies[i].valid = false;
	}
	pthread_mutex_unlock(&r->lock);
}

void resident_host_pixels(struct resident *r, const char *shm, size_t bytes, enum scalar s)
{
	struct entry *en;

	pthread_mutex_lock(&r->lock);
	en = entry_of(r, shm, bytes);
	en->host_valid = false;
	en->pixels = true;
	en->scalar = s;
	for (size_t i = 0; i < en->ncopies; i++)
		en->copies[i].valid = false;
	pthread_mutex_unlock(&r->lock);
}

int resident_dump_pixels(struct resident *r, const char *shm, bool narrow, struct cs_err *e)
{
	struct entry *en;
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	en = entry_of(r, shm, 0);
	if (en && en->pixels)
		rc = 1;
	else if (en && narrow && !en->host_valid && current_copy(en) &&
	         pixels_on(current_copy(en)->dev))
		rc = narrow_locked(r, en, e) == 0 ? 1 : 0; /* else: through shared memory */
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void resident_forget(struct resident *r, const char *shm)
{
	struct entry **pp, *en = NULL;

	pthread_mutex_lock(&r->lock);
	for (pp = &r->head; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->shm, shm) == 0) {
			en = *pp;
			*pp = en->next;
			break;
		}
	pthread_mutex_unlock(&r->lock);
	if (en)
		entry_free(en);
}
