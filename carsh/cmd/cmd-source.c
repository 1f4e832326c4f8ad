/* source: run a file of commands in this shell. */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "model/cmdline.h"
#include "model/xml.h"

static int cmd_source_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct session *s = c->s;
	struct run_ctx inner = *c;
	char *text;
	size_t len;
	int rc;

	(void)argc;
	if (c->depth >= SESSION_MAX_DEPTH)
		return cmd_error(e, 1,
		                 "source %s: nested more than %d deep (does it source itself?)",
		                 argv[1], SESSION_MAX_DEPTH);
	text = file_read_text(argv[1], &len, e);
	if (!text)
		return 1;
	if (shell_text_check(text, len, argv[1], 1, e)) {
		free(text);
		return 2;
	}
	inner.depth++;
	rc = s->run_text(s, text, argv[1], 1, &inner, !s->interactive);
	free(text);
	/* The failing command already printed its message. */
	err_clear(e);
	return rc;
}

const struct carsh_cmd cmd_source = {
        .name = "source",
        .usage = "source FILE",
        .summary = "run a file of commands in this shell",
        .min_args = 1,
        .max_args = 1,
        .exec = cmd_source_exec,
};
