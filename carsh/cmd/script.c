#include "cmd/script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cmdline.h"
#include "util/alloc.h"

struct lookup_ctx {
	struct session *s;
	const struct run_ctx *parent;
	char status[16]; /* $?'s text, read before the next lookup */
};

/* ${NAME}: the parameters the commands will see (a batch's, or the shell variables); $?:
 * the session's last status. */
static const char *lookup_var(void *ctx, const char *name)
{
	struct lookup_ctx *l = ctx;
	const struct param *p;

	if (strcmp(name, "?") == 0) {
		snprintf(l->status, sizeof(l->status), "%d", l->s->last_status);
		return l->status;
	}
	p = l->parent ? scope_get(l->parent->caller, name) : params_get(&l->s->vars, name);
	return p ? p->value : NULL;
}

static bool interrupted(const struct session *s, const struct run_ctx *parent)
{
	if (parent)
		return parent->interrupted && *parent->interrupted;
	return s->interrupted;
}

int script_run(struct session *s, const char *text, const char *file, int first_line,
               const struct run_ctx *parent, bool stop_on_error)
{
	struct lookup_ctx lc = {s, parent, ""};
	struct shell_lexer lx;
	struct cs_err *e = xmalloc(sizeof(*e));
	int status = 0;

	shell_lexer_init(&lx, text, file, first_line);
	for (;;) {
		struct command cmd = COMMAND_INIT;
		int r = shell_next(&lx, lookup_var, &lc, &cmd, e);

		if (r == SHELL_END)
			break;
		if (r != SHELL_COMMAND) {
			fprintf(stderr, "carsh: %s\n", e->msg);
			status = s->last_status = 2;
			if (stop_on_error || r == SHELL_INCOMPLETE)
				break;
			continue;
		}
		status = command_run(s, &cmd, parent);
		command_free(&cmd);
		if (s->exit_requested || interrupted(s, parent) || (status != 0 && stop_on_error))
			break;
	}
	free(e);
	return status;
}
