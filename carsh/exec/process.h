/*
 * The process executor's mechanism (004 §3.5): every flow-model execution is a forked child
 * that reports back through a small shared mapping. The master never touches OpenCL.
 */
#ifndef CARSH_EXEC_PROCESS_H
#define CARSH_EXEC_PROCESS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "runtime/runtime.h"
#include "util/error.h"

/* What a child leaves for the master. */
struct job_result {
	int status; /* the child's own verdict: 0 success */
	bool has_stats;
	struct run_stats stats;
	char msg[CS_ERR_MAX]; /* its error message; "" when none */
	/* A warm worker's window job (exec/workerwire.h): its place in the window, counted
	 * from 1, set when the worker takes it. The shell reads it when the worker died: the
	 * job it ran then, and the ones after it that it never took. */
	uint32_t taken;
};

/* Every field zero and the message empty, its 16 KiB not written: a warm worker's job
 * clears one per job on both sides. */
void job_result_clear(struct job_result *res);
/* e's message as res's. */
void job_result_set_msg(struct job_result *res, const struct cs_err *e);

/* Runs in the child; returns its exit status and fills res. */
typedef int (*child_fn)(void *arg, struct job_result *res);

/* Standard input and output of a child: descriptors to dup2 onto 0 and 1, -1 to inherit.
 * go_fd, when not -1, is a pipe the child reads one byte from before it runs: 'g' to go,
 * anything else (or the master's end closing) to give up. */
struct child_io {
	int in_fd;
	int out_fd;
	int go_fd;
};

/* Fork a child running fn(arg). A background child gets its own process group (Ctrl-C at
 * the terminal stops only the foreground) and /dev/null as standard input unless io gives
 * one (POSIX). *res is a shared mapping: free it with proc_result_free. */
int proc_start(child_fn fn, void *arg, bool background, const struct child_io *io, pid_t *pid,
               struct job_result **res, struct cs_err *e);

/* Fork a long-lived child running fn(arg) (a warm worker, exec/workers.h) in a process group
 * of its own, with standard input and output on /dev/null, keep_fd as its descriptor 3 and
 * no other beyond standard error; it dies with the master. *res as for proc_start, mapped
 * from the memfd *res_fd (close-on-exec, the caller's), which maps it again elsewhere. */
int proc_start_kept(child_fn fn, void *arg, int keep_fd, pid_t *pid, struct job_result **res,
                    int *res_fd, struct cs_err *e);

/* Start this program afresh in a child: /proc/self/exe with argv and the environment, for
 * work that must not share a process with the caller's OpenCL runtime yet must not end it
 * either (an engine under the thread executor, runner/engineproc.h). Between fork and exec
 * only async-signal-safe calls: the caller has threads. io as for proc_start (go_fd
 * unused); fd3 and fd4 become the child's descriptors 3 and 4, and no other is kept beyond
 * standard error. A background child gets its own process group; the child dies with the
 * caller (PR_SET_PDEATHSIG, SIGTERM) and proc_signal_all reaches it. */
int proc_start_exec(char *const *argv, bool background, const struct child_io *io, int fd3, int fd4,
                    pid_t *pid, struct cs_err *e);

/* Wait for a child: 1 and *wstatus when it ended, 0 when still running (block false). */
int proc_wait(pid_t pid, bool block, int *wstatus);

/* Wait for a foreground child; when *interrupted becomes set (SIGINT reached the master
 * alone), pass SIGINT on to the child once. */
int proc_wait_foreground(pid_t pid, volatile sig_atomic_t *interrupted, int *wstatus);

void proc_result_free(struct job_result *res);

/* Send sig to every child started by proc_start that has not been waited for (the master's
 * last act on SIGTERM/SIGHUP). Takes no lock: it may run while other threads are stuck. */
void proc_signal_all(int sig);

/* The job's status in shell terms: the exit status, or 128+N when signal N killed it. */
int proc_status(int wstatus);

/* "killed by SIGSEGV" / "exit 3" for messages. */
void proc_describe(int wstatus, char *buf, size_t len);

#endif
