/*
 * A pipeline graph across MPI ranks, each rank firing its runs as their inputs arrive
 * (docs/scale-out.md "Pipeline graphs across ranks"; 004 §4.2.5).
 *
 * Every rank walks the same schedule as the step-by-step run (runner/graphrun.c: steps in
 * order, the runs of a step in stage order, an item's exits after its step) and keeps, as the
 * replica table does for a batch, which ranks hold the current data of each ring slot. From
 * that walk each rank keeps its own actions, in schedule order: fill an entrance (rank 0),
 * send a slot's data to a rank that reads it, receive one, start a run, dump an exit (rank
 * 0). A channel's item k is thus a message, tagged by its slot; two ranks list the halves of
 * their messages in the same order, so a message is matched by peer and tag alone.
 *
 * A rank takes its actions in order, each once the buffers it touches are free on this rank:
 * a hazard claim, as for any job, registered when the action comes and polled (hazard_ready)
 * while the rank tests its messages. A run starts once the receives of its inputs completed
 * and the sends of the slots it writes did; a send waits for the run that wrote its slot; a
 * receive for the runs still reading the slot's previous item. No rank waits for a step of
 * the others. Sends are synchronous (MPI_Issend), and a receive is posted only when its slot
 * is free, so a producer gets at most a ring's depth of items ahead of a consumer on another
 * rank: the ring sizes bound the run-ahead, as PEA-ST's shift bounds it on one machine.
 *
 * Why it cannot deadlock: an action waits either for a job of its own rank (which has all
 * its inputs, so it ends by itself) or for a message whose other half comes earlier in the
 * schedule (a sent slot is overwritten for item k + ring only after the consumer's run of
 * item k, which the ring sizes place in an earlier step). Every rank tests all its messages
 * while it waits, so the earliest action any rank waits for always completes.
 *
 * A failure (a run that ended in failure, seen when the rank next tests its jobs; a file
 * rank 0 could not read) makes the rank stop its runs, fills and dumps and tell the others
 * (ranks_flow_fail), who stop theirs; a rank that stopped goes on with its messages only,
 * so that every message still has its match, and sends them empty, so that a rank that
 * has not heard the notice yet does not run (or write an exit) on data a failed run left.
 * At the end all agree once on the outcome (ranks_agree).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi/graphranks.h"

#include "data/vhome.h"
#include "exec/homes.h"
#include "mpi/ranks.h"
#include "mpi/replicas.h"
#include "util/alloc.h"
#include "util/clock.h"

enum act_kind { ACT_FILL, ACT_SEND, ACT_RECV, ACT_RUN, ACT_DUMP };

struct act {
	enum act_kind kind;
	size_t buf;  /* the slot: SEND, RECV, FILL, DUMP */
	int peer;    /* SEND, RECV */
	size_t what; /* FILL: the entrance; RUN: the node; DUMP: the exit */
	size_t item;
	size_t step; /* for messages */
};

/* A ring slot, as this rank moves it. */
struct slot {
	const char *name;
	char *shm;
	size_t bytes;
	void *map; /* mapped at its first message */
};

/* A message in flight: its claim is released once it completed. */
struct flight {
	size_t msg;
	struct claim *cl;
	bool recv;
};

struct granks {
	struct graphranks *r;
	struct slot *slots;
	size_t nslots;
	size_t *first;        /* per channel: its slot 0 */
	unsigned char *holds; /* nslots x ranks: holds the current data */
	struct act *acts;     /* this rank's, of one step */
	size_t nacts, cap;
	struct ranks_flow *flow;
	struct flight *fl;
	size_t nfl, flcap;
	int me, size;
	int status;           /* this rank's first failure */
	bool stopped;         /* an empty message came: a rank upstream stopped */
	struct cs_err err;    /* its message */
	size_t last;          /* the deepest node: its run ends an item */
	struct claim **watch; /* per run of it here: a claim ready once the run ended */
	size_t nwatch, watched;
	double t0, first_ms, last_ms; /* when items ended, on the last node's rank */
	size_t results;
};

/* ---- the walk: every rank derives every rank's actions, keeps its own ---- */

static void add(struct granks *g, struct act a)
{
	if (g->nacts == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->acts = xrealloc(g->acts, g->cap * sizeof(*g->acts));
	}
	g->acts[g->nacts++] = a;
}

static unsigned char *holds(struct granks *g, size_t b)
{
	return g->holds + b * (size_t)g->size;
}

/* The current data of slot b to rank `to`, from the lowest rank that holds it. */
static void bring(struct granks *g, size_t b, int to, size_t step)
{
	int from = 0;

	if (holds(g, b)[to])
		return;
	while (!holds(g, b)[from])
		from++;
	holds(g, b)[to] = 1;
	if (g->me == from)
		add(g, (struct act){ACT_SEND, b, to, 0, 0, step});
	else if (g->me == to)
		add(g, (struct act){ACT_RECV, b, from, 0, 0, step});
}

static void wrote(struct granks *g, size_t b, int rank)
{
	memset(holds(g, b), 0, (size_t)g->size);
	holds(g, b)[rank] = 1;
}

static size_t port_slot(const struct granks *g, size_t port, size_t item)
{
	const struct ring_port *p = &g->r->rp->ports[port];

	return g->first[p->chan] + ring_slot(g->r->rp, p, item);
}

static void walk_run(struct granks *g, size_t x, size_t item, size_t step)
{
	struct graphranks *r = g->r;
	const struct graphranks_node *nr = &r->nodes[x];

	for (size_t i = 0; i < r->g->nentrances; i++) {
		long p = r->g->entrances[i].node == x
		                 ? ring_port_find(r->rp, x, r->names->entrance[i])
		                 : -1;
		size_t b;

		if (p < 0 || r->constant[r->rp->ports[p].chan])
			continue;
		b = port_slot(g, (size_t)p, item);
		wrote(g, b, 0);
		if (g->me == 0)
			add(g, (struct act){ACT_FILL, b, 0, i, item, step});
	}
	for (size_t k = 0; k < nr->nports; k++)
		if (arg_is_read(r->rp->ports[nr->ports[k]].kind))
			bring(g, port_slot(g, nr->ports[k], item), nr->rank, step);
	if (g->me == nr->rank)
		add(g, (struct act){ACT_RUN, 0, 0, x, item, step});
	for (size_t k = 0; k < nr->nports; k++)
		if (arg_is_written(r->rp->ports[nr->ports[k]].kind))
			wrote(g, port_slot(g, nr->ports[k], item), nr->rank);
}

static void walk_exits(struct granks *g, size_t x, size_t item, size_t step)
{
	struct graphranks *r = g->r;

	for (size_t i = 0; i < r->g->nexits; i++) {
		size_t b;

		if (r->g->exits[i].node != x || !r->exit_dumped(r->arg, i, item))
			continue;
		b = port_slot(g, (size_t)ring_port_find(r->rp, x, r->names->exit[i]), item);
		bring(g, b, 0, step);
		if (g->me == 0)
			add(g, (struct act){ACT_DUMP, b, 0, i, item, step});
	}
}

/* This rank's actions of step t (the walk goes a step at a time: a stream's actions are
 * not all held at once). */
static void walk_step(struct granks *g, size_t t)
{
	const struct peast_plan *p = g->r->plan;
	size_t period = g->r->rp->period, s = g->r->stage_of(p, period, t);

	g->nacts = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1]; k++) {
			size_t x = p->stage_node[k], item = (t - p->depth[x]) / period;

			if (t < p->depth[x] || item >= g->r->items)
				continue;
			if (pass == 0)
				walk_run(g, x, item, t);
			else
				walk_exits(g, x, item, t);
		}
}

/* The slots, and who holds their data after the startup's fills (the replica table). */
static int index_slots(struct granks *g)
{
	struct graphranks *r = g->r;
	const struct replicas *rep = r->replicas;

	g->first = xcalloc(r->rp->nchans + 1, sizeof(*g->first));
	for (size_t c = 0; c < r->rp->nchans; c++) {
		g->first[c] = g->nslots;
		g->nslots += r->rp->chans[c].ring;
	}
	g->slots = xcalloc(g->nslots + 1, sizeof(*g->slots));
	g->holds = xcalloc(g->nslots * (size_t)g->size + 1, 1);
	for (size_t c = 0; c < r->rp->nchans; c++)
		for (size_t s = 0; s < r->rp->chans[c].ring; s++) {
			struct slot *sl = &g->slots[g->first[c] + s];
			struct vbuf v;

			sl->name = r->buf[c][s];
			if (vbuf_lookup(r->vbufs, sl->name, &v, r->e))
				return -1;
			sl->shm = xstrdup(v.shm);
			sl->bytes = v.bytes;
			vbuf_entry_free(&v);
			for (int k = 0; k < g->size; k++)
				holds(g, g->first[c] + s)[k] = replicas_current(rep, sl->name, k);
		}
	return 0;
}

/* ---- taking the actions ---- */

/* The step's name, as the step-by-step run gives it in messages. */
static void at_step(struct granks *g, size_t t)
{
	const struct peast_plan *p = g->r->plan;

	err_prefix(g->r->e, "step %zu, %s stage %zu: ", t + 1,
	           t < p->nstartup ? "startup" : "repeat",
	           g->r->stage_of(p, g->r->rp->period, t) + 1);
}

static void fail(struct granks *g, int status)
{
	if (g->status == 0) {
		g->status = status;
		memcpy(g->err.msg, g->r->e->msg, sizeof(g->err.msg));
	}
	if (g->flow)
		ranks_flow_fail(g->flow);
}

static void result_out(struct granks *g)
{
	double now = clock_ms() - g->t0;

	if (g->results++ == 0)
		g->first_ms = now;
	g->last_ms = now;
}

/* A run that ended in failure fails the rank. */
static void jobs_check(struct granks *g)
{
	int ended;

	if (g->status == 0 && (ended = jobs_sync_ended(g->r->jobs, g->r->e)) != 0)
		fail(g, ended);
}

/* Whether this rank still runs, fills and dumps: nothing failed here, no notice came from
 * another rank, no empty message from upstream. */
static bool going(struct granks *g)
{
	return g->status == 0 && !g->stopped && !ranks_flow_failed(g->flow);
}

/* Complete what arrived or left, and note the items' ends; 1 when something did. */
static int progress(struct granks *g)
{
	size_t kept = 0;
	int moved = 0;

	for (size_t i = 0; i < g->nfl; i++) {
		if (ranks_flow_done(g->flow, g->fl[i].msg)) {
			hazard_release(g->r->hz, g->fl[i].cl);
			g->stopped |= g->fl[i].recv && ranks_flow_empty(g->flow, g->fl[i].msg);
			moved = 1;
		} else {
			g->fl[kept++] = g->fl[i];
		}
	}
	g->nfl = kept;
	while (g->watched < g->nwatch && hazard_ready(g->r->hz, g->watch[g->watched])) {
		hazard_release(g->r->hz, g->watch[g->watched++]);
		result_out(g);
		moved = 1;
	}
	jobs_check(g);
	if (g->status == 0 && g->r->interrupted && *g->r->interrupted) {
		err_set(g->r->e, "interrupted");
		fail(g, 130);
	}
	return moved;
}

/* Wait for cl's buffers, testing the messages meanwhile (the header says why this ends). */
static void wait_ready(struct granks *g, struct claim *cl)
{
	struct hazards *hz = g->r->hz;

	hazard_register(hz, cl);
	while (!hazard_ready(hz, cl))
		if (!progress(g)) {
			struct timespec ts = {0, 50000};

			sched_yield();
			nanosleep(&ts, NULL);
		}
	jobs_check(g); /* a run this waited for may have failed */
}

static struct claim *slot_claim(struct granks *g, size_t b, bool writes)
{
	char *label = xasprintf("graph %s: %s of '%s'", g->r->g->name,
	                        writes ? "a message into" : "a message from", g->slots[b].name);
	struct claim *cl = claim_new(label);

	free(label);
	claim_use(cl, g->slots[b].shm, g->slots[b].name, writes);
	return cl;
}

static void message(struct granks *g, const struct act *a)
{
	struct slot *sl = &g->slots[a->buf];
	bool sends = a->kind == ACT_SEND;
	struct claim *cl = slot_claim(g, a->buf, !sends);
	struct cs_err e;

	wait_ready(g, cl);
	if (!sl->map && !(sl->map = vbuf_map(sl->shm, sl->bytes, true, &e)))
		ranks_fatal("graph %s: moving '%s': %s", g->r->g->name, sl->name, e.msg);
	/* Shared memory is what travels (data/vhome.h). */
	if (sends && homes_to_host(g->r->homes, g->r->workers, sl->shm, sl->name, &e))
		ranks_fatal("graph %s: moving '%s': %s", g->r->g->name, sl->name, e.msg);
	if (!sends)
		vhome_host_wrote(g->r->homes, sl->shm);
	if (g->nfl == g->flcap) {
		g->flcap = g->flcap ? 2 * g->flcap : 32;
		g->fl = xrealloc(g->fl, g->flcap * sizeof(*g->fl));
	}
	/* A rank that stopped sends empty messages: no rank downstream runs on its data. */
	g->fl[g->nfl++] =
	        (struct flight){ranks_flow_post(g->flow, sends && !going(g) ? NULL : sl->map,
	                                        sl->bytes, a->peer, sends, (int)a->buf),
	                        cl, !sends};
}

/* A run waits for every slot it reads or writes to be free here. */
static void run_ready(struct granks *g, const struct act *a)
{
	const struct graphranks_node *nr = &g->r->nodes[a->what];
	struct claim *cl = claim_new("graph run");

	for (size_t k = 0; k < nr->nports; k++) {
		const struct ring_port *p = &g->r->rp->ports[nr->ports[k]];
		const struct slot *sl = &g->slots[port_slot(g, nr->ports[k], a->item)];

		claim_use(cl, sl->shm, sl->name, arg_is_written(p->kind));
	}
	wait_ready(g, cl);
	hazard_release(g->r->hz, cl);
}

static void host_ready(struct granks *g, size_t b, bool writes)
{
	struct claim *cl = slot_claim(g, b, writes);

	wait_ready(g, cl);
	hazard_release(g->r->hz, cl);
}

/* For --report: a claim on the slots the run uses, registered after the run's own, is
 * ready once the run ended; progress() notes when. */
static void watch_run(struct granks *g, const struct act *a)
{
	const struct graphranks_node *nr = &g->r->nodes[a->what];
	struct claim *cl = claim_new("graph report");

	for (size_t k = 0; k < nr->nports; k++) {
		const struct ring_port *p = &g->r->rp->ports[nr->ports[k]];
		const struct slot *sl = &g->slots[port_slot(g, nr->ports[k], a->item)];

		claim_use(cl, sl->shm, sl->name, !arg_is_written(p->kind));
	}
	hazard_register(g->r->hz, cl);
	g->watch = xrealloc(g->watch, (g->nwatch + 1) * sizeof(*g->watch));
	g->watch[g->nwatch++] = cl;
}

/* Whether action a started (rc 0); else every rank stops, with a's step named. */
static bool started(struct granks *g, const struct act *a, int rc)
{
	if (rc == 0)
		return true;
	at_step(g, a->step);
	fail(g, 1);
	return false;
}

static void take(struct granks *g, const struct act *a)
{
	struct graphranks *r = g->r;

	switch (a->kind) {
	case ACT_SEND:
	case ACT_RECV:
		message(g, a);
		return;
	case ACT_FILL:
		host_ready(g, a->buf, true);
		if (going(g))
			started(g, a, r->fill_entrance(r->arg, a->what, a->item));
		return;
	case ACT_RUN:
		run_ready(g, a);
		if (going(g) && started(g, a, r->start_run(r->arg, a->what, a->item)) && going(g) &&
		    a->what == g->last)
			watch_run(g, a);
		return;
	case ACT_DUMP:
		host_ready(g, a->buf, false);
		if (going(g))
			started(g, a, r->dump_exit(r->arg, a->what, a->item));
		return;
	}
}

static void granks_free(struct granks *g)
{
	for (size_t b = 0; b < g->nslots; b++) {
		vbuf_unmap(g->slots[b].map, g->slots[b].bytes);
		free(g->slots[b].shm);
	}
	free(g->slots);
	free(g->first);
	free(g->holds);
	free(g->acts);
	free(g->fl);
	free(g->watch);
}

/* The end: every message completed, every job ended, one agreement on the outcome. */
static int finish(struct granks *g)
{
	struct cs_err sync_err;
	int rc;

	while (g->nfl)
		if (!progress(g))
			sched_yield();
	rc = jobs_sync(g->r->jobs, 0, &sync_err);
	if (rc && g->status == 0) {
		g->status = rc;
		g->err = sync_err;
	}
	ranks_flow_close(g->flow);
	g->flow = NULL;
	/* Every run ended: every watch is ready. */
	while (g->watched < g->nwatch) {
		hazard_release(g->r->hz, g->watch[g->watched++]);
		result_out(g);
	}
	rc = ranks_agree(g->status, &g->err);
	if (rc) {
		memcpy(g->r->e->msg, g->err.msg, sizeof(g->err.msg));
		err_prefix(g->r->e, "%s: ", g->r->g->file);
	}
	return rc ? -1 : 0;
}

/* The report's figures, from the rank of the last node: the first result, the last, how many. */
static void note_times(struct graphranks *r, struct granks *g)
{
	double t[3] = {g->first_ms, g->last_ms, (double)g->results};

	ranks_bcast(t, sizeof(t), r->nodes[g->last].rank);
	r->first_ms = t[0];
	r->last_ms = t[1];
	r->results = (size_t)t[2];
}

int graphranks_run(struct graphranks *r)
{
	struct granks g = {.r = r, .me = ranks_rank(), .size = ranks_size()};
	int rc;

	if (index_slots(&g)) {
		/* The same buffers on every rank: a lookup fails on all or none. */
		granks_free(&g);
		return -1;
	}
	for (size_t x = 0; x < r->g->nnodes; x++)
		if (r->plan->depth[x] > r->plan->depth[g.last])
			g.last = x;
	g.flow = ranks_flow_open();
	g.t0 = clock_ms();
	for (size_t t = 0; t < r->steps; t++) {
		walk_step(&g, t);
		for (size_t i = 0; i < g.nacts; i++)
			take(&g, &g.acts[i]);
	}
	rc = finish(&g);
	note_times(r, &g);
	granks_free(&g);
	return rc;
}
