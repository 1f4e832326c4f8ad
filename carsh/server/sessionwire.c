/* The session message (server/sessionwire.h). */
#include "server/sessionwire.h"

#include <stdlib.h>
#include <string.h>

static void put_strs(struct wbuf *out, const struct strvec *v)
{
	wb_u32(out, (uint32_t)v->n);
	for (size_t i = 0; i < v->n; i++)
		wb_str(out, v->v[i]);
}

void sessionwire_encode(const struct session_req *r, struct wbuf *out)
{
	wb_u32(out, r->client);
	wb_u32(out, r->umask);
	wb_str(out, r->cwd);
	put_strs(out, &r->env);
	put_strs(out, &r->argv);
}

/* n strings; a count larger than the bytes left cannot be true (each takes 8 at least). */
static void get_strs(struct rbuf *rb, struct strvec *v)
{
	uint32_t n = rb_u32(rb);

	if (n > rb->left / 8) {
		rb->bad = true;
		return;
	}
	for (uint32_t i = 0; i < n && !rb->bad; i++) {
		char *s = rb_str(rb);

		if (!s) {
			rb->bad = true;
			return;
		}
		sv_push_owned(v, s);
	}
}

int sessionwire_decode(const void *buf, size_t len, struct session_req *r, struct cs_err *e)
{
	struct rbuf rb = rb_init(buf, len);

	memset(r, 0, sizeof(*r));
	r->client = rb_u32(&rb);
	r->umask = rb_u32(&rb);
	r->cwd = rb_str(&rb);
	get_strs(&rb, &r->env);
	get_strs(&rb, &r->argv);
	if (rb.bad || rb.left || !r->cwd || r->argv.n == 0) {
		sessionwire_free(r);
		return err_set(e, "session message: truncated or garbled");
	}
	return 0;
}

void sessionwire_free(struct session_req *r)
{
	free(r->cwd);
	r->cwd = NULL;
	sv_free(&r->env);
	sv_free(&r->argv);
}
