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
	size_t hlen, mlen;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	hlen = strlen(head);
	mlen = strnlen(e->msg, sizeof(e->msg) - 1);
	/* Keep the head whole; the message loses its tail if both do not fit. */
	if (hlen + mlen > sizeof(e->msg) - 1)
		mlen = sizeof(e->msg) - 1 - hlen;
	memmove(e->msg + hlen, e->msg, mlen);
	memcpy(e->msg, head, hlen);
	e->msg[hlen + mlen] = '\0';
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
