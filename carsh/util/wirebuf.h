/*
 * Payloads of wire frames (util/wire.h) as plain bytes: a growable writer and a bounded
 * reader. Numbers are in host byte order, as the frames are (one machine). A string is a
 * 64-bit length and its bytes, without the NUL; the length UINT64_MAX stands for NULL.
 *
 * The reader never reads past its end: a read that does not fit sets bad and returns 0 (or
 * NULL, or a zeroed dst), and every read after that does the same, so a decoder reads all
 * of its fields and checks bad once at the end. It tells the two kinds of bad apart by
 * left: a truncation consumes the rest (left == 0); a string with a NUL byte inside (which
 * wb_str never writes) leaves left as it was.
 */
#ifndef CARSH_UTIL_WIREBUF_H
#define CARSH_UTIL_WIREBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct wbuf {
	unsigned char *p; /* owned; NULL while empty */
	size_t len;
	size_t cap;
};

#define WBUF_INIT          \
	{                  \
		NULL, 0, 0 \
	}

/* Room for len more bytes. */
void wb_reserve(struct wbuf *w, size_t len);

/* Inline: a plan's encoding is a few hundred small fields, written for every job a warm
 * worker runs; a call and a capacity check each were a fifth of the shell's work a job. */
static inline void wb_bytes(struct wbuf *w, const void *p, size_t len)
{
	if (len == 0)
		return;
	if (w->cap - w->len < len)
		wb_reserve(w, len);
	memcpy(w->p + w->len, p, len);
	w->len += len;
}

static inline void wb_u32(struct wbuf *w, uint32_t v)
{
	wb_bytes(w, &v, sizeof(v));
}

static inline void wb_u64(struct wbuf *w, uint64_t v)
{
	wb_bytes(w, &v, sizeof(v));
}

static inline void wb_i64(struct wbuf *w, int64_t v)
{
	wb_bytes(w, &v, sizeof(v));
}

static inline void wb_f64(struct wbuf *w, double v)
{
	wb_bytes(w, &v, sizeof(v));
}

void wb_str(struct wbuf *w, const char *s); /* NULL allowed */
void wb_free(struct wbuf *w);

struct rbuf {
	const unsigned char *p;
	size_t left;
	bool bad;
};

struct rbuf rb_init(const void *p, size_t len);
uint32_t rb_u32(struct rbuf *r);
uint64_t rb_u64(struct rbuf *r);
int64_t rb_i64(struct rbuf *r);
double rb_f64(struct rbuf *r);
/* Copy len bytes to dst; false (and dst zeroed) when they are not there. */
bool rb_bytes(struct rbuf *r, void *dst, size_t len);
/* A malloc'ed copy, or NULL for a NULL string and when bad. */
char *rb_str(struct rbuf *r);

#endif
