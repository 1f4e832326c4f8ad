/* A growable NULL-terminated array of owned strings (argv and friends). */
#ifndef CARSH_UTIL_STRVEC_H
#define CARSH_UTIL_STRVEC_H

#include <stdbool.h>
#include <stddef.h>

struct strvec {
	char **v; /* NULL-terminated once anything was pushed */
	size_t n;
	size_t cap;
};

#define STRVEC_INIT        \
	{                  \
		NULL, 0, 0 \
	}

void sv_push(struct strvec *sv, const char *s);
/* Take ownership of s. */
void sv_push_owned(struct strvec *sv, char *s);
void sv_copy(struct strvec *dst, const struct strvec *src);
/* Whether a and b hold the same strings in the same order. */
bool sv_equal(const struct strvec *a, const struct strvec *b);
void sv_free(struct strvec *sv);

#endif
