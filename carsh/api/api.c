/* The public API (carsh.h) over the session, the command layer and the shell front-end. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "carsh.h"
#include "cmd/cmd.h"
#include "model/filecache.h"
#include "model/xml.h"
#include "model/cmdline.h"
#include "cmd/script.h"
#include "util/alloc.h"
#include "exec/process.h"
#include "util/atomicfile.h"
#include "util/errhold.h"
#include "mpi/ranks.h"
#include "runtime/runtime.h"

#include "config.h"

struct carsh_session {
	struct session *s;
	int jobs_failed; /* a script's first failed background job already reported, or 0 */
};

/* The one session whose buffers a SIGTERM or SIGHUP must remove. */
static struct session *volatile signal_session;
static volatile sig_atomic_t terminating;
static sigset_t terminating_signals;

/* How the master ends on SIGTERM, SIGHUP, a script's SIGINT, or Ctrl-C while it waits for
 * its jobs before exiting: its jobs stopped, every segment unlinked, status 128+N. */
static void remove_everything(void)
{
	proc_signal_all(SIGTERM);
	temp_remove_all(); /* a file being written by this process, a thread executor's job */
	if (signal_session)
		vbuf_table_unlink_all(signal_session->vbufs);
	/* Under MPI a job stops because a rank died; killed by SIGKILL on this node, it left
	 * its segments, which are stale once the launcher has reaped it (docs/scale-out.md). */
	if (ranks_started()) {
		ranks_wait_lost();
		vbuf_remove_stale();
	}
}

static void __attribute__((noreturn)) stop_everything(int sig)
{
	terminating = 1;
	/* A kernel building in another thread may hold descriptor 2 (runtime/program.c):
	 * this line would go into its temporary file and be lost with it. On a new line after
	 * the "^C" a terminal echoed; in a file or pipe, no blank line. */
	errhold_give_back();
	fprintf(stderr, "%scarsh: SIG%s: stopping jobs and removing virtual buffers%s\n",
	        isatty(STDERR_FILENO) ? "\n" : "", sigabbrev_np(sig),
	        ranks_starting() ? " (before the ranks' watchdog was armed: a rank lost "
	                           "then is named by the launcher alone)"
	                         : "");
	remove_everything();
	_exit(128 + sig);
}

/* SIGTERM and SIGHUP are taken by this thread alone (sigwait), never by a handler: what the
 * master must do before it goes is not async-signal-safe, and here it need not be. */
static void *signal_thread(void *arg)
{
	sigset_t *set = arg;
	int sig = 0;

	while (sigwait(set, &sig) != 0)
		;
	stop_everything(sig);
}

/* Called before any other thread exists, so that every thread inherits the mask. A
 * non-interactive carsh ends on SIGINT too, as a shell script does; an interactive one
 * leaves SIGINT to its front-end (Ctrl-C stops the foreground job, not the shell). */
static void start_signal_thread(bool interactive)
{
	static sigset_t set;
	static bool started; /* a served session worker's next session keeps it */
	pthread_t t;

	if (started)
		return;
	started = true;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (!interactive)
		sigaddset(&set, SIGINT);
	terminating_signals = set;
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&t, NULL, signal_thread, &set) == 0)
		pthread_detach(t);
}

const char *carsh_version(void)
{
	return PACKAGE_VERSION;
}

/* After the signal thread started, so that MPI's own threads inherit the blocked signals. A
 * plain carsh (no launcher, no --mpi) never calls MPI. The thread executor would put OpenCL
 * in the rank's own process, which moves buffers under hazard claims it does not see. */
static bool start_ranks(const struct carsh_options *opt)
{
	struct cs_err e;
	bool asked = opt && opt->mpi;

	if (!asked && !(ranks_built() && ranks_launched()))
		return true;
	if (opt && opt->thread_exec) {
		fprintf(stderr, "carsh: -T: the thread executor does not run across MPI ranks yet "
		                "(docs/scale-out.md)\n");
		return false;
	}
	if (ranks_start(remove_everything, &e) == 0) {
		rt_devices_share_gpus(ranks_local_rank()); /* one rank per GPU of its node */
		return true;
	}
	fprintf(stderr, "carsh: %s\n", e.msg);
	return false;
}

int carsh_ranks(int *rank)
{
	if (rank)
		*rank = ranks_rank();
	return ranks_size();
}

struct carsh_session *carsh_session_new(const struct carsh_options *opt)
{
	struct carsh_session *cs = xcalloc(1, sizeof(*cs));
	const char *device = opt && opt->device ? opt->device : getenv("CARSH_DEVICE");

	if (!signal_session)
		start_signal_thread(opt && opt->interactive);
	vbuf_remove_stale();
	if (!start_ranks(opt)) {
		free(cs);
		return NULL;
	}
	cs->s = session_new();
	signal_session = cs->s;
	cs->s->interactive = opt && opt->interactive;
	cs->s->run_text = script_run;
	if (opt && opt->thread_exec) {
		cs->s->thread_mode = true;
		params_set(&cs->s->vars, "exec", "thread", "-T");
	}
	if (device && device[0])
		cs->s->device_cli = xstrdup(device);
	return cs;
}

int carsh_run_string(struct carsh_session *cs, const char *text, const char *file, int first_line)
{
	struct session *s = cs->s;

	int rc;

	s->interrupted = 0;
	rc = script_run(s, text, file, first_line, NULL, !s->interactive);
	/* A script has no prompt to show job notices at; failures must still be heard, and the
	 * first decides the script's status if nothing else failed (carsh_session_end). */
	if (!s->interactive) {
		int failed = jobs_report(s->jobs, stderr, stderr, true);

		if (cs->jobs_failed == 0)
			cs->jobs_failed = failed;
	}
	return rc;
}

int carsh_run_text(struct carsh_session *cs, const char *text, size_t len, const char *file,
                   int first_line)
{
	struct cs_err e;

	if (shell_text_check(text, len, file, first_line, &e)) {
		fprintf(stderr, "carsh: %s\n", e.msg);
		return cs->s->last_status = CARSH_USAGE;
	}
	return carsh_run_string(cs, text, file, first_line);
}

int carsh_run_script(struct carsh_session *cs, const char *path)
{
	struct cs_err e;
	size_t len;
	char *text = file_read_text(path, &len, &e);
	int rc;

	if (!text) {
		fprintf(stderr, "carsh: %s\n", e.msg);
		return cs->s->last_status = CARSH_NOT_FOUND;
	}
	rc = carsh_run_text(cs, text, len, path, 1);
	free(text);
	return rc;
}

/* A file's first non-blank byte: '<' for XML. A stream is read whole (and kept for the
 * command that will read it again); a regular file only peeked at. */
static int first_byte(const char *path)
{
	struct cs_err e;
	char *text;
	const char *p;
	FILE *f;
	int ch;

	if (file_is_stream(path)) {
		if (!(text = file_read_text(path, NULL, &e)))
			return EOF;
		file_stream_keep(path);
		p = text + strspn(text, " \t\r\n");
		ch = *p ? (unsigned char)*p : EOF;
		free(text);
		return ch;
	}
	if (!(f = fopen(path, "r")))
		return EOF;
	while ((ch = fgetc(f)) == ' ' || ch == '\t' || ch == '\n' || ch == '\r')
		;
	fclose(f);
	return ch;
}

static bool looks_like_xml(const char *path)
{
	size_t n = strlen(path);

	return (n >= 4 && strcmp(path + n - 4, ".xml") == 0) || first_byte(path) == '<';
}

int carsh_run_file(struct carsh_session *cs, const char *path, int nparams, char **params)
{
	if (looks_like_xml(path))
		return carsh_run_xml(cs, path, nparams, params);
	for (int i = 0; i < nparams; i++)
		if (carsh_set(cs, params[i]))
			return CARSH_USAGE;
	return carsh_run_script(cs, path);
}

int carsh_run_argv(struct carsh_session *cs, int argc, char **argv)
{
	struct command cmd = COMMAND_INIT;
	int rc;

	for (int i = 0; i < argc; i++)
		sv_push(&cmd.argv, argv[i]);
	cs->s->interrupted = 0;
	rc = command_run(cs->s, &cmd, NULL);
	command_free(&cmd);
	return rc;
}

int carsh_run_xml(struct carsh_session *cs, const char *path, int nparams, char **params)
{
	char **argv = xcalloc((size_t)nparams + 2, sizeof(char *));
	int rc;

	argv[0] = (char *)"run";
	argv[1] = (char *)path;
	for (int i = 0; i < nparams; i++)
		argv[i + 2] = params[i];
	rc = carsh_run_argv(cs, nparams + 2, argv);
	free(argv);
	return rc;
}

bool carsh_is_command(const char *name)
{
	return cmd_find(name) != NULL;
}

int carsh_set(struct carsh_session *cs, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	char *name = eq ? xstrndup(assignment, (size_t)(eq - assignment)) : NULL;

	if (!name || !param_name_valid(name)) {
		fprintf(stderr, "carsh: '%s': expected NAME=VALUE\n", assignment);
		free(name);
		return CARSH_USAGE;
	}
	params_set(&cs->s->vars, name, eq + 1, "command line");
	free(name);
	return 0;
}

bool carsh_text_incomplete(const char *text)
{
	return shell_text_incomplete(text);
}

void carsh_report_jobs(struct carsh_session *cs)
{
	jobs_report(cs->s->jobs, stderr, stderr, false);
}

bool carsh_exit_requested(const struct carsh_session *cs, int *status)
{
	if (cs->s->exit_requested && status)
		*status = cs->s->exit_status;
	return cs->s->exit_requested;
}

void carsh_interrupt(struct carsh_session *cs)
{
	pid_t child = cs->s->fg_pid;

	cs->s->interrupted = 1;
	/* From a terminal the child has the signal already; from `kill -INT` it has not. */
	if (child > 0)
		kill(child, SIGINT);
}

const char *carsh_command_name(size_t i)
{
	for (size_t k = 0; cmd_table[k]; k++)
		if (k == i)
			return cmd_table[k]->name;
	return NULL;
}

static char **words_new(size_t n)
{
	return xcalloc(n + 1, sizeof(char *));
}

static char **command_names(void)
{
	size_t n = 0;
	char **w;

	while (cmd_table[n])
		n++;
	w = words_new(n);
	for (size_t i = 0; i < n; i++)
		w[i] = xstrdup(cmd_table[i]->name);
	return w;
}

static char **subcommand_words(const char *const *sub)
{
	size_t n = 0;
	char **w;

	while (sub[n])
		n++;
	w = words_new(n);
	for (size_t i = 0; i < n; i++)
		w[i] = xstrdup(sub[i]);
	return w;
}

static char **buffer_names(struct session *s)
{
	char **names;
	size_t n = vbuf_names(s->vbufs, &names);
	char **w = words_new(n);

	memcpy(w, names, n * sizeof(char *));
	free(names);
	return w;
}

/* virtbuf's operations that name buffers, and how many: delete takes any number. */
static bool takes_buffer(const char *op, int argi)
{
	if (strcmp(op, "delete") == 0)
		return true;
	if (strcmp(op, "swap") == 0)
		return argi <= 3;
	return argi == 2 && (strcmp(op, "fill") == 0 || strcmp(op, "dump") == 0);
}

char **carsh_completion_words(struct carsh_session *cs, int argc, char **argv)
{
	const struct carsh_cmd *cmd = argc > 0 ? cmd_find(argv[0]) : NULL;

	if (!cmd)
		return NULL;
	if (argc == 1 && strcmp(cmd->name, "help") == 0)
		return command_names();
	if (argc == 1 && cmd->subcommands)
		return subcommand_words(cmd->subcommands);
	if (argc >= 2 && strcmp(cmd->name, "virtbuf") == 0 && takes_buffer(argv[1], argc))
		return buffer_names(cs->s);
	return NULL;
}

/* A signal that ends the master must decide how it ends, even when the shell was about to
 * leave normally anyway: the signal thread exits with 128+N; this thread waits for it. */
static void yield_to_signal(void)
{
	sigset_t pending;

	if (sigpending(&pending) != 0)
		return;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&terminating_signals, sig) && sigismember(&pending, sig))
			terminating = 1;
	while (terminating)
		pause();
}

int carsh_session_wait(struct carsh_session *cs)
{
	struct session *s = cs->s;
	struct cs_err e;
	int running = jobs_running(s->jobs), failed;

	s->interrupted = 0;
	if (running)
		fprintf(stderr, "carsh: waiting for %d background job(s) before exiting\n",
		        running);
	failed = jobs_sync_interruptible(s->jobs, 0, &s->interrupted, &e);
	if (s->interrupted) {
		fflush(stdout);
		stop_everything(SIGINT);
	}
	if (failed != 0)
		fprintf(stderr, "carsh: %s\n", e.msg);
	if (cs->jobs_failed == 0)
		cs->jobs_failed = failed;
	return failed;
}

int carsh_session_end(struct carsh_session *cs)
{
	struct session *s = cs->s;
	struct cs_err e;
	int status = s->exit_requested ? s->exit_status : s->last_status;

	carsh_session_wait(cs);
	/* Work the jobs left queued on a device (docs/executors.md) may fail only now: the
	 * session's status must not say it went well. */
	if (session_finish_work(s, &e) != 0) {
		fprintf(stderr, "carsh: %s\n", e.msg);
		if (status == 0)
			status = 1;
	}
	/* A script's background job that failed is its failure, as for a batch (and for
	 * `sync`), unless `exit N` or a failed command decided already. */
	if (!s->interactive && !s->exit_requested && status == 0)
		status = cs->jobs_failed;
	yield_to_signal();
	signal_session = NULL;
	session_free(s);
	filecache_clear();
	free(cs);
	ranks_finish();
	return status;
}
