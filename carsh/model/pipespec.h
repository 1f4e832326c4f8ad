/*
 * <CarshPipeline> (docs/pipeline.md): a linear pipeline of flow-models over a stream of
 * items, 000's Input stage, s parallel stages and Output stage. Every item carries the
 * buffers of <Item>; the <Source> fills one of them (from a file per item, or from a
 * generator flow-model), each <Stage> binds its flow-model's streams to item buffers, the
 * <Sink> writes one of them to a file per item. Expressions stay text until a scope is known
 * (model/pipeplan.h evaluates them).
 */
#ifndef CARSH_MODEL_PIPESPEC_H
#define CARSH_MODEL_PIPESPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "data/params.h"
#include "data/types.h"
#include "util/error.h"

/* A stage mapping is a bit mask (model of 000 §III-B: one 0/1 per stage). */
#define PIPE_MAX_STAGES  16
#define PIPE_MAX_BUFFERS 64

struct pipe_buffer {
	char *name;
	struct cs_type type;
	char *count; /* expression */
	int line;
};

struct pipe_bind {
	char *stream;
	char *buffer;
	int line;
};

struct pipe_stage {
	char *name;
	char *flowmodel; /* path, relative paths already joined to the pipeline's directory */
	bool gpu;        /* false: gpu="no", the stage stays on the CPU */
	struct pipe_bind *binds;
	size_t nbinds;
	int line;
};

struct pipe_source {
	char *buffer;
	char *files;     /* glob pattern (joined), or NULL */
	char *generator; /* flow-model path (joined), or NULL */
	char *count;     /* with a generator: the number of items (expression) */
	int line;
};

struct pipe_sink {
	char *buffer;
	char *files;   /* pattern with {name} and {index} (joined) */
	char *columns; /* values per CSV row (expression), or NULL */
	int line;
};

struct pipe_desc {
	char *name;
	char *file;
	char *dir;
	struct params params; /* defaults: weaker than the caller's */
	struct pipe_buffer *bufs;
	size_t nbufs;
	struct pipe_source source;
	struct pipe_stage *stages;
	size_t nstages;
	struct pipe_sink sink;
};

/* Read and check a pipeline file: every name unique, every buffer a Bind, the Source or the
 * Sink names declared in <Item>, one Source and one Sink, 1 to PIPE_MAX_STAGES stages. */
int pipe_desc_read(const char *path, struct pipe_desc **out, struct cs_err *e);
void pipe_desc_free(struct pipe_desc *p);
/* The buffer called name, or -1. */
int pipe_desc_buffer(const struct pipe_desc *p, const char *name);

#endif
