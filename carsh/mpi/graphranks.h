/*
 * A pipeline graph across MPI ranks, each rank firing its runs as its inputs arrive
 * (docs/scale-out.md "Pipeline graphs across ranks"; mpi/graphranks.c says how). The graph
 * runner (runner/graphrun.c) plans the run, places the nodes on ranks and makes the rings'
 * buffers; it hands them over in a struct graphranks, with the three things it does on this
 * rank when the schedule comes to them: fill an entrance's slot, start a node's run, dump an
 * exit's slot.
 */
#ifndef CARSH_MPI_GRAPHRANKS_H
#define CARSH_MPI_GRAPHRANKS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "data/vbuf.h"
#include "data/vhome.h"
#include "exec/hazard.h"
#include "exec/jobs.h"
#include "graph/peast.h"
#include "graph/ring.h"
#include "model/graph.h"
#include "mpi/replicas.h"

struct workers;

/* A node as the ranks run it. */
struct graphranks_node {
	int rank;            /* the rank that runs it */
	const size_t *ports; /* its ring ports */
	size_t nports;
};

struct graphranks {
	const struct graph *g;
	const struct peast_plan *plan;
	const struct ring_plan *rp;
	const struct graph_streams *names;
	const struct graphranks_node *nodes; /* per node */
	const bool *constant;                /* per channel: filled once for every item */
	char ***buf;                         /* per channel, per slot: its virtual buffer */
	size_t items;
	size_t steps; /* of the pipelined run */
	/* The stage of step t (runner/graphrun-int.h). */
	size_t (*stage_of)(const struct peast_plan *p, size_t period, size_t t);

	/* The shell's session: its buffers, where their data is, its hazards and jobs. */
	struct vbuf_table *vbufs;
	struct replicas *replicas;
	struct hazards *hz;
	struct vhome *homes;
	struct workers *workers;
	struct jobs *jobs; /* where the runs go */
	volatile sig_atomic_t *interrupted;

	/* The graph runner's work on this rank, each called with arg: 0, else with the
	 * message in e. */
	int (*fill_entrance)(void *arg, size_t entrance, size_t item);
	int (*start_run)(void *arg, size_t node, size_t item);
	int (*dump_exit)(void *arg, size_t exit, size_t item);
	/* Whether exit's data of item go to a file. */
	bool (*exit_dumped)(const void *arg, size_t exit, size_t item);
	void *arg;
	struct cs_err *e;

	/* Out, the same on every rank: when the first and the last item ended (ms from the
	 * start) and how many did. */
	double first_ms, last_ms;
	size_t results;
};

/* The pipelined run across ranks, every rank at the same point: 0, or -1 with the message
 * in r->e (the same on every rank: the ranks agree on the outcome). */
int graphranks_run(struct graphranks *r);

#endif
