/* source: run a file of commands in this shell. */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "model/cmdline.h"
#include "model/xml.h"

static int source_run(struct run_ctx *c, void *args, int n, char **argv, struct cs_err *e)
{
	const char *file = argv[0];
	struct session *s = c->s;
	struct run_ctx inner = *c;
	char *text;
	size_t len;
	int rc;

	(void)args;
	(void)n;
	if (c->depth >= SESSION_MAX_DEPTH)
		return cmd_error(e, 1,
		                 "source %s: nested more than %d deep (does it source itself?)",
		                 file, SESSION_MAX_DEPTH);
	text = file_read_text(file, &len, e);
	if (!text)
		return 1;
	if (shell_text_check(text, len, file, 1, e)) {
		free(text);
		return 2;
	}
	inner.depth++;
	rc = s->run_text(s, text, file, 1, &inner, !s->interactive);
	free(text);
	/* The failing command already printed its message. */
	err_clear(e);
	return rc;
}

const struct carsh_cmd cmd_source = {
        .name = "source",
        .summary = "run a file of commands in this shell",
        .args = {.usage = "source FILE", .min = 1, .max = 1},
        .run = source_run,
};
