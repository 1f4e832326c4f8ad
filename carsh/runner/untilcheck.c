/* A loop's stop condition checked on a virtual buffer (runner/untilcheck.h). */
#include "runner/untilcheck.h"

#include <stdio.h>
#include <string.h>

#include "runner/buffers-int.h"
#include "runner/bufhost.h"
#include "mpi/ranks.h"

/* The status that carries "does not hold" through ranks_agree: not an error's. */
#define UNTIL_NOT_YET 253

static int rhs_value(const struct until *u, const struct scope *sc, double *v, struct cs_err *e)
{
	if (scope_eval_float(sc, u->value, v, e))
		return err_prefix(e, "until value: ");
	return 0;
}

/* "changed[3] is 1", or "c[1].s2 is 0.5" in a vector buffer. */
static void describe(const struct vbuf *v, const void *data, size_t i, char *why, size_t len)
{
	char num[NUMBER_BUF];
	const unsigned char *p = data;

	number_format(v->type.scalar, p + i * scalar_size(v->type.scalar), num, sizeof(num));
	if (v->type.width == 1)
		snprintf(why, len, "%s[%zu] is %s", v->name, i, num);
	else
		snprintf(why, len, "%s[%zu].s%x is %s", v->name, i / v->type.width,
		         (unsigned)(i % v->type.width), num);
}

static int check_here(struct run_ctx *c, const struct until *u, double rhs, char *why, size_t len,
                      struct cs_err *e)
{
	struct vbuf v;
	struct claim *cl = NULL;
	void *map = NULL;
	size_t first = 0;
	int rc = -1;

	if (vbuf_lookup(c->s->vbufs, u->buffer, &v, e))
		return -1;
	if ((cl = buffers_claim_one(c, &v, false, e)) && buffers_host_current(c, &v, e) == 0 &&
	    (map = vbuf_map(v.shm, v.bytes, false, e))) {
		rc = until_holds(u, rhs, v.type.scalar, map, v.count * v.type.width, &first);
		if (!rc)
			describe(&v, map, first, why, len);
	}
	vbuf_unmap(map, v.bytes);
	hazard_release(c->s->hz, cl);
	vbuf_entry_free(&v);
	return rc;
}

/* Rank 0 reads the buffer, brought there first; its answer reaches every rank as a status
 * (0 holds, UNTIL_NOT_YET with the reason as the message, else an error). */
static int check_ranks(struct run_ctx *c, const struct until *u, double rhs, char *why, size_t len,
                       struct cs_err *e)
{
	char *names[] = {u->buffer};
	int rc = 0;

	buffers_bring(c, names, 1, 0);
	if (ranks_rank() == 0) {
		rc = check_here(c, u, rhs, why, len, e);
		if (rc == 0)
			err_set(e, "%s", why);
		rc = rc == 1 ? 0 : rc == 0 ? UNTIL_NOT_YET : 1;
	}
	rc = ranks_agree(rc, e);
	if (rc == UNTIL_NOT_YET) {
		snprintf(why, len, "%s", e->msg);
		err_clear(e);
		return 0;
	}
	return rc ? -1 : 1;
}

int until_check(struct run_ctx *c, const struct until *u, const struct scope *sc, char *why,
                size_t len, struct cs_err *e)
{
	double rhs;

	if (rhs_value(u, sc, &rhs, e))
		return -1;
	if (c->s->replicas)
		return check_ranks(c, u, rhs, why, len, e);
	return check_here(c, u, rhs, why, len, e);
}
