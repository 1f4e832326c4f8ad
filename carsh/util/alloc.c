#include "util/alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void out_of_memory(size_t size)
{
	char msg[96];
	int n = snprintf(msg, sizeof(msg), "carsh: out of memory (%zu bytes)\n", size);

	if (n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0)
		_exit(1);
	_exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		out_of_memory(size);
	return q;
}

void *xgrow(void *p, size_t *cap, size_t want, size_t size)
{
	size_t c = *cap ? *cap : 8;
	size_t bytes;

	if (want <= *cap)
		return p;
	while (c < want)
		c *= 2;
	if (size_mul(c, size, &bytes))
		out_of_memory(SIZE_MAX);
	*cap = c;
	return xrealloc(p, bytes);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory(0);
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

int size_mul(size_t n, size_t size, size_t *out)
{
	if (size && n > SIZE_MAX / size)
		return -1;
	*out = n * size;
	return 0;
}

void *data_alloc(size_t n, size_t size, const char *what, struct cs_err *e)
{
	size_t bytes;
	void *p;

	if (size_mul(n, size, &bytes)) {
		err_set(e, "%s: %zu elements of %zu bytes do not fit in memory", what, n, size);
		return NULL;
	}
	p = malloc(bytes ? bytes : 1);
	if (!p)
		err_set(e, "%s: cannot allocate %zu bytes", what, bytes);
	return p;
}
