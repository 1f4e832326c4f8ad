/* A growable NUL-terminated string. */
#ifndef CARSH_UTIL_STRBUF_H
#define CARSH_UTIL_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *s; /* always NUL-terminated once anything was added; NULL when empty and new */
	size_t len;
	size_t cap;
};

#define STRBUF_INIT        \
	{                  \
		NULL, 0, 0 \
	}

void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string ("" when empty); stays owned by sb. */
const char *sb_str(const struct strbuf *sb);
/* Hand the string over to the caller and reset sb. */
char *sb_detach(struct strbuf *sb);
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

#endif
