/*
 * carsh.h — the CarSh core library.
 *
 * A session holds the shell's state (variables, virtual buffers, jobs, options) and runs
 * command lines, command scripts and XML files (flow-models, executables, batches, graphs)
 * exactly as the `carsh` program does. The program is a thin front-end on this header.
 */
#ifndef CARSH_H
#define CARSH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses, as in POSIX shells. A job killed by signal N gives 128+N. */
enum {
	CARSH_OK = 0,
	CARSH_FAIL = 1,        /* a command failed */
	CARSH_USAGE = 2,       /* wrong arguments to carsh or to a builtin */
	CARSH_NOT_FOUND = 127, /* no such command or file */
};

struct carsh_options {
	const char *device; /* --device, else $CARSH_DEVICE; NULL for the default choice */
	bool thread_exec;   /* -T: the thread executor */
	bool interactive;   /* report jobs before prompts; a failing command does not stop */
};

struct carsh_session;

const char *carsh_version(void);

/* A new session. Also removes shared-memory segments left by carsh processes that no longer
 * run. Never NULL (out of memory ends the program). */
struct carsh_session *carsh_session_new(const struct carsh_options *opt);

/* Run commands from a string; file (may be NULL) and first_line name it in messages.
 * Returns the status of the last command run; a non-interactive session stops at the first
 * failing command. Errors are printed on stderr. */
int carsh_run_string(struct carsh_session *s, const char *text, const char *file, int first_line);

/* Run text of len bytes read from a file: as carsh_run_string, but a NUL byte in it is
 * refused ("x.csh:3: a NUL byte in a script ...", status 2) instead of ending the text. */
int carsh_run_text(struct carsh_session *s, const char *text, size_t len, const char *file,
                   int first_line);

/* Run a file of commands. */
int carsh_run_script(struct carsh_session *s, const char *path);

/* Run a file given on the command line: an XML file (by its name or its first byte) with
 * NAME=VALUE parameters, else a script with NAME=VALUE variables set first. A pipe or FIFO
 * is read once. */
int carsh_run_file(struct carsh_session *s, const char *path, int nparams, char **params);

/* Run an XML file (the root element decides how) with NAME=VALUE parameters. */
int carsh_run_xml(struct carsh_session *s, const char *path, int nparams, char **params);

/* What completion offers for the next word of a command whose words so far are argv[0]
 * (the command) .. argv[argc - 1]: builtins after `help`, a builtin's operations (`virtbuf
 * fill`), buffer names where a buffer is expected. A NULL-terminated array of new strings
 * (free each and the array), or NULL when file names fit there. */
char **carsh_completion_words(struct carsh_session *s, int argc, char **argv);

/* Run one command given as words, e.g. {"run", "f.xml", "x=-"} (no parsing, no
 * expansion). */
int carsh_run_argv(struct carsh_session *s, int argc, char **argv);

/* True when name is a builtin. */
bool carsh_is_command(const char *name);

/* Set a variable from "NAME=VALUE" (as `set` does); 0, or 2 with a message on stderr. */
int carsh_set(struct carsh_session *s, const char *assignment);

/* True when text ends inside quotes or after a '\' and needs another line. */
bool carsh_text_incomplete(const char *text);

/* Print notices of background jobs that finished since the last call ("[1]+ Done  x.xml"). */
void carsh_report_jobs(struct carsh_session *s);

/* True once `exit` ran (or a fatal signal arrived); *status receives the exit status. */
bool carsh_exit_requested(const struct carsh_session *s, int *status);

/* Ask the foreground job to stop (the interactive front-end's Ctrl-C). Safe in a signal
 * handler. */
void carsh_interrupt(struct carsh_session *s);

/* The i-th builtin's name (NULL past the end), for completion. */
const char *carsh_command_name(size_t i);

/* Wait for the background jobs: end of input is an implicit sync ("waiting for N background
 * job(s) before exiting"). Returns the status of the first that failed, 0 when none did.
 * carsh_interrupt during the wait ends the program as SIGINT ends a script: its jobs stopped,
 * its virtual buffers deleted, status 130. An interactive front-end calls it while its
 * Ctrl-C handler is still installed; carsh_session_end calls it too. */
int carsh_session_wait(struct carsh_session *s);

/* End the session: wait for background jobs, delete its virtual buffers. Returns the exit
 * status the program should end with: `exit N`, else the last command's status, else (not
 * interactive) that of the first background job that failed, as for a batch. */
int carsh_session_end(struct carsh_session *s);

#ifdef __cplusplus
}
#endif

#endif
