/*
 * Builtins: one file each, declared by one entry (in the style of tmux's cmd-*.c) and listed
 * in cmd-table.c, whose option template says what it takes. Its run function gets the parsed
 * options and the operands, calls the library, and returns a status; on failure it leaves
 * the message in e and the dispatcher prints it.
 */
#ifndef CARSH_CMD_CMD_H
#define CARSH_CMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "model/command.h"
#include "runner/context.h"
#include "runner/shellstate.h"
#include "runner/stats.h"
#include "util/options.h"

struct carsh_cmd {
	const char *name;
	const char *summary; /* a line for `help`; also --help's about unless args.about */
	/* Its option template (util/options.h): the usage line, the options, the count of
	 * operands (min, max) and what one is called; name and about come from the entry. The
	 * dispatcher parses the words after the name with it, options into a zeroed struct of
	 * args_size bytes (prepare, if given, sets its defaults first), and calls run with the
	 * operands in order (operands[n] is NULL). `--help` (first, or anywhere where the
	 * template has options) prints the usage, the about text and the options. */
	struct opt_cmd args;
	size_t args_size;
	void (*prepare)(const struct run_ctx *c, void *args);
	int (*run)(struct run_ctx *c, void *args, int n, char **operands, struct cs_err *e);
	bool words_only; /* every argument is data, even --help (echo) */
	/* Its first argument's words (virtbuf's operations), NULL-terminated: for completion. */
	const char *const *subcommands;
};

/* The table, NULL-terminated, in the order `help` lists it. */
extern const struct carsh_cmd *const cmd_table[];

const struct carsh_cmd *cmd_find(const char *name);

/* Run one parsed command: redirections, background, dispatch. The context derives from
 * parent (NULL: the shell's own, with the shell variables as parameters). Prints its error
 * (with the origin) and returns the status. */
int command_run(struct session *s, const struct command *cmd, const struct run_ctx *parent);

/* Run argv as a command inside an existing context (for `time`, `repeat`, batch steps). */
int cmd_exec_argv(struct run_ctx *c, int argc, char **argv, struct cs_err *e);

/* Run argv as a background job in a thread of its own (`repeat`, any builtin but `run`):
 * the job gets a snapshot of the parameters and its own standard input and output. */
int cmd_background(struct run_ctx *c, int argc, char **argv, struct cs_err *e);

/* --root NODE and --max-parallel N, for every builtin that schedules with PEA-ST (peast,
 * graph, run GRAPH.xml): kept as text, since peast_opts_resolve needs the graph to say
 * what a bad one means. */
#define OPT_PEAST_CHOICE(T, root, max_parallel)                                       \
	OPT_STRING("--root", T, root, "NODE",                                         \
	           "the PEA-ST root (default: the one giving the most parallelism)"), \
	        OPT_STRING("--max-parallel", T, max_parallel, "N",                    \
	                   "the most flow-models a stage may run at once")

/* Set the message and return status: `return cmd_error(e, 1, "cd: %s: ...", dir);`. */
int cmd_error(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Put a prefix in front of the message already in e and return status. */
int cmd_prefix(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Same with ": strerror(errno)" appended. */
int cmd_errno(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif
