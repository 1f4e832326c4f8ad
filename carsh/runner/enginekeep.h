/*
 * The engine's process under the thread executor (runner/engineproc.h): the carsh program
 * started afresh (`carsh --engine-child`, runner/enginechild.h) and given one run at a time
 * over a socket. A process whose foreground run ended well, started by the main thread, is
 * kept for the session's next engine run, so that a script of engine runs starts the OpenCL
 * runtime (PoCL: its LLVM) once; one that failed, was interrupted or ran in the background
 * ends after its run.
 */
#ifndef CARSH_RUNNER_ENGINEKEEP_H
#define CARSH_RUNNER_ENGINEKEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "exec/process.h"
#include "runner/enginespec.h"
#include "runner/shellstate.h"

/* Frames on the engine process's socket: a run (the encoded description; the standard input,
 * output and error as its three fds), and its end (no payload; the report area holds the
 * result). */
#define ENGINE_RUN  1
#define ENGINE_DONE 2

struct engine_answer {
	int ws;    /* as waitpid's: the process's end, or its answer as an exit status */
	pid_t pid; /* the process that ran it */
	struct engine_report report;
};

/* Run the encoded description spec (len bytes) with io's standard input and output in the
 * session's kept process or a new one (a background run: detached, always a new one, in a
 * process group of its own). While it runs, *interrupted (NULL: none) is passed on once as
 * SIGINT. 0 with *a, or -1 with e when no process could take the run. */
int engine_proc_run(struct session *s, const void *spec, size_t len, const struct child_io *io,
                    bool detached, volatile sig_atomic_t *interrupted, struct engine_answer *a,
                    struct cs_err *e);

/* End the process s keeps, if any (the session's end): it ends when its socket closes. */
void engine_proc_end_kept(struct session *s);

#endif
