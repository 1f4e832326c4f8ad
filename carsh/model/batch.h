/*
 * <CarshBat> (DESIGN §3.4): a scenario of steps. The reader keeps expressions as text; the
 * batch runner (cmd/batch.c) evaluates them in the batch's scope when a step runs, turning
 * each step into the same command objects the shell produces.
 */
#ifndef CARSH_MODEL_BATCH_H
#define CARSH_MODEL_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "data/params.h"
#include "data/until.h"
#include "model/exe.h"

enum step_kind {
	STEP_VIRTBUF, /* <Virtbuf op=...> */
	STEP_EXEC,    /* <Exec file=... background=...> or an inline <CarshExe> */
	STEP_SYNC,    /* <Sync/> */
	STEP_REPEAT,  /* <Repeat count=...> steps </Repeat> */
	STEP_BATCH,   /* <Batch file=...> <Param .../> </Batch> */
	STEP_COMMAND, /* <Command>any carsh command line</Command> */
	STEP_ECHO,    /* <Echo>text</Echo> */
};

enum vbuf_op { VB_CREATE, VB_FILL, VB_DUMP, VB_SWAP, VB_DELETE };

struct step {
	enum step_kind kind;
	int line;
	/* STEP_VIRTBUF */
	enum vbuf_op op;
	char *name;    /* create fill dump swap delete (delete: NULL with all); STEP_REPEAT:
	                  index=, the parameter holding the iteration (0 to count-1), or NULL */
	char *with;    /* swap */
	char *type;    /* create */
	char *count;   /* create: expression; STEP_REPEAT: expression */
	char *value;   /* fill value= */
	char *columns; /* dump columns= expression */
	bool all;      /* delete all="true" */
	/* STEP_VIRTBUF fill/dump file=, STEP_EXEC file=, STEP_BATCH file= (relative to the
	 * batch's directory, already joined) */
	char *file;
	/* STEP_EXEC */
	struct exe *exe; /* inline <CarshExe>, or NULL */
	bool background;
	int rank;           /* rank="N" (a rank number), or one of: */
#define STEP_RANK_NONE (-2) /* not given: placed by the batch runner */
#define STEP_RANK_AUTO (-1) /* rank="auto": where most of what it reads is current */
	/* STEP_REPEAT */
	bool has_until;     /* until= (then count is NULL and max holds the limit) */
	struct until until; /* the stop condition, checked after each run of the body */
	char *max;          /* until's iteration limit: an expression */
	struct step *steps;
	size_t nsteps;
	/* STEP_BATCH: the <Param>s passed to the nested batch */
	struct params params;
	/* STEP_COMMAND, STEP_ECHO */
	char *text;
};

struct batch {
	char *file; /* as given, for messages */
	char *dir;
	struct params params; /* its <Param>s: defaults for its steps */
	struct step *steps;
	size_t nsteps;
};

int batch_read(const char *path, struct batch **out, struct cs_err *e);
/* Read a <CarshBat> element (a file's root). */
int batch_from_node(const struct xml_ctx *x, xmlNodePtr node, struct batch **out);
void batch_free(struct batch *b);
/* As written in the file: a step's element ("Exec") and a <Virtbuf> op ("swap"). */
const char *step_kind_tag(enum step_kind kind);
const char *vbuf_op_name(enum vbuf_op op);

/* What a walk over a batch's steps does with each kind (model/batchwalk.c): every member
 * set; ctx is the walker's own. */
struct step_visitor {
	int (*virtbuf)(void *ctx, const struct step *s);
	int (*exec)(void *ctx, const struct step *s);
	int (*sync)(void *ctx, const struct step *s);
	int (*repeat)(void *ctx, const struct step *s);
	int (*batch)(void *ctx, const struct step *s);
	int (*command)(void *ctx, const struct step *s);
	int (*echo)(void *ctx, const struct step *s);
};

/* v's call for s's kind, and what it returns. */
int step_visit(const struct step *s, const struct step_visitor *v, void *ctx);

/* The scope a batch's steps see (DESIGN §3.1): args (the caller's, strongest; may be NULL),
 * the caller's scope, the batch's own <Param>s as defaults, then BATCH_DIR, which is set in
 * dir (the caller owns dir and frees it after the steps ran). */
void batch_scope(struct scope *sc, const struct params *args, const struct scope *caller,
                 const struct batch *b, struct params *dir);

#endif
