/* The server machine's messages (server/apiwire.h). */
#include "server/apiwire.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static int garbled(struct cs_err *e, const char *what)
{
	return err_set(e, "%s message: truncated or garbled", what);
}

void apiwire_encode_open(const struct api_open *o, struct wbuf *out)
{
	wb_str(out, o->version);
	wb_str(out, o->cwd);
	wb_u32(out, o->umask);
	wb_str(out, o->device);
}

int apiwire_decode_open(const void *buf, size_t len, struct api_open *o, struct cs_err *e)
{
	struct rbuf rb = rb_init(buf, len);

	o->version = rb_str(&rb);
	o->cwd = rb_str(&rb);
	o->umask = rb_u32(&rb);
	o->device = rb_str(&rb);
	if (rb.bad || rb.left || !o->version || !o->cwd) {
		apiwire_open_free(o);
		return garbled(e, "API open");
	}
	return 0;
}

void apiwire_open_free(struct api_open *o)
{
	free(o->version);
	free(o->cwd);
	free(o->device);
	memset(o, 0, sizeof(*o));
}

void apiwire_encode_req(const struct api_req *r, struct wbuf *out)
{
	wb_u32(out, r->id);
	wb_str(out, r->a);
	wb_str(out, r->b);
	wb_str(out, r->c);
	wb_u64(out, r->n);
}

int apiwire_decode_req(const void *buf, size_t len, struct api_req *r, struct cs_err *e)
{
	struct rbuf rb = rb_init(buf, len);

	r->id = rb_u32(&rb);
	r->a = rb_str(&rb);
	r->b = rb_str(&rb);
	r->c = rb_str(&rb);
	r->n = rb_u64(&rb);
	if (rb.bad || rb.left) {
		apiwire_req_free(r);
		return garbled(e, "API request");
	}
	return 0;
}

void apiwire_req_free(struct api_req *r)
{
	free(r->a);
	free(r->b);
	free(r->c);
	memset(r, 0, sizeof(*r));
}

void apiwire_encode_answer(int rc, const char *msg, uint64_t n, const struct wbuf *extra,
                           struct wbuf *out)
{
	wb_i64(out, rc);
	wb_str(out, msg ? msg : "");
	wb_u64(out, n);
	if (extra && extra->len)
		wb_bytes(out, extra->p, extra->len);
}

/* A code is 0 or one of carsh.h's few negative ones: anything else is not an answer. */
int apiwire_decode_answer(const void *buf, size_t len, struct api_answer *a, struct cs_err *e)
{
	struct rbuf rb = rb_init(buf, len);
	int64_t rc = rb_i64(&rb);

	a->msg = rb_str(&rb);
	a->n = rb_u64(&rb);
	if (rb.bad || !a->msg || rc > 0 || rc < -64) {
		apiwire_answer_free(a);
		return garbled(e, "API answer");
	}
	a->rc = (int)rc;
	a->extra = rb.p;
	a->extra_len = rb.left;
	return 0;
}

void apiwire_answer_free(struct api_answer *a)
{
	free(a->msg);
	memset(a, 0, sizeof(*a));
}

void apiwire_encode_stats(const struct apiwire_stats *s, struct wbuf *out)
{
	wb_u64(out, s->fires);
	wb_u64(out, s->launches);
	wb_f64(out, s->fire_ms);
	wb_f64(out, s->last_fire_ms);
	wb_f64(out, s->build_ms);
	wb_f64(out, s->kernel_ms);
	wb_u32(out, s->cache_hit);
	wb_str(out, s->device);
}

int apiwire_decode_stats(const void *buf, size_t len, struct apiwire_stats *s, struct cs_err *e)
{
	struct rbuf rb = rb_init(buf, len);

	s->fires = rb_u64(&rb);
	s->launches = rb_u64(&rb);
	s->fire_ms = rb_f64(&rb);
	s->last_fire_ms = rb_f64(&rb);
	s->build_ms = rb_f64(&rb);
	s->kernel_ms = rb_f64(&rb);
	s->cache_hit = rb_u32(&rb);
	s->device = rb_str(&rb);
	if (rb.bad || rb.left || !s->device) {
		apiwire_stats_free(s);
		return garbled(e, "API statistics");
	}
	return 0;
}

void apiwire_stats_free(struct apiwire_stats *s)
{
	free(s->device);
	memset(s, 0, sizeof(*s));
}

void apiwire_encode_devices(const struct apiwire_device *d, size_t n, struct wbuf *out)
{
	wb_u32(out, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		wb_str(out, d[i].name);
		wb_str(out, d[i].vendor);
		wb_str(out, d[i].platform);
		wb_str(out, d[i].type);
		wb_u32(out, d[i].compute_units);
		wb_u32(out, d[i].selected);
		wb_u64(out, d[i].global_mem);
		wb_u64(out, d[i].max_alloc);
	}
}

static void device_read(struct rbuf *rb, struct apiwire_device *d)
{
	d->name = rb_str(rb);
	d->vendor = rb_str(rb);
	d->platform = rb_str(rb);
	d->type = rb_str(rb);
	d->compute_units = rb_u32(rb);
	d->selected = rb_u32(rb);
	d->global_mem = rb_u64(rb);
	d->max_alloc = rb_u64(rb);
	if (!d->name || !d->vendor || !d->platform || !d->type)
		rb->bad = true;
}

/* A count larger than the bytes left cannot be true (a device takes 56 at least). */
int apiwire_decode_devices(const void *buf, size_t len, struct apiwire_device **devs, size_t *n,
                           struct cs_err *e)
{
	struct rbuf rb = rb_init(buf, len);
	uint32_t count = rb_u32(&rb);
	size_t i = 0;

	*devs = NULL;
	*n = 0;
	if (!rb.bad && count > rb.left / 56)
		rb.bad = true;
	if (!rb.bad && count)
		*devs = xcalloc(count, sizeof(**devs));
	for (; i < count && !rb.bad; i++)
		device_read(&rb, &(*devs)[i]);
	if (rb.bad || rb.left) {
		apiwire_devices_free(*devs, i);
		*devs = NULL;
		return garbled(e, "API devices");
	}
	*n = count;
	return 0;
}

void apiwire_devices_free(struct apiwire_device *devs, size_t n)
{
	for (size_t i = 0; devs && i < n; i++) {
		free(devs[i].name);
		free(devs[i].vendor);
		free(devs[i].platform);
		free(devs[i].type);
	}
	free(devs);
}
