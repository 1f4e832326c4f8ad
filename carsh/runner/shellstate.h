/* The shell's state that commands share: variables, virtual buffers, hazards, jobs. */
#ifndef CARSH_RUNNER_SHELLSTATE_H
#define CARSH_RUNNER_SHELLSTATE_H

#include <signal.h>
#include <stdbool.h>

#include "data/params.h"
#include "data/vbuf.h"
#include "exec/hazard.h"
#include "exec/jobs.h"
#include "exec/threadexec.h"

struct session;
struct run_ctx;

/* Runs a text of commands through the shell front-end (for `source`, -c and <Command>);
 * installed by the front-end so that this layer needs no parser of its own. The commands run
 * in a context derived from parent (NULL: the shell's own). With stop_on_error the first
 * failing command ends the text. Returns the last status. */
typedef int (*text_runner)(struct session *s, const char *text, const char *file, int first_line,
                           const struct run_ctx *parent, bool stop_on_error);

struct plancache;
struct vhome;
struct placer;
struct replicas;
struct engine_proc;

struct session {
	struct params vars; /* `set` variables; also the weakest parameters of every run */
	struct jobs *jobs;  /* the shell's background jobs */
	struct vbuf_table *vbufs;
	struct vhome *homes; /* where each buffer's data is (data/vhome.h) */
	struct hazards *hz;
	char *device_cli; /* --device / CARSH_DEVICE */
	bool interactive;
	bool exit_requested;
	int exit_status;
	int last_status;
	volatile sig_atomic_t interrupted; /* Ctrl-C or SIGINT since the last command */
	volatile sig_atomic_t fg_pid;      /* the foreground child, 0 when none */
	text_runner run_text;
	bool thread_mode;           /* `set exec=thread` or -T */
	struct texec *texec;        /* the thread executor, once it has started */
	struct plancache *plans;    /* plans reused by the shell's thread (runner/plancache.h) */
	struct workers *workers;    /* warm workers for process-executor jobs, or NULL (a fork
	                               per job: CARSH_WORKERS=fresh) */
	pthread_mutex_t texec_lock; /* it starts once, whichever thread needs it first */
	struct placer *placer;      /* the `auto` device choice (runner/devplace.h), or NULL */
	struct replicas *replicas;  /* where buffers' data is across MPI ranks (runner/
	                               replicas.h); NULL with one rank */
	struct engine_proc *engine; /* the engine's process kept for the next run under the
	                               thread executor (runner/enginekeep.h), or NULL */
};

#define SESSION_MAX_DEPTH 64

/* A new session; its virtual buffers obey CARSH_MAX_BUFFER and CARSH_MAX_SHM. Started
 * under MPI (mpi/ranks.h) it keeps its own warm workers, never the user's server
 * (docs/scale-out.md says why), and with more than one rank a replica table. */
struct session *session_new(void);
/* Waits for nothing: the caller syncs first. Unlinks every virtual buffer. */
void session_free(struct session *s);
/* The thread executor, started on first use (OpenCL then lives in this process). */
struct texec *session_texec(struct session *s);
/* Wait for the work the session's jobs left queued on warm workers' devices (the end of a
 * session): -1 with e when it failed or its worker ended with it. */
int session_finish_work(struct session *s, struct cs_err *e);

/* A planner's <Buffer> binding (plan_env's resolve, ctx the session): the stream's type and
 * count must be the virtual buffer's; *shm gets its segment name. */
int session_resolve_buffer(void *ctx, const char *name, struct cs_type type, size_t count,
                           char **shm, struct cs_err *e);
/* The words after a file on a command line: STREAM=FILE binds a stream of exe (a flow-model
 * wrapped for the line; NULL: none), NAME=VALUE sets a parameter in args. */
struct exe;
int session_read_words(struct exe *exe, int n, char **words, struct params *args, struct cs_err *e);

/* True when `set stats=on` (in the variables vars). */
bool session_stats_on(const struct params *vars);
/* `set timeout=SECONDS`: the seconds a process-executor job may run; 0 when unset. */
unsigned session_timeout(const struct params *vars);

#endif
