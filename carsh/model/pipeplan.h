/*
 * A pipeline description with its parameters evaluated: the item buffers' sizes, a kernel
 * plan per stage whose streams name the item buffers they use, the list of source files or
 * the generator, the sink's file names. Parameters, strongest first: the command line's
 * NAME=VALUE, the caller's (shell variables), the pipeline's <Param>s, the flow-model's
 * defaults; a generator also sees `index`, the item number, stronger than all.
 */
#ifndef CARSH_MODEL_PIPEPLAN_H
#define CARSH_MODEL_PIPEPLAN_H

#include "exec/jobplan.h"
#include "model/exe.h"
#include "model/pipespec.h"

struct pipe_buf {
	const char *name; /* the description's */
	struct cs_type type;
	size_t count; /* elements */
	size_t bytes;
};

struct pipe_stage_plan {
	const char *name; /* the description's */
	bool gpu;
	struct job_plan *jp; /* streams bound to item buffers (binds[i].buffer) */
	int *buf;            /* per kernel argument: the item buffer it uses, or -1 */
};

struct pipe_plan {
	const struct pipe_desc *d; /* borrowed; outlives the plan */
	struct pipe_buf *bufs;
	size_t nbufs;
	struct pipe_stage_plan *stages;
	size_t nstages;
	int src_buf, sink_buf;
	size_t items;
	char **files;    /* a file source, in name order */
	struct exe *gen; /* a generator, around the file cache's flow-model */
	size_t sink_columns;
	struct params args;  /* the command line's, copied */
	struct scope caller; /* the caller's layers (they outlive the plan) */
	const char *device_cli;
};

/* Evaluate d with the command line's args (strongest) and the caller's scope. */
int pipe_plan_new(const struct pipe_desc *d, const struct params *args, const struct scope *caller,
                  struct pipe_plan **out, struct cs_err *e);
void pipe_plan_free(struct pipe_plan *p);

/* The generator's kernel plan for item index: its one Output stream is the source buffer. */
int pipe_plan_generator(const struct pipe_plan *p, size_t index, struct job_plan **out,
                        struct cs_err *e);

/* The item's name for {name}: a source file's base name without its extension, or the item
 * number for a generator. A new string. */
char *pipe_plan_item_name(const struct pipe_plan *p, size_t index);
/* The sink's file for item index ({name} and {index} replaced). A new string. */
char *pipe_plan_sink_path(const struct pipe_plan *p, size_t index);

#endif
