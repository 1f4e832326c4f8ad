#include "util/wirebuf.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define STR_NULL UINT64_MAX

void wb_reserve(struct wbuf *w, size_t len)
{
	if (w->cap - w->len < len)
		w->p = xgrow(w->p, &w->cap, w->len + len, 1);
}

void wb_str(struct wbuf *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	wb_u64(w, s ? n : STR_NULL);
	wb_bytes(w, s, n);
}

void wb_free(struct wbuf *w)
{
	free(w->p);
	w->p = NULL;
	w->len = w->cap = 0;
}

struct rbuf rb_init(const void *p, size_t len)
{
	return (struct rbuf){p, len, false};
}

bool rb_bytes(struct rbuf *r, void *dst, size_t len)
{
	if (len == 0)
		return !r->bad;
	if (r->bad || len > r->left) {
		memset(dst, 0, len);
		if (!r->bad)
			r->left = 0;
		r->bad = true;
		return false;
	}
	memcpy(dst, r->p, len);
	r->p += len;
	r->left -= len;
	return true;
}

uint32_t rb_u32(struct rbuf *r)
{
	uint32_t v;

	rb_bytes(r, &v, sizeof(v));
	return v;
}

uint64_t rb_u64(struct rbuf *r)
{
	uint64_t v;

	rb_bytes(r, &v, sizeof(v));
	return v;
}

int64_t rb_i64(struct rbuf *r)
{
	int64_t v;

	rb_bytes(r, &v, sizeof(v));
	return v;
}

double rb_f64(struct rbuf *r)
{
	double v;

	rb_bytes(r, &v, sizeof(v));
	return v;
}

char *rb_str(struct rbuf *r)
{
	uint64_t n = rb_u64(r);

	if (r->bad || n == STR_NULL)
		return NULL;
	if (n > r->left) {
		r->bad = true;
		r->left = 0;
		return NULL;
	}
	if (memchr(r->p, '\0', n)) {
		r->bad = true;
		return NULL;
	}
	r->p += n;
	r->left -= n;
	return xstrndup((const char *)r->p - n, n);
}
