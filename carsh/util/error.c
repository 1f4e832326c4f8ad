#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int err_vset(struct cs_err *e, const char *fmt, va_list ap)
{
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return -1;
}

int err_vprefix(struct cs_err *e, const char *fmt, va_list ap)
{
	char head[1024];
	size_t hlen, mlen;

	vsnprintf(head, sizeof(head), fmt, ap);
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

int err_verrno(struct cs_err *e, const char *fmt, va_list ap)
{
	int saved = errno;
	char what[1024];

	vsnprintf(what, sizeof(what), fmt, ap);
	snprintf(e->msg, sizeof(e->msg), "%s: %s", what, strerror(saved));
	errno = saved;
	return -1;
}

int err_set(struct cs_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct cs_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vprefix(e, fmt, ap);
	va_end(ap);
	return -1;
}

int err_errno(struct cs_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_verrno(e, fmt, ap);
	va_end(ap);
	return -1;
}

void err_clear(struct cs_err *e)
{
	e->msg[0] = '\0';
}
