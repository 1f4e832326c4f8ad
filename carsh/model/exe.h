/* <CarshExe> (DESIGN §3.3): a flow-model bound to data sources and sinks, maybe with swaps. */
#ifndef CARSH_MODEL_EXE_H
#define CARSH_MODEL_EXE_H

#include <stdbool.h>
#include <stddef.h>

#include "exec/jobplan.h"
#include "model/flowmodel.h"

struct exe_bind {
	char *stream;
	enum arg_kind kind; /* the element used: Input, Output or InOut */
	enum bind_kind how;
	char *path;    /* DataFile, relative to the executable's directory; "-" kept */
	char *columns; /* DataFile columns= expression, or NULL */
	char *buffer;  /* Buffer name */
	char *fill;    /* Fill value= */
	char *origin;  /* "FILE:LINE" or "command line" */
};

struct exe_pair {
	char *input;
	char *output;
	int line;
};

struct exe {
	char *file; /* for messages (for a flow-model run from the line: the flow-model's) */
	char *dir;
	int line;
	struct flowmodel *fm; /* owned, unless fm_borrowed */
	bool fm_borrowed;
	struct params params; /* strongest in its scope */
	char *device;         /* <Device select>, or NULL */
	struct exe_bind *binds;
	size_t nbinds;
	bool has_swap;
	char *swap_count;
	enum swap_method swap_method;
	int swap_line;
	struct exe_pair *pairs;
	size_t npairs;
};

int exe_read(const char *path, struct exe **out, struct cs_err *e);
/* Read a <CarshExe> element (a file's root, or inline in a batch). */
int exe_from_node(const struct xml_ctx *x, xmlNodePtr node, struct exe **out);
/* An executable around a flow-model (taken over) with no bindings yet. */
struct exe *exe_wrap_flowmodel(struct flowmodel *fm);
/* The same around a flow-model that stays its owner's (the file cache's). */
struct exe *exe_wrap_shared_flowmodel(const struct flowmodel *fm);
/* Bind a stream from the command line: STREAM=FILE, STREAM=-, STREAM=fill:VALUE,
 * STREAM=buffer:NAME or STREAM=discard. */
int exe_bind_word(struct exe *exe, const char *stream, const char *value, struct cs_err *e);
/* Every stream bound once, with a binding its kind allows; hint says how to bind one. */
int exe_check_bindings(const struct exe *exe, bool from_line, struct cs_err *e);
void exe_free(struct exe *exe);

int swap_method_parse(const char *s, enum swap_method *m);

#endif
