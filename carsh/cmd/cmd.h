/*
 * Builtins: one file each, declared by one entry (in the style of tmux's cmd-*.c) and listed
 * in cmd-table.c. An exec function parses its arguments, calls the library, and returns a
 * status; on failure it leaves the message in e and the dispatcher prints it.
 */
#ifndef CARSH_CMD_CMD_H
#define CARSH_CMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/session.h"
#include "data/params.h"
#include "model/command.h"
#include "runtime/runtime.h"

/* Statistics of the foreground jobs a command ran (for `time` and `set stats=on`). */
struct stats_acc {
	int jobs;
	struct run_stats sum;
};

/* What a running command sees. */
struct cmd_ctx {
	struct session *s;
	const char *origin;         /* where the command was written, or NULL */
	const struct scope *caller; /* parameters visible to `run` (batch, then shell) */
	FILE *in;                   /* after redirections */
	FILE *out;
	struct stats_acc *stats; /* where foreground jobs add their statistics */
	bool background;         /* the command ended with '&' */
	bool timed;              /* `time` already prints the statistics */
};

struct carsh_cmd {
	const char *name;
	const char *usage;
	const char *summary;
	int min_args; /* not counting the name */
	int max_args; /* -1: no limit */
	int (*exec)(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e);
};

/* The table, NULL-terminated, in the order `help` lists it. */
extern const struct carsh_cmd *const cmd_table[];

const struct carsh_cmd *cmd_find(const char *name);

/* Run one parsed command in a session: redirections, background, dispatch. Prints its error
 * (with the origin) and returns the status. caller may be NULL (shell variables only). */
int command_run(struct session *s, const struct command *cmd, const struct scope *caller);

/* Run argv as a command inside an existing context (for `time` and `repeat`). */
int cmd_exec_argv(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e);

/* Set the message and return status: `return cmd_error(e, 1, "cd: %s: ...", dir);`. */
int cmd_error(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Same with ": strerror(errno)" appended. */
int cmd_errno(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Add one job's statistics. */
void stats_add(struct stats_acc *acc, const struct run_stats *st);
/* Add everything src holds to dst (a nested `time`). */
void stats_merge(struct stats_acc *dst, const struct stats_acc *src);
/* Print statistics the way `time` does. */
void stats_print(FILE *f, const struct stats_acc *acc, double wall_ms);

#endif
