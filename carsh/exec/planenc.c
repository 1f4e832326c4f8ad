/* A window's encoded plans, kept (exec/planenc.h). */
#include "exec/planenc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* A batch's steps: the FFT filter cycles through six kernels, each seen with its buffers
 * swapped and not. */
#define ENCS_KEPT 16

struct enc {
	uint64_t stamp; /* 0: a free slot */
	bool by_token;
	uint64_t nonce, addr; /* the source's token, by_token */
	char **shm;           /* each argument's object, or NULL */
	size_t nargs;
	struct wbuf bytes;
};

struct plan_encs {
	struct enc e[ENCS_KEPT];
	size_t next;       /* the slot to fill next, round robin */
	struct wbuf fresh; /* a plan without a stamp, encoded each time */
};

struct plan_encs *planenc_new(void)
{
	return xcalloc(1, sizeof(struct plan_encs));
}

static void enc_clear(struct enc *en)
{
	for (size_t i = 0; i < en->nargs; i++)
		free(en->shm[i]);
	free(en->shm);
	en->shm = NULL;
	en->nargs = 0;
	en->stamp = 0;
	en->bytes.len = 0;
}

void planenc_free(struct plan_encs *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < ENCS_KEPT; i++) {
		enc_clear(&c->e[i]);
		wb_free(&c->e[i].bytes);
	}
	wb_free(&c->fresh);
	free(c);
}

static const char *object(const struct job_plan *jp, size_t i)
{
	return jp->binds ? jp->binds[i].shm : NULL;
}

static bool same_object(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool matches(const struct enc *en, const struct job_plan *jp, const struct wire_source *src)
{
	if (en->stamp != jp->stamp || en->by_token != (src != NULL) || en->nargs != jp->kp.nargs)
		return false;
	if (src && (en->nonce != src->nonce || en->addr != src->addr))
		return false;
	for (size_t i = 0; i < en->nargs; i++)
		if (!same_object(en->shm[i], object(jp, i)))
			return false;
	return true;
}

static void keep(struct enc *en, const struct job_plan *jp, const struct wire_source *src)
{
	enc_clear(en);
	en->stamp = jp->stamp;
	en->by_token = src != NULL;
	en->nonce = src ? src->nonce : 0;
	en->addr = src ? src->addr : 0;
	en->nargs = jp->kp.nargs;
	en->shm = xcalloc(en->nargs ? en->nargs : 1, sizeof(*en->shm));
	for (size_t i = 0; i < en->nargs; i++)
		en->shm[i] = object(jp, i) ? xstrdup(object(jp, i)) : NULL;
	workerwire_encode_plan(jp, src, &en->bytes);
}

const struct wbuf *planenc_get(struct plan_encs *c, const struct job_plan *jp,
                               const struct wire_source *src)
{
	struct enc *en;

	if (!jp->stamp) {
		c->fresh.len = 0;
		workerwire_encode_plan(jp, src, &c->fresh);
		return &c->fresh;
	}
	for (size_t i = 0; i < ENCS_KEPT; i++)
		if (matches(&c->e[i], jp, src))
			return &c->e[i].bytes;
	en = &c->e[c->next];
	c->next = (c->next + 1) % ENCS_KEPT;
	keep(en, jp, src);
	return &en->bytes;
}
