/* A stamp of the process's environment (util/envstamp.h). */
#include "util/envstamp.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

extern char **environ;

static size_t entries(char **env)
{
	size_t n = 0;

	while (env && env[n])
		n++;
	return n;
}

bool envstamp_same(const struct env_stamp *s)
{
	return s->copy && environ == s->at && entries(environ) == s->n &&
	       memcmp(environ, s->copy, s->n * sizeof(*s->copy)) == 0;
}

void envstamp_take(struct env_stamp *s)
{
	s->at = environ;
	s->n = entries(environ);
	if (!s->copy || s->cap < s->n + 1)
		s->copy = xgrow(s->copy, &s->cap, s->n + 1, sizeof(*s->copy));
	memcpy(s->copy, environ, s->n * sizeof(*s->copy));
}

void envstamp_free(struct env_stamp *s)
{
	free(s->copy);
	*s = (struct env_stamp)ENV_STAMP_INIT;
}
