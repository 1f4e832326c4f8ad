#include "util/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static void sb_reserve(struct strbuf *sb, size_t extra)
{
	sb->s = xgrow(sb->s, &sb->cap, sb->len + extra + 1, 1);
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	sb_reserve(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->s ? sb->s : "";
}

char *sb_detach(struct strbuf *sb)
{
	char *s = sb->s ? sb->s : xstrdup("");

	sb->s = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->s)
		sb->s[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->len = sb->cap = 0;
}
