/*
 * The buffer service across MPI ranks (docs/scale-out.md "What moves when"): the data of a
 * buffer moves only when a job on another rank reads it, or when rank 0 dumps it; the
 * move goes straight between the two shared-memory objects, under the same hazard claims
 * as any host access, so it waits for the job still writing the sender's copy or still
 * reading the receiver's old one.
 */
#include "mpi/bufmoves.h"

#include <stdlib.h>
#include <string.h>

#include "mpi/ranks.h"
#include "mpi/replicas.h"
#include "util/alloc.h"

struct move {
	struct vbuf v;
	struct claim *cl;
	void *map;
};

/* This rank's half of one move: its copy claimed and mapped (once, replicas.h says why). */
static void take_part(const struct bufmove_host *h, const char *name, bool sends, struct move *m)
{
	struct cs_err e;

	if (vbuf_lookup(h->vbufs, name, &m->v, &e) ||
	    !(m->cl = h->claim(h->arg, &m->v, !sends, &e)) ||
	    (sends && h->current(h->arg, &m->v, &e)))
		ranks_fatal("moving virtual buffer '%s': %s", name, e.msg);
	m->map = replicas_mapping(h->replicas, name);
	if (m->map)
		return;
	m->map = vbuf_map(m->v.shm, m->v.bytes, true, &e);
	if (!m->map)
		ranks_fatal("moving virtual buffer '%s': %s", name, e.msg);
	replicas_keep_mapping(h->replicas, name, m->map, m->v.bytes);
}

void bufmove_bring(const struct bufmove_host *h, char *const *names, size_t n, int to)
{
	struct move *m = xcalloc(n ? n : 1, sizeof(*m));
	struct ranks_xfer *x = xcalloc(n ? n : 1, sizeof(*x));
	int me = ranks_rank();
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		int from;

		if (replicas_current(h->replicas, names[i], to))
			continue;
		from = replicas_owner(h->replicas, names[i]);
		replicas_received(h->replicas, names[i], to);
		if (me != from && me != to)
			continue;
		take_part(h, names[i], me == from, &m[k]);
		x[k] = (struct ranks_xfer){.data = m[k].map,
		                           .bytes = m[k].v.bytes,
		                           .peer = me == from ? to : from,
		                           .send = me == from};
		k++;
	}
	ranks_exchange(x, k);
	for (size_t i = 0; i < k; i++) {
		if (!x[i].send)
			h->wrote(h->arg, &m[i].v);
		hazard_release(h->hz, m[i].cl);
		vbuf_entry_free(&m[i].v);
	}
	free(x);
	free(m);
}

/* The buffers a plan reads (kind read) or writes. */
static size_t plan_buffers(const struct job_plan *jp, bool reads, char **names)
{
	size_t n = 0;

	for (size_t i = 0; i < jp->kp.nargs; i++) {
		enum arg_kind k = jp->kp.args[i].kind;

		if (jp->binds[i].how == BIND_BUFFER && (reads ? arg_is_read(k) : arg_is_written(k)))
			names[n++] = jp->binds[i].buffer;
	}
	return n;
}

void bufmove_place_plan(const struct bufmove_host *h, const struct job_plan *jp, int rank)
{
	char **names = xcalloc(jp->kp.nargs + 1, sizeof(*names));
	size_t n = plan_buffers(jp, true, names);

	bufmove_bring(h, names, n, rank);
	n = plan_buffers(jp, false, names);
	for (size_t i = 0; i < n; i++)
		replicas_wrote(h->replicas, names[i], rank);
	free(names);
}

void bufmove_place_everywhere(const struct bufmove_host *h, const struct job_plan *jp)
{
	char **names = xcalloc(jp->kp.nargs + 1, sizeof(*names));
	size_t n = plan_buffers(jp, true, names);

	for (int rank = 0; rank < ranks_size(); rank++)
		bufmove_bring(h, names, n, rank);
	n = plan_buffers(jp, false, names);
	for (size_t i = 0; i < n; i++)
		replicas_wrote(h->replicas, names[i], 0);
	free(names);
}
