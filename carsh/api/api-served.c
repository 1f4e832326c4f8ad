/* `carsh -T` through the user's server, for the carsh program (api/api-served.h). */
#include "api/api-served.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api-int.h"
#include "server/served.h"

/* What only this process can reach, or what talks to the server itself, stays here. */
static bool servable(int argc, char **argv, const char *command)
{
	const char *v = getenv("CARSH_SERVER");

	if (v && strcmp(v, "off") == 0)
		return false;
	if (command && strstr(command, "server"))
		return false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "server") == 0)
			return false;
		if (strstr(argv[i], "/dev/fd/") || strstr(argv[i], "/proc/self/"))
			return false;
	}
	return true;
}

static bool run_there(int argc, char **argv, int *status)
{
	struct cs_err e;

	err_clear(&e);
	if (served_session_run(argc, argv, status, &e)) {
		if (e.msg[0])
			fprintf(stderr, "carsh: %s\n", e.msg);
		return true;
	}
	if (e.msg[0])
		fprintf(stderr,
		        "carsh: no carsh server (%s); running the session in this process\n",
		        e.msg);
	return false;
}

bool carsh_served_run(int argc, char **argv, int first_operand, const char *command,
                      bool thread_exec, int *status)
{
	(void)first_operand;
	/* `carsh devices` is not served: in a session worker NVIDIA's platform can fail its
	 * first call ("clGetPlatformInfo failed: CL_INVALID_DEVICE" from NVIDIA's platform,
	 * not seen with PoCL), and a listing is worth its 0.3 s more than a wrong answer. */
	if (!thread_exec || !servable(argc, argv, command))
		return false;
	return run_there(argc, argv, status);
}

bool carsh_served_worker(int *argc, char ***argv)
{
	static struct session_req r; /* the session's for the process's life */
	struct wire_msg api;
	struct cs_err e;
	int rc = served_worker_begin(&r, &api, &e);

	if (rc == 1) /* a program's server machine, not a session (docs/api.md) */
		_exit(api_serve(SERVED_SOCK, &api));
	if (rc) {
		fprintf(stderr, "carsh: %s\n", e.msg);
		return false;
	}
	*argc = (int)r.argv.n;
	*argv = r.argv.v;
	return true;
}

void carsh_served_done(int status)
{
	served_worker_done(status);
}

void carsh_served_again(int status)
{
	served_worker_again(status);
}
