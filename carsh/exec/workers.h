/*
 * Warm workers: processes of the shell that keep their OpenCL state — devices, contexts,
 * queues, built programs — from one job to the next. A process-executor job runs in one of
 * them instead of in a fresh fork, so that a batch pays the OpenCL start-up (about 0.3 s on
 * NVIDIA, against kernels of microseconds) once per worker instead of once per job, while a
 * job still runs apart from the shell: a kernel that crashes takes its worker with it, the
 * job is reported as before, and the next job gets a fresh worker.
 *
 * A worker is forked from the shell, which never holds OpenCL state itself (DESIGN §2), so
 * the fork is as safe as the fork per job it replaces. It lives in a process group of its
 * own (the terminal's Ctrl-C reaches the shell, which passes it on to the foreground job's
 * worker alone), dies with the shell (PR_SET_PDEATHSIG), and talks to the shell over a
 * socket pair: a job is the plan, the shell's working directory and the job's standard
 * input and output (passed as descriptors); the answer is the exit status, with the
 * statistics and the message in a shared result area, so that a worker that dies mid-job
 * still leaves the device it ran on for the message. Between jobs a worker holds no
 * descriptor of the shell's but its socket: a pipe the job wrote to sees its end when the
 * job ends, not when the worker does.
 *
 * A pool may also be served (workers_new_served): its workers are the user's carsh
 * server's (server/server.h), lent for one job each; the shell talks to a lent worker as to
 * its own, and only taking, giving back and reaping go through the server.
 */
#ifndef CARSH_EXEC_WORKERS_H
#define CARSH_EXEC_WORKERS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "exec/jobplan.h"
#include "exec/process.h"
#include "exec/workerwire.h"

struct workers;
struct worker;

/* A pool that keeps at most keep_idle idle workers (more are let go as they come back). */
struct workers *workers_new(unsigned keep_idle);
/* A pool whose workers are the user's carsh server's (server/server.h, docs/server.md): the
 * server is connected to, or started, on the first job. When none can be had the pool runs
 * its own workers, as workers_new's, after one call of warn with the reason. */
struct workers *workers_new_served(unsigned keep_idle, void (*warn)(const char *msg));
/* Ends every idle worker and waits for it; workers lent out must have come back. */
void workers_free(struct workers *w);
/* A new command starts: a job's environment, which the loader's narrowing works out from
 * the vendors' directory and the cache (exec/workerwire.h), is worked out again, once per
 * command and device type (the parsed files are checked so too: model/filecache.h). */
void workers_new_command(struct workers *w);

/* A worker for one job: the idle one with serial prefer (the holder of the job's buffers,
 * data/vhome.h; 0: none) where it can run the job, else one that last ran a plan with the
 * same device selectors; a new one is forked when none is idle. NULL with e when none can
 * start. */
struct worker *workers_take(struct workers *w, const struct job_plan *jp, uint64_t prefer,
                            struct cs_err *e);
pid_t worker_pid(const struct worker *wk);

/* For the server (server/server.c), which lends its own workers to clients: a worker for the
 * device key key (as workers_take); its socket and the memfd of its result area, both the
 * worker's (the server sends duplicates); the number of idle workers; and the end of a lent
 * worker: sig, then SIGKILL if it has not ended within 2 s, and reaped (*wstatus), after
 * which workers_give frees it. */
struct worker *workers_take_key(struct workers *w, const char *key, struct cs_err *e);
int worker_socket(const struct worker *wk);
int worker_result_fd(const struct worker *wk);
unsigned workers_idle(struct workers *w);
int worker_stop(struct worker *wk, int sig, int *wstatus);
/* A session worker (docs/server.md, `carsh -T` through the server): a fresh `carsh
 * --session-worker` with environment envp, forked by the pool's spawner and exec'd, which
 * opens its devices at once and then waits on its socket for a whole session (and, after one
 * that succeeded, for the next: server/spares.h); key is its job environment. Never idle in
 * the pool: workers_give ends it. NULL with e. */
struct worker *workers_spawn_session(struct workers *w, char *const *envp, const char *key,
                                     struct cs_err *e);
bool worker_is_session(const struct worker *wk);
const char *worker_key(const struct worker *wk);
/* Whether it ended (reaped then, without waiting); a dead idle worker is never lent. */
bool worker_ended(struct worker *wk);
/* End a worker not lent: its socket closed (which ends its wait), then reaped. */
void worker_discard(struct worker *wk);
/* What the worker's job left: statistics, message, the device it ran on. */
const struct job_result *worker_result(const struct worker *wk);

/* Run jp in wk with the descriptors of io as its standard input and output (a background
 * job without a redirected input reads /dev/null), and wait for it; profile: its statistics
 * are read (WORKER_JOB_PROFILE). *wstatus is as from
 * waitpid: the job's exit status when the worker answered, else how the worker ended.
 * Returns 0; WORKER_NOT_TAKEN (exec/workerwire.h), with *wstatus how the worker ended, when
 * it could not take the job (it died before); -1 with e when it could not be waited for. */
int worker_run(struct worker *wk, const struct job_plan *jp, const struct job_home *homes,
               const struct child_io *io, bool background, bool profile, int *wstatus,
               struct cs_err *e);

/*
 * A window of jobs in flight (exec/jobwin.h): jobs sent to one worker without waiting for
 * each answer. The worker runs them in order and answers each in order; a job sent with
 * after runs only if the one before it succeeded (else it is answered as skipped). Every
 * exchange on the worker's socket (a write-back asked by another thread, say) reads the
 * answers in flight first.
 */
struct worker_answer {
	int rc;         /* 0: wstatus and res are the job's; WORKER_NOT_TAKEN: it never ran */
	int wstatus;    /* as from waitpid: the job's exit status, or how the worker ended */
	bool skipped;   /* not run: the job before it failed */
	uint32_t place; /* its place in its window (job_result.taken) */
	struct job_result res;
	bool done;
	struct worker_answer *next;
};
/* An answer with nothing in it, its result's 16 KiB message area cleared, not zeroed. */
void worker_answer_clear(struct worker_answer *a);
/* Send jp to wk (a foreground job: standard input not /dev/null) and return at once; *a
 * is filled when its answer is read (it must live until then). -1 with e when the job could
 * not be put together (nothing was sent). A worker that died is found by the answer. */
int worker_send(struct worker *wk, const struct job_plan *jp, const struct job_home *homes,
                const struct child_io *io, bool profile, bool after, struct worker_answer *a,
                struct cs_err *e);
/* Wait until *a is answered (the answers before it are read too). The window's jobs go in
 * runs (docs/executors.md "The wire"): one not sent yet is sent before any wait. */
void worker_collect(struct worker *wk, struct worker_answer *a);
/* Send the window's jobs that wait in a run now (before a signal to the worker, say). */
void worker_flush(struct worker *wk);
/* Whether wk, lent already, can run jp too (its job environment is jp's): it is then lent
 * for jp (as workers_take would). */
bool worker_fits(struct worker *wk, const struct job_plan *jp);

/*
 * Resident buffers (docs/executors.md "What moves when"). A worker whose device holds
 * buffers' data (worker_hold) stays the pool's — idle, or lent to a job — until the pool
 * ends or it dies: a served pool keeps it from the server, and gives it back at its end
 * after it released them. It is found by its serial, unique in this process, which a
 * request uses instead of the worker itself: a holder that ended is simply not found. One
 * exchange at a time goes over a worker's socket: a request waits for the job it runs.
 */
uint64_t worker_serial(const struct worker *wk);
/* Whether it ended or answered garbage: whatever its device held is gone. */
bool worker_dead(const struct worker *wk);
void worker_hold(struct worker *wk);
/* Release its copies of shm (NULL: all). */
int worker_drop(struct worker *wk, const char *shm, struct cs_err *e);
/* Ask the holder with that serial to write its copy of shm at generation gen back to
 * shared memory, and wait. -1 with e when the worker is gone ("... ended while idle"), -2
 * with the worker's reason when it could not (it lives on). */
int workers_write_back(struct workers *w, uint64_t serial, const char *shm, uint64_t gen,
                       struct cs_err *e);
/* The same for a narrowing of a float buffer's copy into its pixels (data/vpixels.h) on the
 * holder's device; the same returns. */
int workers_narrow(struct workers *w, uint64_t serial, const char *shm, uint64_t gen,
                   struct cs_err *e);
/* Every holder releases its copies of shm (the buffer was deleted). */
void workers_drop_everywhere(struct workers *w, const char *shm);
/* Wait, on every worker that holds buffers, for the work its jobs left queued (a kernel's
 * fault found only then, or a worker that ended with it): -1 with the first failure in e. */
int workers_finish_all(struct workers *w, struct cs_err *e);

/* The device list as rt_devices_list gives it in a process with the job environment of this
 * one, asked of a worker lent by the server (SERVER_DEVICES, WORKER_DEVICES), which has
 * OpenCL open already when warm: a served shell learns it without starting OpenCL, or a
 * discovery child that would (docs/auto.md). *devs is new (free). -1 with e when the pool is
 * not served, no server can be had (the pool then runs its own workers, as workers_take's
 * fallback) or the worker could not say: the caller lists them another way. */
int workers_devices(struct workers *w, struct rt_devinfo **devs, size_t *n, struct cs_err *e);

/* Give wk back after its job: idle again, or, when it died or the pool has enough idle
 * workers, ended and reaped. */
void workers_give(struct workers *w, struct worker *wk);

/* The worker process's loop (exec/worker.c): jobs from sock until the shell closes it. */
void __attribute__((noreturn)) worker_main(int sock, struct job_result *res);

#endif
