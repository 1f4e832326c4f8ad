#include "util/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct cs_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct cs_err *e, const char *fmt, ...)
{
	char head[1024];
	char old[CS_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	snprintf(e->msg, sizeof(e->msg), "%s%s", head, old);
	return -1;
}

int err_errno(struct cs_err *e, const char *fmt, ...)
{
	int saved = errno;
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(e->msg, sizeof(e->msg), "%s: %s", what, strerror(saved));
	errno = saved;
	return -1;
}

void err_clear(struct cs_err *e)
{
	e->msg[0] = '\0';
}
