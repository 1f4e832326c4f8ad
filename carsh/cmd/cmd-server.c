/* server: start, stop or ask the user's carsh server (docs/server.md). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "exec/serverclient.h"
#include "server/server.h"

static const char *const subcommands[] = {"start", "stop", "status", "run", NULL};

static int server_start(struct run_ctx *c, struct cs_err *e)
{
	pid_t pid;
	int fd = server_connect(true, &pid, e);

	if (fd < 0)
		return cmd_prefix(e, 1, "server start: ");
	close(fd);
	fprintf(c->out, "carsh server running, pid %d\n", (int)pid);
	return 0;
}

/* Nothing to stop is no failure: the state asked for holds. */
static int server_stop(struct run_ctx *c, struct cs_err *e)
{
	char *text = server_query(true, e);
	int pid = 0;

	if (!text && strncmp(e->msg, "no carsh server running", 23) == 0) {
		fprintf(c->out, "%s\n", e->msg);
		err_clear(e);
		return 0;
	}
	if (!text)
		return cmd_prefix(e, 1, "server stop: ");
	sscanf(text, "pid %d", &pid);
	fprintf(c->out, "carsh server (pid %d) stopped\n", pid);
	free(text);
	return 0;
}

static int server_status(struct run_ctx *c, struct cs_err *e)
{
	char *text = server_query(false, e);

	if (!text)
		return cmd_prefix(e, 1, "server status: ");
	fputs(text, c->out);
	free(text);
	return 0;
}

static int server_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	const char *what = words[0];

	(void)args;
	(void)n;
	if (strcmp(what, "start") == 0)
		return server_start(c, e);
	if (strcmp(what, "stop") == 0)
		return server_stop(c, e);
	if (strcmp(what, "status") == 0)
		return server_status(c, e);
	if (strcmp(what, "run") == 0)
		return server_main(e) ? cmd_prefix(e, 1, "server run: ") : 0;
	return cmd_error(e, 2, "server: '%s': expected start, stop, status or run", what);
}

const struct carsh_cmd cmd_server = {
        .name = "server",
        .summary = "the user's carsh server that keeps devices warm: start it, stop it, show "
                   "its state, or run it in the foreground",
        .args = {.usage = "server start|stop|status|run", .min = 1, .max = 1},
        .run = server_run,
        .subcommands = subcommands,
};
