/*
 * Running a pipeline graph (docs/graphs.md, "Running a graph"; 004 §4.2.2-4.2.3, §4.3.4).
 *
 * PEA-ST (graph/peast.c) gives the stages: the startup, run once, and the repeat batch, run
 * once per further item. The run of node x for item k is step depth[x] + k * period, where
 * period is the repeat batch's length; a step is one stage of one of the two batches, and
 * its runs go as background jobs followed by a sync, exactly as in the batches `peast -o`
 * writes. The steps after the last item entered are the drain: the repeat batch with the
 * runs of items that do not exist left out.
 *
 * Every item needs its own data on every edge while it is in flight (graph/ring.h): each
 * channel (an output stream and the streams that read it) is a ring of virtual buffers, and
 * each run binds its node's ports to the slots of its item. An item's entrance data are
 * filled into their slot before its first run; its exit data are dumped right after the run
 * that makes them; a feedback edge's initial data fill the slot of "item -1" before the
 * startup. With --serial the same runs go one at a time, item after item, each node after
 * the nodes it reads from: running the flow-models one after another.
 */
#include <stdio.h>
#include <string.h>

#include "runner/graphrun-int.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "mpi/ranks.h"

/* --trace: the plan, then one line per step. */
static void trace_plan(const struct grun *r)
{
	const struct peast_plan *p = &r->plan;

	fprintf(stderr,
	        "graph %s: %zu item%s, root %s, shift %zu, %zu startup and %zu repeat stages\n",
	        r->g->name, r->items, r->items == 1 ? "" : "s", grun_node_name(r, p->root),
	        p->shift, p->nstartup, r->rp.period);
	for (size_t c = 0; c < r->rp.nchans; c++) {
		const struct ring_channel *ch = &r->rp.chans[c];
		const struct ring_port *o = &r->rp.ports[ch->origin];

		fprintf(stderr, "channel %s.%s (%zu buffer%s%s):%s", grun_node_name(r, o->node),
		        o->stream, ch->ring, ch->ring == 1 ? "" : "s",
		        r->constant[c] ? ", filled once" : "", o->entrance >= 0 ? " entrance" : "");
		for (size_t i = 0; i < r->rp.nports; i++) {
			const struct ring_port *rp = &r->rp.ports[i];

			if (rp->chan == c && i != ch->origin)
				fprintf(stderr, " %s.%s%s", grun_node_name(r, rp->node), rp->stream,
				        rp->lag ? "(item before)" : "");
		}
		fputc('\n', stderr);
	}
}

/* 004 §4.2.5 across MPI ranks (docs/scale-out.md): a node runs on its rank="N" (modulo the
 * ranks), else the nodes of each repeat stage go round robin, the count going on from one
 * stage to the next, so that the runs of a stage, which run at once, are on different
 * ranks and every rank gets its share of the pass. Every rank computes the same. */
static void place_nodes(struct grun *r)
{
	const struct peast_plan *p = &r->plan;
	int size = ranks_size(), next = 0;

	for (size_t x = 0; x < r->g->nnodes; x++)
		r->nodes[x].rank = r->g->nodes[x].rank >= 0 ? r->g->nodes[x].rank % size : -1;
	for (size_t s = p->nstartup; s < p->nstages; s++)
		for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1]; k++) {
			struct node_run *nr = &r->nodes[p->stage_node[k]];

			if (nr->rank < 0) {
				nr->rank = next;
				next = (next + 1) % size;
			}
		}
	for (size_t x = 0; x < r->g->nnodes; x++)
		if (r->nodes[x].rank < 0) /* in no repeat stage: never, with PEA-ST's plan */
			r->nodes[x].rank = 0;
}

static void trace_ranks(const struct grun *r)
{
	if (ranks_size() == 1)
		return;
	fprintf(stderr, "ranks:");
	for (size_t x = 0; x < r->g->nnodes; x++)
		fprintf(stderr, " %s@%d", grun_node_name(r, x), r->nodes[x].rank);
	fputc('\n', stderr);
}

struct run_ref {
	size_t node;
	size_t item;
};

/* One step: the entrance data, the runs at once, a sync, the exit data. */
static int run_step(struct grun *r, const struct run_ref *runs, size_t n, const char *what)
{
	struct cs_err sync_err;
	int rc = 0;

	if (r->o->go->trace) {
		fprintf(stderr, "%s:", what);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %s#%zu", grun_node_name(r, runs[i].node), runs[i].item);
		fputc('\n', stderr);
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = grun_fill_entrances(r, runs[i].node, runs[i].item);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = grun_start_run(r, runs[i].node, runs[i].item);
	/* Whatever happened, the runs started end before the step does, on every rank (each
	 * waits for its own, then all agree: a run that failed on rank 2 stops every rank). */
	if (ranks_agree(jobs_sync(r->c.jobs, 0, &sync_err) ? 1 : 0, &sync_err) != 0 && rc == 0) {
		memcpy(r->e->msg, sync_err.msg, sizeof(r->e->msg));
		rc = 1;
	}
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = grun_dump_exits(r, runs[i].node, runs[i].item);
	if (rc)
		err_prefix(r->e, "%s: %s: ", r->g->file, what);
	return rc ? -1 : 0;
}

static bool interrupted(struct grun *r)
{
	if (r->c.interrupted && *r->c.interrupted) {
		err_set(r->e, "%s: interrupted", r->g->file);
		return true;
	}
	return false;
}

static int run_pipelined(struct grun *r)
{
	const struct peast_plan *p = &r->plan;
	size_t period = r->rp.period, steps = grun_steps(r);
	struct run_ref *runs = xcalloc(r->g->nnodes + 1, sizeof(*runs));
	double pass_ms = 0;
	bool pass_full = true;
	int rc = 0;

	for (size_t t = 0; t < steps && rc == 0; t++) {
		size_t s = grun_stage_of(p, period, t), n = 0;
		char what[96];
		double t0 = clock_ms(), ms;

		for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1]; k++) {
			size_t x = p->stage_node[k], item = (t - p->depth[x]) / period;

			if (item < r->items)
				runs[n++] = (struct run_ref){x, item};
		}
		snprintf(what, sizeof(what), "step %zu, %s stage %zu", t + 1,
		         t < p->nstartup ? "startup" : "repeat", s + 1);
		if (interrupted(r) || (n && run_step(r, runs, n, what)))
			rc = -1;
		ms = clock_ms() - t0;
		if (t < p->nstartup) {
			r->tm.startup_ms += ms;
			r->tm.startup_steps++;
			continue;
		}
		/* A repeat pass is full when all its stages ran all their nodes; the passes
		 * after the last item entered are the drain. */
		pass_ms += ms;
		pass_full &= n == peast_stage_size(p, s);
		if ((t - p->nstartup) % period == period - 1 || t + 1 == steps) {
			if (pass_full && (t - p->nstartup) % period == period - 1) {
				r->tm.full_ms += pass_ms;
				r->tm.full++;
			} else {
				r->tm.part_ms += pass_ms;
				r->tm.part++;
			}
			pass_ms = 0;
			pass_full = true;
		}
	}
	free(runs);
	return rc;
}

static int run_serial(struct grun *r)
{
	const struct peast_plan *p = &r->plan;
	int rc = 0;

	for (size_t item = 0; item < r->items && rc == 0; item++) {
		double t0 = clock_ms();

		for (size_t s = 0; s < p->nstages && rc == 0; s++) {
			for (size_t k = p->stage_start[s]; k < p->stage_start[s + 1] && rc == 0;
			     k++) {
				struct run_ref run = {p->stage_node[k], item};
				char what[96];

				if (p->depth[run.node] != s)
					continue; /* entry 0 of the execute matrix: each node once
					           */
				snprintf(what, sizeof(what), "item %zu, %s", item,
				         grun_node_name(r, run.node));
				if (interrupted(r) || run_step(r, &run, 1, what))
					rc = -1;
			}
		}
		r->tm.full_ms += clock_ms() - t0;
		r->tm.full++;
	}
	return rc;
}

static double mean(double sum, size_t n)
{
	return n ? sum / (double)n : 0.0;
}

/* One line on standard error; bench/graph.sh reads it. */
static void report(const struct grun *r, double total_ms)
{
	const struct timing *tm = &r->tm;

	if (r->o->go->serial) {
		fprintf(stderr,
		        "graph %s: serial, %zu items, %zu runs: setup %.1f ms; %.1f ms per item; "
		        "total %.1f ms\n",
		        r->g->name, r->items, tm->jobs, tm->setup_ms, mean(tm->full_ms, tm->full),
		        total_ms);
		return;
	}
	if (tm->ranks) {
		fprintf(stderr,
		        "graph %s: pipelined over %d ranks as inputs arrive, %zu items, %zu runs "
		        "on rank 0, root %s, shift %zu: setup %.1f ms; first result %.1f ms; %zu "
		        "results after it %.1f ms each; total %.1f ms\n",
		        r->g->name, tm->ranks, r->items, tm->jobs, grun_node_name(r, r->plan.root),
		        r->plan.shift, tm->setup_ms, tm->startup_ms, tm->full,
		        mean(tm->full_ms, tm->full), total_ms);
		return;
	}
	fprintf(stderr,
	        "graph %s: pipelined, %zu items, %zu runs, root %s, shift %zu: setup %.1f ms; "
	        "startup %zu steps %.1f ms; repeat %zu full passes %.1f ms each; drain %zu "
	        "passes %.1f ms; total %.1f ms\n",
	        r->g->name, r->items, tm->jobs, grun_node_name(r, r->plan.root), r->plan.shift,
	        tm->setup_ms, tm->startup_steps, tm->startup_ms, tm->full,
	        mean(tm->full_ms, tm->full), tm->part, tm->part_ms, total_ms);
}

/* ---- the whole run ---- */
static void grun_free(struct grun *r)
{
	const struct graph *g = r->g;

	for (size_t i = 0; r->nodes && i < g->nnodes; i++) {
		exe_free(r->nodes[i].exe);
		free(r->nodes[i].label);
		free(r->nodes[i].ports);
		free(r->nodes[i].binds);
	}
	free(r->nodes);
	for (size_t i = 0; r->entrance && i < g->nentrances; i++)
		graph_data_free(&r->entrance[i]);
	for (size_t i = 0; r->exit && i < g->nexits; i++)
		graph_data_free(&r->exit[i]);
	for (size_t i = 0; r->init && i < g->nedges; i++)
		graph_data_free(&r->init[i]);
	free(r->entrance);
	free(r->exit);
	free(r->init);
	free(r->constant);
	grun_names_free(&r->names, g);
	ring_plan_free(&r->rp);
	if (r->have_plan)
		peast_plan_free(&r->plan);
}

static int run_graph(struct grun *r)
{
	double t0 = clock_ms();
	int rc;

	if (grun_plan(r) || grun_bind_data(r))
		return 1;
	rc = grun_decide_items(r);
	if (rc)
		return rc;
	if (grun_check_data(r))
		return 1;
	rc = grun_prepare(r);
	r->tm.setup_ms = clock_ms() - t0;
	if (rc == 0)
		place_nodes(r);
	if (rc == 0 && r->o->go->trace) {
		trace_plan(r);
		trace_ranks(r);
	}
	if (rc == 0)
		rc = r->o->go->serial      ? run_serial(r)
		     : grun_ranks_async(r) ? grun_run_ranks(r)
		                           : run_pipelined(r);
	grun_delete_buffers(r);
	if (rc == 0 && r->o->go->report)
		report(r, clock_ms() - t0);
	return rc ? 1 : 0;
}

/* Run the <CarshGraph> file path with the words after it (NODE.STREAM=DATA and STREAM=DATA
 * bindings, NAME=VALUE parameters) and the options go (NULL: the defaults). Returns the
 * status with the message in e: 2 for a usage error, 1 for any other failure. */
static int graph_run_file(struct run_ctx *c, const char *path, int argc, char **argv,
                          const struct graph_run_opts *go, struct cs_err *e)
{
	static const struct graph_run_opts defaults;
	struct options o = {.go = go ? go : &defaults};
	struct grun r = {0};
	int rc;

	rc = grun_parse_words(path, argc, argv, &o, e);
	if (rc) {
		grun_options_free(&o);
		return rc;
	}
	if (graph_read(path, &r.g, e)) {
		grun_options_free(&o);
		return 1;
	}
	r.o = &o;
	r.e = e;
	/* The runs' scope: the command line, the caller's, the graph's <Param>s. */
	scope_init(&r.scope);
	scope_push(&r.scope, &o.args);
	scope_append(&r.scope, c->caller);
	scope_push(&r.scope, &r.g->params);
	r.c = *c;
	r.c.caller = &r.scope;
	r.c.jobs = jobs_new();
	r.c.quiet = true;
	r.c.background = false;
	r.c.placed = NULL; /* its runs are placed by the graph, not by a batch around it */
	r.c.depth++;
	rc = run_graph(&r);
	/* Nothing of ours may still run (an error between start and sync) or stay behind. */
	if (jobs_running(r.c.jobs) || r.buf) {
		struct cs_err ignored;

		jobs_sync(r.c.jobs, 0, &ignored);
		grun_delete_buffers(&r);
	}
	jobs_free(r.c.jobs);
	grun_free(&r);
	graph_free(r.g);
	grun_options_free(&o);
	return rc;
}

const struct file_kind file_kind_graph = {
        .root = "CarshGraph",
        .graph_opts = true,
        .one_job = true,
        .run = graph_run_file,
};
