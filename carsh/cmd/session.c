#include "cmd/session.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

struct session *session_new(void)
{
	struct session *s = xcalloc(1, sizeof(*s));

	s->jobs = jobs_new();
	return s;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	params_free(&s->vars);
	jobs_free(s->jobs);
	free(s->device_cli);
	free(s);
}

const char *session_var(const struct session *s, const char *name)
{
	const struct param *p = params_get(&s->vars, name);

	return p ? p->value : NULL;
}

bool session_stats_on(const struct session *s)
{
	const char *v = session_var(s, "stats");

	return v && (strcmp(v, "on") == 0 || strcmp(v, "1") == 0);
}
