/*
 * The terminal's Ctrl-C and Ctrl-\ kept away from the OpenCL drivers' builds.
 *
 * Ctrl-C reaches every process of the terminal's foreground group, and a carsh that survives
 * it (the interactive shell under -T, an engine's process) may be building right then. Two
 * things broke such a build: the linker PoCL starts for each kernel (once in clGetProgramInfo
 * for the binary cache, once at a kernel's first launch, in a thread of its own) took the
 * default SIGINT and died ("Final linking of kernel K failed", and PoCL aborts the process);
 * and the compiler's SIGINT handler, installed by the drivers' start in place of carsh's,
 * removed the compiler's temporary output before it passed the signal on to carsh's handler,
 * which lets the build go on ("unable to rename temporary .../kcache/tempfile_...", a failed
 * build). Where the process survives SIGINT (a handler of its own), its threads that build
 * or link block SIGINT, which the linker inherits, and the process keeps its own handler:
 * Ctrl-C then takes effect when the build ends. A process that SIGINT ends is left as it is,
 * so that Ctrl-C ends it at once.
 */
#ifndef CARSH_RUNTIME_BUILDSIG_H
#define CARSH_RUNTIME_BUILDSIG_H

#include <signal.h>
#include <stdbool.h>

/* What SIGINT and SIGQUIT did before the drivers started, and the caller's mask. */
struct buildsig_start {
	struct sigaction act[2];
	sigset_t mask;
	bool held;
};

/* Before the drivers start: their threads, started in this thread, inherit a blocked SIGINT
 * where the process survives it. */
void buildsig_start_begin(struct buildsig_start *st);
/* After: carsh's own SIGINT and SIGQUIT dispositions put back where the drivers replaced a
 * handler or SIG_IGN (a default one, the process ends by the signal, is left to them: their
 * handler removes the compiler's files and then ends it); the caller's mask restored. */
void buildsig_start_end(const struct buildsig_start *st);

/* Around a build in the calling thread: SIGINT blocked where the process survives it.
 * *held says whether buildsig_release has a mask to restore. */
void buildsig_hold(sigset_t *old, bool *held);
void buildsig_release(const sigset_t *old, bool held);

#endif
