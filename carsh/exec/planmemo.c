/* A warm worker's decoded plans, kept by their bytes (exec/planmemo.h). */
#include "exec/planmemo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/planwire.h"
#include "util/alloc.h"

/* The filter's steps send about 16 plans (four kernels, forward and inverse, each with
 * the buffers of a swap pair either way round). */
#define MEMO_MAX 32

struct kept {
	uint64_t hash;
	unsigned char *bytes;
	size_t len;
	struct job_plan *jp;
};

struct plan_memo {
	struct kept k[MEMO_MAX];
	size_t next; /* the slot the next new plan takes, round the ring */
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
	free(m);
}

/* FNV-1a over 8-byte words: the bytes are compared whole on a match, so a collision costs
 * a comparison, never a wrong plan. */
static uint64_t hash_bytes(const unsigned char *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, sizeof(w));
		h = (h ^ w) * 1099511628211ull;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h ^ len;
}

int planmemo_get(struct plan_memo *m, const void *buf, size_t len, struct job_plan **jp,
                 struct cs_err *e)
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
	if (planwire_decode(buf, len, jp, e))
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
