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

static int cmd_server_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	(void)argc;
	if (strcmp(argv[1], "start") == 0)
		return server_start(c, e);
	if (strcmp(argv[1], "stop") == 0)
		return server_stop(c, e);
	if (strcmp(argv[1], "status") == 0)
		return server_status(c, e);
	if (strcmp(argv[1], "run") == 0)
		return server_main(e) ? cmd_prefix(e, 1, "server run: ") : 0;
	return cmd_error(e, 2, "server: '%s': expected start, stop, status or run", argv[1]);
}

const struct carsh_cmd cmd_server = {
        .name = "server",
        .usage = "server start|stop|status|run",
        .summary = "the user's carsh server that keeps devices warm: start it, stop it, show "
                   "its state, or run it in the foreground",
        .min_args = 1,
        .max_args = 1,
        .exec = cmd_server_exec,
        .subcommands = subcommands,
};
