/*
 * <CarshGraph> (DESIGN §3.5): a pipeline-model of 004 §4.2.1. Flow-models are nodes (numbered
 * in file order), stream connections are edges; ports are ENTRANCE, EXIT, INTERMEDIATE or
 * INITONCE, each with an iteration limit. The analyses (graph/) work on this in-memory form,
 * so tests can also build one with the graph_add_* functions.
 */
#ifndef CARSH_MODEL_GRAPH_H
#define CARSH_MODEL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#include "data/params.h"
#include "model/xml.h"

/* Refused above these sizes: the cycle and spanning-tree searches are meant for pipelines of
 * flow-models, not for arbitrary large graphs. */
#define GRAPH_MAX_NODES 4096
#define GRAPH_MAX_EDGES 16384

/* 004 §4.2.1: an INTERMEDIATE port needs no initial data; an INITONCE port is initialised
 * before the pipeline starts (and again every `limit` iterations). */
enum edge_kind { EDGE_INTERMEDIATE, EDGE_INITONCE };

/* Data for a port, read by the runner (004 §4.2.3 step 8: the application feeds the ENTRANCE
 * and INITONCE ports and reads the EXIT ports). All NULL when the file gives none; the
 * command line of `run GRAPH.xml` may give or replace it. */
struct graph_data {
	char *file;    /* joined to the graph's directory ("-" kept); "{i}" stands for the item */
	char *value;   /* <Entrance>, <Edge>: every element set to this value */
	char *columns; /* <Exit>: values per row of the file (an expression), or NULL */
	int line;      /* where it was given */
};

/* <Node rank="auto">, or no rank=: the runner places the node (docs/scale-out.md). */
#define GRAPH_RANK_AUTO (-1)

struct graph_node {
	char *name;
	char *exe; /* the executable, joined to the graph's directory; NULL when not given */
	int rank;  /* under MPI, the rank that runs it (modulo the ranks), or GRAPH_RANK_AUTO */
	int line;
};

struct graph_edge {
	size_t from, to;
	char *output; /* stream names of the two flow-models; NULL when not given */
	char *input;
	enum edge_kind kind;
	long limit; /* iteration limit (IT in 004 Figure 15); 1 when not given */
	int line;
	struct graph_data init; /* initial data, for when the edge is a feedback edge */
};

/* <Entrance node= input=> or <Exit node= output=>. */
struct graph_port {
	size_t node;
	char *stream; /* NULL when not given */
	long limit;
	int line;
	struct graph_data data; /* an entrance's source, an exit's destination */
};

struct graph {
	char *name;
	char *file; /* for messages; "" for a graph built in memory */
	char *dir;
	struct graph_node *nodes;
	size_t nnodes;
	struct graph_edge *edges;
	size_t nedges;
	struct graph_port *entrances;
	size_t nentrances;
	struct graph_port *exits;
	size_t nexits;
	struct params params; /* <Param>s: defaults for every node's executable */
};

int graph_read(const char *path, struct graph **out, struct cs_err *e);
/* Read a <CarshGraph> element (a file's root). */
int graph_from_node(const struct xml_ctx *x, xmlNodePtr node, struct graph **out);
void graph_free(struct graph *g);

/* Building a graph in memory (tests, generators). Names are copied; exe may be NULL. */
struct graph *graph_new(const char *name);
size_t graph_add_node(struct graph *g, const char *name, const char *exe);
size_t graph_add_edge(struct graph *g, size_t from, size_t to, enum edge_kind kind);
void graph_add_exit(struct graph *g, size_t node);

/* The node called name, or -1. */
long graph_find_node(const struct graph *g, const char *name);
/* Letters, digits, '_' and '-', not starting with '-': names must print unquoted. */
bool graph_name_valid(const char *name);
/* How many edges go from one node to the other (in that direction). */
size_t graph_count_edges(const struct graph *g, size_t from, size_t to);
const char *edge_kind_name(enum edge_kind k);
void graph_data_free(struct graph_data *d);
/* A copy (strings duplicated). */
struct graph_data graph_data_copy(const struct graph_data *d);
/* "FROM TO", or "FROM.output TO.input" when several edges go from FROM to TO (new string). */
char *graph_edge_ends(const struct graph *g, size_t edge);

#endif
