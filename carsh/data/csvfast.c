/*
 * Plain numeric lines without libcsv: commas and blanks split them, number_parse_fast()
 * (std::from_chars) reads each value. A large text is cut at line boundaries into one part a
 * core; each part is parsed into its own array and the arrays are joined in order.
 */
#include "data/csvfast.h"

#include <stdlib.h>
#include <string.h>

#include "util/parcopy.h"
#include "util/parrun.h"

/* A part smaller than this is not worth a thread. */
#define PART_MIN ((size_t)1 << 20)

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The bytes the general parser treats its own way: quotes, CRs, NULs. */
static bool plain_line(const char *line, size_t len)
{
	return !memchr(line, '"', len) && !memchr(line, '\r', len) && !memchr(line, '\0', len);
}

size_t csvfast_room(size_t len)
{
	return len / 2 + 1;
}

/* One comma-separated field: its blank-separated values. -1 for an empty field. */
static long field_values(enum scalar s, const char *p, const char *end, char *dst, size_t room)
{
	size_t size = scalar_size(s);
	long count = 0;

	for (;;) {
		const char *tok;

		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			return count ? count : -1;
		tok = p;
		while (p < end && !is_blank(*p))
			p++;
		if ((size_t)count == room || (size_t)(p - tok) > CSVFAST_TOKEN_MAX ||
		    number_parse_fast(s, tok, (size_t)(p - tok), dst + (size_t)count * size))
			return -1;
		count++;
	}
}

/* csvfast_line() of a line already known plain. */
static long plain_values(enum scalar s, const char *line, size_t len, char *dst, size_t room)
{
	const char *p = line, *end = line + len;
	size_t size = scalar_size(s);
	long count = 0;

	if (len == 0)
		return -1;
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *field_end = comma ? comma : end;
		long got = field_values(s, p, field_end, dst + (size_t)count * size,
		                        room - (size_t)count);

		if (got < 0)
			return -1;
		count += got;
		if (!comma)
			return count;
		p = comma + 1;
	}
}

long csvfast_line(enum scalar s, const char *line, size_t len, char *dst, size_t room)
{
	return plain_line(line, len) ? plain_values(s, line, len, dst, room) : -1;
}

struct part {
	enum scalar s;
	const char *text;
	size_t len;
	char *dst;
	size_t n;
	bool failed;
};

static void *parse_part(void *arg)
{
	struct part *pt = arg;
	const char *p = pt->text, *end = pt->text + pt->len;
	size_t size = scalar_size(pt->s);

	/* The whole part checked plain in three scans, not three calls a line. */
	if (!plain_line(pt->text, pt->len)) {
		pt->failed = true;
		return NULL;
	}
	pt->dst = malloc(csvfast_room(pt->len) * size);
	pt->failed = pt->dst == NULL;
	while (!pt->failed && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		long got = plain_values(pt->s, p, (size_t)(line_end - p), pt->dst + pt->n * size,
		                        csvfast_room(pt->len) - pt->n);

		pt->failed = got < 0;
		pt->n += got < 0 ? 0 : (size_t)got;
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* k parts ending at newlines (a part may be empty). */
static void cut(struct part *parts, size_t k, enum scalar s, const char *text, size_t len)
{
	size_t at = 0;

	for (size_t i = 0; i < k; i++) {
		size_t want = len / k * (i + 1), to = len;

		if (i + 1 < k && want > at) {
			const char *nl = memchr(text + want, '\n', len - want);

			to = nl ? (size_t)(nl - text) + 1 : len;
		} else if (i + 1 < k) {
			to = at;
		}
		parts[i] = (struct part){.s = s, .text = text + at, .len = to - at};
		at = to;
	}
}

static int join(struct part *parts, size_t k, size_t size, void **dst, size_t *n)
{
	size_t total = 0, at = 0;
	char *all;

	for (size_t i = 0; i < k; i++) {
		if (parts[i].failed)
			return -1;
		total += parts[i].n;
	}
	all = malloc(total ? total * size : 1);
	if (!all)
		return -1;
	for (size_t i = 0; i < k; i++) {
		par_memcpy(all + at * size, parts[i].dst, parts[i].n * size, 0);
		at += parts[i].n;
	}
	*dst = all;
	*n = total;
	return 0;
}

int csvfast_all(enum scalar s, const char *text, size_t len, void **dst, size_t *n)
{
	struct part parts[PARRUN_MAX];
	size_t k = par_parts(len, PART_MIN);
	int rc;

	cut(parts, k, s, text, len);
	par_run(parse_part, parts, sizeof(parts[0]), k);
	rc = join(parts, k, scalar_size(s), dst, n);
	for (size_t i = 0; i < k; i++)
		free(parts[i].dst);
	return rc;
}
