/*
 * Just enough of OpenCL C for `pack` (004 §5.3.1, Figure 46: every kernel of a flow becomes
 * a function of one merged kernel): tokens (comments, strings and preprocessor lines kept
 * apart), the top-level items of a source, its functions with their parameter lists, which
 * of them are kernels, which names it defines, and a rewrite that turns kernels into
 * ordinary functions, renames functions and, for steps that run on fewer work-items than
 * the merged kernel, threads the step's own NDRange through every function (pk_r).
 */
#ifndef CARSH_PACK_CLSRC_H
#define CARSH_PACK_CLSRC_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"
#include "util/strvec.h"

enum cl_tok_kind { CT_IDENT, CT_NUMBER, CT_STRING, CT_PUNCT };

struct cl_tok {
	enum cl_tok_kind kind;
	size_t start, end; /* byte range in the text */
	int directive;     /* index of the preprocessor line it is on, -1 outside */
	int line;
};

/* Address spaces of a pointer parameter. */
enum cl_space { CS_PRIVATE, CS_GLOBAL, CS_CONSTANT, CS_LOCAL };

struct cl_param {
	char *name;
	char *type; /* the declaration without the name, as written ("__global const float *") */
	bool pointer;
	enum cl_space space;
};

struct cl_fn {
	char *name;
	size_t name_tok;
	size_t open, close; /* tokens of the parameter list's parentheses */
	size_t body_open;   /* token of '{', or 0 for a prototype */
	size_t body_close;
	bool kernel;
	size_t first_tok; /* the item's first token */
	int line;
	struct cl_param *params;
	size_t nparams;
};

struct cl_src {
	char *name; /* for messages */
	char *text;
	struct cl_tok *toks;
	size_t ntoks;
	struct cl_fn *fns;
	size_t nfns;
	struct strvec macros;  /* names of #define */
	struct strvec globals; /* typedef names, struct/union/enum tags, enumerators, variables */
};

/* Parse a source. Errors name the source and line ("fft.cl:12: unterminated comment"). */
int clsrc_parse(const char *text, const char *name, struct cl_src **out, struct cs_err *e);
void clsrc_free(struct cl_src *s);

/* The kernel function called name, or NULL. */
const struct cl_fn *clsrc_kernel(const struct cl_src *s, const char *name);
/* Any function called name (kernel or not). */
bool clsrc_defines_fn(const struct cl_src *s, const char *name);

/* The first identifier of the source that starts with prefix (outside comments and
 * strings), or NULL; its line in *line. */
const char *clsrc_find_prefix(const struct cl_src *s, const char *prefix, int *line, char *buf,
                              size_t len);

/* Work-group features that a step run on other work-items than its own NDRange cannot
 * keep: barriers, local ids and sizes, group ids, work-group and sub-group functions,
 * async copies. The first one the kernel uses, directly or through the source's functions
 * it calls, into buf (with the function it is in); false when none. */
bool clsrc_group_feature(const struct cl_src *s, const char *kernel, char *buf, size_t len);
/* A __local variable declared inside the kernel's body (OpenCL C allows those only in
 * kernels, so the kernel cannot become a function); its line in *line. */
bool clsrc_local_variable(const struct cl_src *s, const char *kernel, int *line);

struct cl_rename {
	const char *from;
	const char *to;
};

/* The source rewritten: every kernel becomes a `static` function (kernel-only attributes
 * dropped, __constant pointer parameters become __global const), identifiers in map are
 * renamed (functions only: the map is made from the source's function names), and with
 * range, every function takes `const pk_range pk_r` first and every call passes it on. */
char *clsrc_rewrite(const struct cl_src *s, const struct cl_rename *map, size_t nmap, bool range);

#endif
