#include "model/command.h"

#include <stdlib.h>

#include "util/alloc.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void command_free(struct command *c)
{
	sv_free(&c->argv);
	free(c->redir_in);
	free(c->redir_out);
	free(c->origin);
	*c = (struct command)COMMAND_INIT;
}

void command_copy(struct command *dst, const struct command *src)
{
	*dst = (struct command)COMMAND_INIT;
	sv_copy(&dst->argv, &src->argv);
	dst->redir_in = dup_or_null(src->redir_in);
	dst->redir_out = dup_or_null(src->redir_out);
	dst->append = src->append;
	dst->background = src->background;
	dst->origin = dup_or_null(src->origin);
}
