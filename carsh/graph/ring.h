/*
 * The buffers of a pipelined graph run (docs/graphs.md, "Running a graph"). 004 §4.2.2
 * gives every flow-model its own input and output buffers and moves the data between them
 * (Figure 16), so that a producer never waits for its consumer; PEA-ST's consistency shift
 * (§4.3.4) orders the runs so that "no I/O buffer collisions" occur. Here the data of one
 * output stream and all the streams that read it share one ring of virtual buffers, a
 * *channel*, with as many buffers as items whose data are alive at once: one on most
 * channels, because the shift lets a producer run again only after its consumers have
 * read; two where an InOut stream carries an item's data across more stages than the shift,
 * or where a node reads its own previous output.
 *
 * The run of node x for item k happens in step depth[x] + k * period of the schedule, where
 * period is the length of the repeat batch. A port's lag is 1 when it reads the previous
 * item's data over a feedback edge, else 0: the run for item k uses the channel's data of
 * item k - lag, in slot (k - lag) mod ring. Slot ring - 1 holds the initial data, "item -1".
 */
#ifndef CARSH_GRAPH_RING_H
#define CARSH_GRAPH_RING_H

#include <stdbool.h>
#include <stddef.h>

#include "graph/peast.h"
#include "model/graph.h"
#include "runtime/plan.h"

/* The stream names of every edge end, entrance and exit, resolved (none NULL). */
struct graph_streams {
	char **edge_out; /* per edge */
	char **edge_in;
	char **entrance; /* per entrance */
	char **exit;     /* per exit */
};

/* The kind (Input, Output or InOut) of a node's stream, from its flow-model; -1 with a
 * message when it has none of that name. */
typedef int (*stream_kind_fn)(void *ctx, size_t node, const char *stream, enum arg_kind *kind,
                              struct cs_err *e);

/* A stream of a node that the graph names. */
struct ring_port {
	size_t node;
	const char *stream; /* points into the graph_streams */
	enum arg_kind kind;
	size_t chan;
	size_t lag;    /* 0 or 1 */
	size_t step;   /* the step of its run for item 0: depth + lag * period */
	long entrance; /* the <Entrance> that feeds it, or -1 */
	long fed_by;   /* the edge that feeds it, or -1 */
};

struct ring_channel {
	size_t origin;    /* the port that writes an item's data first: an Output or an entrance */
	size_t ring;      /* buffers */
	bool read_only;   /* fed by an entrance and only read (no InOut): the same data may serve
	                     every item */
	long init_edge;   /* a feedback edge whose initial data fill slot ring - 1, or -1 */
	size_t nfeedback; /* feedback edges inside it */
	size_t first;     /* steps of the first and the last use of item 0's data */
	size_t last;
};

struct ring_plan {
	size_t period; /* steps between two items' runs of a node: the repeat batch's length */
	struct ring_port *ports;
	size_t nports;
	struct ring_channel *chans;
	size_t nchans;
};

/* Channels, lags and ring sizes for plan p. Errors name the graph's file and line: an edge
 * that leaves an Input stream, an InOut stream that nothing feeds, two writers of one
 * channel, an InOut stream that changes data another stream reads, a port two feedback
 * edges away from its data. */
int ring_plan_build(const struct graph *g, const struct peast_plan *p,
                    const struct graph_streams *names, stream_kind_fn kind, void *ctx,
                    struct ring_plan *out, struct cs_err *e);
void ring_plan_free(struct ring_plan *r);
/* The port (node, stream), or -1. */
long ring_port_find(const struct ring_plan *r, size_t node, const char *stream);
/* The slot that port uses in its run for item k. */
size_t ring_slot(const struct ring_plan *r, const struct ring_port *port, size_t item);

#endif
