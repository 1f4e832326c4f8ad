/*
 * Options of builtins (cmd/), parsed in one place (in the spirit of git's parse_options and tmux's
 * args template) so that every builtin takes them the same way, and its usage, --help and
 * errors for a bad option read the same.
 *
 * A builtin declares a static table of its options, each with where its value goes in the
 * builtin's own argument struct (an offset, so that the table can be static and --help can
 * be printed from it without one); the command dispatcher (cmd/dispatch.c) hands opt_parse
 * the words after its name with the template the builtin's entry holds:
 *
 *	struct peast_args { const char *root, *dir; bool print; };
 *	static const struct opt peast_opts[] = {
 *		OPT_STRING("--root", struct peast_args, root, "NODE", "the PEA-ST root"),
 *		OPT_STRING("-o", struct peast_args, dir, "DIR", "write the batches into DIR"),
 *		OPT_FLAG("--print", struct peast_args, print, "print the stages too"),
 *		OPT_END,
 *	};
 *	const struct carsh_cmd cmd_peast = {.name = "peast", ...,
 *		.args = {.usage = "peast GRAPH.xml [...]", .opts = peast_opts, .min = 1,
 *		         .max = 1, .operand = "graph"},
 *		.args_size = sizeof(struct peast_args), .run = peast_run};
 *
 * and peast_run(c, args, n, operands, e) gets the parsed struct and the operands. Called
 * directly (a builtin with subcommands), it reads:
 *
 *	int n = opt_parse(&spec, &a, argc - 1, argv + 1, &words, e);
 *
 *	if (n < 0)
 *		return opt_failed(n, &spec, c->out);  (--help printed: 0; an error: 2)
 *	... words[0] .. words[n - 1] are the operands; free(words) ...
 *
 * Conventions: options may come anywhere among the operands; "--name=value" and "--name
 * value" mean the same (a short "-o" takes only the next word); the next word is the value
 * even when it starts with '-', so "--steps -1" gives '-1' to --steps to refuse; "--" ends
 * the options; "-", "-:FORMAT" and a word of '-' then a digit ("-1") are operands; "--help"
 * anywhere asks for the help opt_help prints. A template without options (opts NULL) takes
 * every word as an operand. The template also counts the operands (min, max), as tmux's
 * args template does, so that a builtin's run gets only counts it accepts.
 * Errors, one line each: "CMD: unknown option '--x'; usage: USAGE", "CMD: missing value
 * after '--x'; usage: USAGE", "CMD: --x takes no value; usage: USAGE", for a value the
 * option refuses "CMD: --x 'VALUE': expected ...", and for a count of operands out of
 * range "usage: USAGE", or, where the template names its operand, "CMD: no OPERAND given;
 * usage: USAGE" (options but no operand) and "CMD: one OPERAND at a time, not also 'W';
 * usage: USAGE".
 */
#ifndef CARSH_UTIL_OPTIONS_H
#define CARSH_UTIL_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/error.h"

enum opt_type {
	OPT_TYPE_FLAG,    /* bool: set to true; the option takes no value */
	OPT_TYPE_STRING,  /* const char *: the value as given (it points into argv) */
	OPT_TYPE_UINT,    /* an unsigned integer field of any width: a whole number, 1 to max */
	OPT_TYPE_REAL,    /* double: a number above 0, at most max */
	OPT_TYPE_PERCENT, /* double: a percentage from 0 to 100, '%' optional, kept as 0 to 1 */
	OPT_TYPE_CHOICE,  /* int: the index of the value in choices */
	OPT_TYPE_CALL,    /* call(args, value, e) decides what the value means */
};

/* A value callback stores what value means in args (the builtin's argument struct); on a
 * bad value it sets e to what was expected ("expected logfit, static or gpu") and returns
 * -1, and the parser puts "CMD: --name 'VALUE': " in front. */
typedef int (*opt_call_fn)(void *args, const char *value, struct cs_err *e);

struct opt {
	const char *name; /* as typed: "--sched", "-o"; NULL ends a table */
	enum opt_type type;
	size_t offset;              /* where the value goes in the argument struct */
	size_t size;                /* the field's size (OPT_TYPE_UINT writes any unsigned width) */
	const char *arg;            /* the value's name in --help ("N"); NULL for a flag */
	const char *help;           /* its --help text; a '\n' starts a continuation line */
	double max;                 /* OPT_TYPE_UINT, OPT_TYPE_REAL: the largest value */
	const char *const *choices; /* OPT_TYPE_CHOICE: NULL-terminated */
	opt_call_fn call;           /* OPT_TYPE_CALL */
};

/* One table line each; the type of the field is the macro's, not checked. */
/* clang-format off */
#define OPT_FIELD_(T, f) offsetof(T, f), sizeof(((T *)0)->f)
#define OPT_FLAG(name, T, f, help) \
	{name, OPT_TYPE_FLAG, OPT_FIELD_(T, f), NULL, help, 0, NULL, NULL}
#define OPT_STRING(name, T, f, arg, help) \
	{name, OPT_TYPE_STRING, OPT_FIELD_(T, f), arg, help, 0, NULL, NULL}
#define OPT_UINT(name, T, f, arg, max, help) \
	{name, OPT_TYPE_UINT, OPT_FIELD_(T, f), arg, help, max, NULL, NULL}
#define OPT_REAL(name, T, f, arg, max, help) \
	{name, OPT_TYPE_REAL, OPT_FIELD_(T, f), arg, help, max, NULL, NULL}
#define OPT_PERCENT(name, T, f, arg, help) \
	{name, OPT_TYPE_PERCENT, OPT_FIELD_(T, f), arg, help, 0, NULL, NULL}
#define OPT_CHOICE(name, T, f, arg, choices, help) \
	{name, OPT_TYPE_CHOICE, OPT_FIELD_(T, f), arg, help, 0, choices, NULL}
/* A callback sees the whole argument struct: it may set more than one field. */
#define OPT_CALL(name, fn, arg, help) \
	{name, OPT_TYPE_CALL, 0, 0, arg, help, 0, NULL, fn}
#define OPT_END {NULL, OPT_TYPE_FLAG, 0, 0, NULL, NULL, 0, NULL, NULL}
/* clang-format on */

enum {
	OPT_STOP_AT_OPERAND = 1, /* the first operand ends the options (time COMMAND ...) */
	/* "CMD: --x needs a value" for a missing value: pipeline's tests fix this older
	 * wording */
	OPT_SAY_NEEDS_VALUE = 2,
};

/* What a builtin takes; --help prints usage, about, the options, then more. */
struct opt_cmd {
	const char *name;       /* the messages' prefix: "peast", "virtbuf fill" */
	const char *usage;      /* without "usage: " */
	const char *about;      /* a line or more, without the final newline */
	const struct opt *opts; /* NULL: no options, every word is an operand */
	const char *more;       /* after the options, or NULL */
	unsigned flags;
	int min, max;        /* operands: at least min, at most max (OPT_ANY: no limit) */
	const char *operand; /* one operand, for the count's messages ("graph file"), or NULL */
};

#define OPT_ANY (-1)

#define OPT_HELP (-2)

/* Parse the words after the builtin's name (argc, argv) into args and count the operands.
 * Returns the number of operands, with *operands a new NULL-terminated array of them in order,
 * pointing into argv (free it with free()); or OPT_HELP when --help was given; or -1 with the
 * message in e. argv is left as it was: a command may run again (repeat, a batch). */
int opt_parse(const struct opt_cmd *oc, void *args, int argc, char **argv, char ***operands,
              struct cs_err *e);

/* After opt_parse returned rc < 0: prints the help for OPT_HELP and returns 0, else returns
 * 2, the status of a usage error. */
int opt_failed(int rc, const struct opt_cmd *oc, FILE *out);

/* `NAME --help`: the usage, the about text, every option with its help, then more. */
void opt_help(FILE *f, const struct opt_cmd *oc);

/* The typed helpers, for callbacks too: on a bad value e says what was expected. */
int opt_uint(const char *v, double max, unsigned long long *out, struct cs_err *e);
int opt_real(const char *v, double max, double *out, struct cs_err *e);
int opt_percent(const char *v, double *fraction, struct cs_err *e);
int opt_choice(const char *v, const char *const *choices, int *out, struct cs_err *e);

#endif
