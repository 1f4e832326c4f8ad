/*
 * The graph runner's own header (the rest of the runner sees only its entry,
 * file_kind_graph: runner/run.h): what a run of a graph holds, and the functions its files
 * share — graphplan.c (the command line, the nodes' executables and ports, where the data
 * come from, the steps of a pipelined run),
 * graphbufs.c (the rings of virtual buffers, filled and dumped through the buffer service),
 * graphspread.c (the run across MPI ranks as inputs arrive, handed to mpi/graphranks.c with
 * graphbufs.c's fill, run and dump) and graphrun.c (the steps and the whole run). graphrun.c
 * calls the other three and graphspread.c the two below it; nothing calls back up.
 */
#ifndef CARSH_RUNNER_GRAPHRUN_INT_H
#define CARSH_RUNNER_GRAPHRUN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "graph/peast.h"
#include "graph/ring.h"
#include "model/exe.h"
#include "model/graph.h"
#include "runner/run.h"

/* A NODE.STREAM=DATA word of the command line. */
struct data_word {
	char *node;
	char *stream;
	char *value;
};

/* The words after the graph's file. */
struct options {
	const struct graph_run_opts *go;
	struct params args; /* NAME=VALUE */
	struct data_word *data;
	size_t ndata;
};

struct node_run {
	struct exe *exe;
	char *label;   /* the executable's file, for job labels */
	bool wrapped;  /* a <FlowModel>: the runner binds every stream */
	size_t *ports; /* ring ports of this node */
	size_t nports;
	struct exe_bind **binds; /* per port: its <Buffer> binding, rebound for every run */
	int rank;                /* under MPI, the rank that runs it (graphrun.c) */
};

struct timing {
	double startup_ms;
	size_t startup_steps;
	double full_ms; /* repeat passes that ran every node */
	size_t full;
	double part_ms; /* the drain */
	size_t part;
	double setup_ms;
	size_t jobs;
	int ranks; /* across ranks as inputs arrive: how many (startup_ms is then the first
	              result, full_ms the time from it to the last, full the results after it) */
};

struct grun {
	struct run_ctx c; /* the runs' context: its own job table and scope */
	struct scope scope;
	struct graph *g;
	struct options *o;
	struct peast_plan plan;
	bool have_plan;
	struct graph_streams names;
	struct ring_plan rp;
	struct node_run *nodes;
	struct graph_data *entrance; /* per entrance, after the command line */
	struct graph_data *exit;     /* per exit */
	struct graph_data *init;     /* per edge */
	bool *constant;              /* per channel: filled once for every item */
	char ***buf;                 /* per channel, per slot: its virtual buffer */
	size_t items;
	struct timing tm;
	bool here; /* across ranks: fills and dumps on this rank alone (graphspread.c) */
	struct cs_err *e;
};

/* graphplan.c */
int grun_parse_words(const char *path, int argc, char **argv, struct options *o, struct cs_err *e);
void grun_options_free(struct options *o);
const char *grun_node_name(const struct grun *r, size_t node);
/* The nodes' executables, the names of their ports, the rings (PEA-ST's plan first). */
int grun_plan(struct grun *r);
/* The entrances', exits' and feedback edges' data: the graph's, then the command line's. */
int grun_bind_data(struct grun *r);
int grun_decide_items(struct grun *r);
int grun_check_data(struct grun *r);
/* The initial data of channel chan, read over feedback edges: *out, or an error. */
int grun_check_init(struct grun *r, size_t chan, const struct graph_data **out);
void grun_names_free(struct graph_streams *nm, const struct graph *g);
bool grun_has_pattern(const struct graph_data *d);
/* pattern with every {i} replaced by the item number. */
char *grun_item_path(const char *pattern, size_t item);
/* The stage of step t: the startup's rows once, then the repeat batch's over and over. */
size_t grun_stage_of(const struct peast_plan *p, size_t period, size_t t);
/* Steps of a pipelined run. */
size_t grun_steps(const struct grun *r);

/* graphbufs.c */
/* Before the first step: the buffers, the data that serve every item, the initial data. */
int grun_prepare(struct grun *r);
void grun_delete_buffers(struct grun *r);
int grun_fill_entrances(struct grun *r, size_t node, size_t item);
int grun_dump_exits(struct grun *r, size_t node, size_t item);
/* Entrance i's data of item into their slot (nothing for data that serve every item). */
int grun_fill_entrance(struct grun *r, size_t i, size_t item);
/* Whether exit i's data of item go to a file, the buffer they are in, and the dump. */
bool grun_exit_dumped(const struct grun *r, size_t i, size_t item);
const char *grun_exit_buffer(const struct grun *r, size_t i, size_t item);
int grun_dump_exit(struct grun *r, size_t i, size_t item);
/* Start node's run for item as a background job, its ports bound to the item's slots. */
int grun_start_run(struct grun *r, size_t node, size_t item);

/* graphspread.c */
/* Whether the runs can go across ranks as their inputs arrive: not with --serial, nor where
 * a node's executable binds a stream to a shell's virtual buffer or to standard input or
 * output (those go through the shell's step-by-step moves), nor with CARSH_GRAPH_STEPS set
 * (the step-synchronous scheme, for comparison). */
bool grun_ranks_async(const struct grun *r);
/* The pipelined run across ranks, each firing its runs as their inputs arrive. */
int grun_run_ranks(struct grun *r);

#endif
