/* `carsh -T` through the user's server, for the carsh program (served.h). */
#include "served.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/served.h"

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

/* `devices` alone: what a session worker knows already. */
static bool devices_only(int argc, char **argv, int optind, const char *command)
{
	if (command)
		return optind == argc && strcmp(command, "devices") == 0;
	return optind == argc - 1 && strcmp(argv[optind], "devices") == 0;
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

bool carsh_served_run(int argc, char **argv, int optind, const char *command, bool thread_exec,
                      int *status)
{
	char **with_t;
	bool done;

	if (!servable(argc, argv, command))
		return false;
	if (thread_exec)
		return run_there(argc, argv, status);
	if (!devices_only(argc, argv, optind, command))
		return false;
	/* The worker runs it under the thread executor, which lists the devices it holds. */
	with_t = calloc((size_t)argc + 2, sizeof(*with_t));
	if (!with_t)
		return false;
	with_t[0] = argv[0];
	with_t[1] = "-T";
	memcpy(with_t + 2, argv + 1, (size_t)(argc - 1) * sizeof(*with_t));
	done = run_there(argc + 1, with_t, status);
	free(with_t);
	return done;
}

bool carsh_served_worker(int *argc, char ***argv)
{
	static struct session_req r; /* the session's for the process's life */
	struct cs_err e;

	if (served_worker_begin(&r, &e)) {
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
