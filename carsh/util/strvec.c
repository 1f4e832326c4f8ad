#include "util/strvec.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

void sv_push_owned(struct strvec *sv, char *s)
{
	sv->v = xgrow(sv->v, &sv->cap, sv->n + 2, sizeof(*sv->v));
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void sv_push(struct strvec *sv, const char *s)
{
	sv_push_owned(sv, xstrdup(s));
}

void sv_copy(struct strvec *dst, const struct strvec *src)
{
	for (size_t i = 0; i < src->n; i++)
		sv_push(dst, src->v[i]);
}

bool sv_equal(const struct strvec *a, const struct strvec *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	return true;
}

void sv_free(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}
