/*
 * What an engine's process under the thread executor is told (runner/engineproc.h): the
 * command to run again there, the parameters its caller sees, the device choice and the
 * session's virtual buffers, which it adopts (data/vbuf.h) rather than copies. Sent by the
 * shell over the engine process's socket (runner/enginekeep.h), a frame per run.
 */
#ifndef CARSH_RUNNER_ENGINESPEC_H
#define CARSH_RUNNER_ENGINESPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "data/params.h"
#include "exec/process.h"
#include "data/vbuf.h"
#include "util/error.h"
#include "util/wirebuf.h"

struct engine_spec {
	int argc;
	char **argv;        /* the command as the shell ran it, its name first */
	struct params vars; /* every parameter the command's caller saw, flattened */
	char *device_cli;   /* --device / CARSH_DEVICE, or NULL */
	char *cwd;          /* the shell's working directory */
	struct vbuf *bufs;  /* the session's virtual buffers */
	size_t nbufs;
	bool profile;  /* inside `time`: the OpenCL times are read */
	bool detached; /* a background job's: no Ctrl-C of its own */
};

/* What an engine's process (forked or started afresh) tells the shell: the buffers it writes,
 * recorded before its device work, and its result. A shared mapping, so that it is there
 * whatever way the process ends. */
#define ENGINE_REPORT_NAME "carsh-engine-report"
#define ENGINE_WRITES_MAX  64
#define ENGINE_SHM_MAX     128

struct engine_writes {
	int n;
	char shm[ENGINE_WRITES_MAX][ENGINE_SHM_MAX];
};

struct engine_report {
	struct engine_writes w;
	struct job_result res;
};

void engine_spec_encode(const struct engine_spec *sp, struct wbuf *w);
/* Fills sp (free it with engine_spec_free, also after an error): -1 with "the engine's
 * description is damaged" when p does not hold one. */
int engine_spec_decode(const void *p, size_t len, struct engine_spec *sp, struct cs_err *e);
void engine_spec_free(struct engine_spec *sp);

#endif
