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
#include "exec/executor.h"
#include "model/command.h"
#include "model/exe.h"
#include "runtime/runtime.h"

/* Statistics of the foreground jobs a command ran (for `time` and `set stats=on`). */
struct stats_acc {
	int jobs;
	struct run_stats sum;
};

/* The batch files being run, innermost first: nested batch recursion is refused with the
 * chain. */
struct batch_frame {
	const char *path; /* canonical */
	const char *shown;
	const struct batch_frame *up;
};

/* What a running command sees. */
struct cmd_ctx {
	struct session *s;
	const char *origin;         /* where the command was written, or NULL */
	const struct scope *caller; /* parameters for `run` and ${NAME}: batch, then shell */
	struct params *vars;        /* what `set` and `unset` change */
	FILE *in;                   /* after redirections */
	FILE *out;
	struct stats_acc *stats; /* where foreground jobs add their statistics */
	struct jobs *jobs;       /* where its background jobs go: the shell's or a batch's */
	bool background;         /* the command ended with '&' */
	bool timed;              /* `time` already prints the statistics */
	bool profile;            /* inside `time` (not --wall): the OpenCL times are read */
	bool quiet;              /* no "[N] PID" notices (inside a batch) */
	bool detached; /* in a background job's thread: no Ctrl-C, children in their own group */
	volatile sig_atomic_t *interrupted; /* NULL when detached */
	int depth;                          /* nesting of source and batches */
	const struct batch_frame *frames;
};

struct carsh_cmd {
	const char *name;
	const char *usage;
	const char *summary;
	int min_args; /* not counting the name */
	int max_args; /* -1: no limit */
	int (*exec)(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e);
	/* `NAME --help`: this, else the usage and the summary. */
	void (*help)(FILE *out);
	bool words_only; /* every argument is data, even --help (echo) */
};

/* The table, NULL-terminated, in the order `help` lists it. */
extern const struct carsh_cmd *const cmd_table[];

const struct carsh_cmd *cmd_find(const char *name);

/* Run one parsed command: redirections, background, dispatch. The context derives from
 * parent (NULL: the shell's own, with the shell variables as parameters). Prints its error
 * (with the origin) and returns the status. */
int command_run(struct session *s, const struct command *cmd, const struct cmd_ctx *parent);

/* Run argv as a command inside an existing context (for `time`, `repeat`, batch steps). */
int cmd_exec_argv(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e);

/* Run argv as a background job in a thread of its own (a batch, `repeat`, any builtin):
 * the job gets a snapshot of the parameters and its own standard input and output. */
int cmd_background(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e);

/* A stream of the job's own, a copy of f (for a background job: the command's redirection
 * is closed when the command returns); /dev/null for reading when devnull. */
FILE *cmd_own_stream(FILE *f, const char *mode, bool devnull);

/* The environment the executors need, for this context. */
struct exec_env cmd_exec_env(const struct cmd_ctx *c);
/* A child's standard input and output: the command's, after redirections. */
struct child_io cmd_child_io(const struct cmd_ctx *c);

/* Run an executable already in memory (a batch's inline <CarshExe>), in the foreground or,
 * with c->background, as a background job; label names it in messages. */
int cmd_run_exe(struct cmd_ctx *c, const struct exe *exe, const struct params *args,
                const char *label, struct cs_err *e);

/* Run a batch file with the parameters args (strongest) in context c. */
int batch_run_file(struct cmd_ctx *c, const char *path, const struct params *args,
                   struct cs_err *e);

/* Set the message and return status: `return cmd_error(e, 1, "cd: %s: ...", dir);`. */
int cmd_error(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Put a prefix in front of the message already in e and return status. */
int cmd_prefix(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Same with ": strerror(errno)" appended. */
int cmd_errno(struct cs_err *e, int status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Add one job's statistics. */
void stats_add(struct stats_acc *acc, const struct run_stats *st);
/* Add the device times of work that completed after its job returned (thread executor). */
void stats_add_queued(struct stats_acc *acc, const struct run_stats *st);
/* Wait for the thread executor's work queued by this context's jobs, adding its times to
 * c->stats; its error, if any, goes to e. */
int cmd_flush(struct cmd_ctx *c, struct cs_err *e);
/* Add everything src holds to dst (a nested `time`). */
void stats_merge(struct stats_acc *dst, const struct stats_acc *src);
/* Print statistics the way `time` does. */
/* The wall time (when >= 0), the jobs and, when profiled, their OpenCL times. */
void stats_print(FILE *f, const struct stats_acc *acc, double wall_ms, bool profiled);

#endif
