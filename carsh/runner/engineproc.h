/*
 * An engine's run (partition, pipeline) in a child process of its own, as the process
 * executor runs a job: the engine's device work starts OpenCL, and a driver that aborts or
 * faults there (PoCL on a corrupt kernel cache, its multi-device assertions) ends that
 * child, never the shell. The shell says what died and keeps its prompt; the virtual
 * buffers the engine was writing are marked lost (data/vhome.h), the others stay whole.
 *
 * Where the shell's process has no OpenCL runtime of its own (the process executor, one MPI
 * rank), the child is forked. Forking a process whose runtime has started its threads is
 * not safe, so under the thread executor (-T, `set exec=thread`) the child is the carsh
 * program started afresh (`carsh --engine-child`, runner/enginechild.h) and kept for the
 * session's next run (runner/enginekeep.h): the shell writes every buffer's newest data
 * back to shared memory, that process adopts the buffers' segments and runs the command
 * again there, and the buffers it wrote are newer than the thread executor's device
 * copies. Where this process is not the carsh program (the
 * library in another program) or under MPI with several ranks, the engine runs here.
 */
#ifndef CARSH_RUNNER_ENGINEPROC_H
#define CARSH_RUNNER_ENGINEPROC_H

#include <signal.h>

#include "exec/jobplan.h"
#include "runner/context.h"
#include "runner/enginespec.h"

/* The engine's whole command: runs in the child with c's streams as its standard input and
 * output, and the child's own Ctrl-C flag. Returns the command's status, the message in e. */
typedef int (*engine_body)(struct run_ctx *c, void *arg, struct cs_err *e);

/* Run body(c, arg) in a child where the shell's process may fork (above), else here. what
 * names the run in the message of a child that did not end by itself: "partition: FILE:
 * the engine's worker ended: killed by SIGABRT (...)". Returns body's status, or
 * 128+N for a child killed by signal N; the statistics the child added reach c->stats. */
int engine_apart(struct run_ctx *c, const char *what, engine_body body, void *arg,
                 struct cs_err *e);

/* In the child, before the engine's device work: the virtual buffers jp writes, so that the
 * shell marks them lost if the child dies. Nothing outside a child. */
void engine_apart_writes(const struct job_plan *jp);
/* Whether this process is such a child. */
bool engine_apart_child(void);

/* This process is the carsh program (shell/main.c): under the thread executor an engine
 * runs in a fresh copy of it (above). */
void engine_apart_may_exec(void);
/* In the fresh copy (runner/enginechild.h): record the buffers written in w, and take
 * Ctrl-C as a request to stop; returns the flag it sets. */
volatile sig_atomic_t *engine_apart_attach(struct engine_writes *w);

#endif
