/* A warm worker's decoded plans, kept by their bytes (exec/planmemo.h). */
#include "exec/planmemo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/planwire.h"
#include "exec/workerwire.h"
#include "util/alloc.h"
#include "util/wirebuf.h"

/* The filter's steps send about 16 plans (four kernels, forward and inverse, each with
 * the buffers of a swap pair either way round). */
#define MEMO_MAX 32

struct kept {
	uint64_t hash;
	unsigned char *bytes;
	size_t len;
	struct job_plan *jp;
	struct plan_bound bound;
};

struct source {
	uint64_t nonce;
	uint64_t addr;
	char *text;
};

struct plan_memo {
	struct kept k[MEMO_MAX];
	size_t next; /* the slot the next new plan takes, round the ring */
	/* Sources by reference, the oldest replaced first, as the shell counts them. */
	struct source src[WORKER_SOURCES_KEPT];
	size_t src_next;
};

struct plan_memo *planmemo_new(void)
{
	return xcalloc(1, sizeof(struct plan_memo));
}

static void kept_free(struct kept *k)
{
	job_plan_free(k->jp);
	free(k->bytes);
	*k = (struct kept){0};
}

void planmemo_free(struct plan_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < MEMO_MAX; i++)
		kept_free(&m->k[i]);
	for (size_t i = 0; i < WORKER_SOURCES_KEPT; i++)
		free(m->src[i].text);
	free(m);
}

/* FNV-1a over 8-byte words in four lanes, combined at the end: a plan carries its kernel's
 * whole source (often 10 KB), and one lane's chain of dependent multiplies took longer than
 * the rest of the worker's decoding; four independent chains run side by side. The bytes are
 * compared whole on a match, so a collision costs a comparison, never a wrong plan. */
static uint64_t hash_bytes(const unsigned char *p, size_t len)
{
	const uint64_t prime = 1099511628211ull;
	uint64_t h[4] = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
	                 0x165667b19e3779f9ull};
	size_t i = 0;

	for (; i + 32 <= len; i += 32)
		for (int l = 0; l < 4; l++) {
			uint64_t w;

			memcpy(&w, p + i + 8 * l, sizeof(w));
			h[l] = (h[l] ^ w) * prime;
		}
	for (; i < len; i++)
		h[0] = (h[0] ^ p[i]) * prime;
	return ((h[0] ^ (h[1] >> 1)) * prime ^ (h[2] >> 2) ^ (h[3] << 1)) ^ len;
}

void planmemo_define_source(struct plan_memo *m, uint64_t nonce, uint64_t addr, const char *text)
{
	struct source *s = &m->src[m->src_next];

	m->src_next = (m->src_next + 1) % WORKER_SOURCES_KEPT;
	free(s->text);
	*s = (struct source){nonce, addr, xstrdup(text)};
}

/* The newest source of that token. */
static const char *source_of(const struct plan_memo *m, uint64_t nonce, uint64_t addr)
{
	for (size_t n = 1; n <= WORKER_SOURCES_KEPT; n++) {
		const struct source *s =
		        &m->src[(m->src_next + WORKER_SOURCES_KEPT - n) % WORKER_SOURCES_KEPT];

		if (s->text && s->nonce == nonce && s->addr == addr)
			return s->text;
	}
	return NULL;
}

/* A plan whose bytes begin with its source's token: decoded, its source put in. */
static int decode_by_token(const struct plan_memo *m, const unsigned char *buf, size_t len,
                           struct job_plan **jp, struct cs_err *e)
{
	struct rbuf r = rb_init(buf, len);
	uint64_t nonce = rb_u64(&r), addr = rb_u64(&r);
	const char *text = r.bad ? NULL : source_of(m, nonce, addr);

	if (!text)
		return err_set(e, "job message: its kernel source was not sent to this worker");
	if (planwire_decode(r.p, r.left, jp, e))
		return -1;
	free((*jp)->kp.source);
	(*jp)->kp.source = xstrdup(text);
	return 0;
}

int planmemo_get(struct plan_memo *m, const void *buf, size_t len, bool by_token,
                 struct job_plan **jp, struct cs_err *e)
{
	uint64_t h = hash_bytes(buf, len);
	struct kept *k;

	for (size_t i = 0; i < MEMO_MAX; i++) {
		k = &m->k[i];
		if (k->jp && k->hash == h && k->len == len && memcmp(k->bytes, buf, len) == 0) {
			*jp = k->jp;
			return 0;
		}
	}
	if (by_token ? decode_by_token(m, buf, len, jp, e) : planwire_decode(buf, len, jp, e))
		return -1;
	k = &m->k[m->next];
	m->next = (m->next + 1) % MEMO_MAX;
	kept_free(k);
	k->hash = h;
	k->len = len;
	k->bytes = xmalloc(len ? len : 1);
	memcpy(k->bytes, buf, len);
	k->jp = *jp;
	return 0;
}

struct plan_bound *planmemo_bound(struct plan_memo *m, const struct job_plan *jp)
{
	for (size_t i = 0; i < MEMO_MAX; i++)
		if (m->k[i].jp && m->k[i].jp == jp)
			return &m->k[i].bound;
	return NULL;
}
