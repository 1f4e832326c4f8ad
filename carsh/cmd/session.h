/* The shell's state that commands share: variables, jobs, options. */
#ifndef CARSH_CMD_SESSION_H
#define CARSH_CMD_SESSION_H

#include <signal.h>
#include <stdbool.h>

#include "data/params.h"
#include "exec/jobs.h"

struct session;

/* Runs a text of commands through the shell front-end (for `source`, -c and <Command>);
 * installed by the front-end so that this layer needs no parser of its own. ${NAME} and
 * `run` see the parameters of caller (NULL: the shell variables). With stop_on_error the
 * first failing command ends the text. Returns the last status. */
typedef int (*text_runner)(struct session *s, const char *text, const char *file, int first_line,
                           const struct scope *caller, bool stop_on_error);

struct session {
	struct params vars; /* `set` variables; also the weakest parameters of every run */
	struct jobs *jobs;
	char *device_cli; /* --device / CARSH_DEVICE */
	bool interactive;
	bool exit_requested;
	int exit_status;
	int last_status;
	volatile sig_atomic_t interrupted; /* Ctrl-C or SIGINT since the last command */
	int depth;                         /* nesting of source and batches */
	text_runner run_text;
};

#define SESSION_MAX_DEPTH 64

struct session *session_new(void);
void session_free(struct session *s);
/* A shell variable, or NULL. */
const char *session_var(const struct session *s, const char *name);
/* True when `set stats=on`. */
bool session_stats_on(const struct session *s);

#endif
