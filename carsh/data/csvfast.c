/*
 * Plain numeric lines without libcsv: commas and blanks split them, number_parse_fast()
 * (std::from_chars) reads each value. A large text is cut at line boundaries into one part a
 * core; each part is parsed into its own array in one pass over its bytes (a table says what
 * each byte is), and each array is then copied to its place by its own thread.
 */
#include "data/csvfast.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/parrun.h"

/* A part smaller than this is not worth a thread. */
#define PART_MIN ((size_t)1 << 20)

/* What a byte is to the fast path: part of a value, a separator, or a byte the general
 * parser treats its own way (a quote, a CR, a NUL). */
enum byte_class { B_VALUE, B_BLANK, B_COMMA, B_NEWLINE, B_OTHER };

static const unsigned char byte_class[256] = {
        ['\0'] = B_OTHER, ['\t'] = B_BLANK, ['\n'] = B_NEWLINE, ['\r'] = B_OTHER,
        [' '] = B_BLANK,  ['"'] = B_OTHER,  [','] = B_COMMA,
};

static enum byte_class class_of(char c)
{
	return (enum byte_class)byte_class[(unsigned char)c];
}

size_t csvfast_room(size_t len)
{
	return len / 2 + 1;
}

/* At most this many digits make an integer exact in int64 (as number_parse_fast() reads). */
#define SHORT_DIGITS 18

/* A short integer token ("42", "-7") of a float or double, read in the pass that finds its
 * end, with the bits number_parse_fast() gives (the int64 rounded once to the nearest): its
 * length, or 0 for any other token (left to number_parse_fast). */
static size_t short_integral(enum scalar s, const char *p, const char *end, char *dst)
{
	const char *q = p + (*p == '-');
	const char *first = q;
	int64_t v = 0;
	unsigned digit;
	float f;
	double d;

	while (q < end && q - first < SHORT_DIGITS && (digit = (unsigned char)*q - '0') <= 9) {
		v = v * 10 + (int64_t)digit;
		q++;
	}
	/* a 19th digit, a '.', an 'e' ... is another token */
	if (q == first || (q < end && class_of(*q) == B_VALUE))
		return 0;
	if (s == SC_FLOAT) {
		f = *p == '-' ? -(float)v : (float)v;
		memcpy(dst, &f, sizeof(f));
	} else {
		d = *p == '-' ? -(double)v : (double)v;
		memcpy(dst, &d, sizeof(d));
	}
	return (size_t)(q - p);
}

/* One line from *pp (which is before end): its values stored at dst, *pp moved past its
 * newline (or to end). -1 when the general parser must read it: an empty line or field, a
 * byte of B_OTHER, more than room values, a value number_parse_fast() declines. */
static long line_values(enum scalar s, const char **pp, const char *end, char *dst, size_t room)
{
	const char *p = *pp;
	size_t size = scalar_size(s), len;
	bool field_has_value = false, floats = s == SC_FLOAT || s == SC_DOUBLE;
	long count = 0;

	for (;;) {
		const char *tok;

		while (p < end && class_of(*p) == B_BLANK)
			p++;
		tok = p;
		if (floats && p < end && (size_t)count < room &&
		    (len = short_integral(s, p, end, dst + (size_t)count * size)) > 0) {
			p += len;
			count++;
			field_has_value = true;
			continue;
		}
		while (p < end && class_of(*p) == B_VALUE)
			p++;
		if (p > tok) {
			if ((size_t)count == room || (size_t)(p - tok) > CSVFAST_TOKEN_MAX ||
			    number_parse_fast(s, tok, (size_t)(p - tok),
			                      dst + (size_t)count * size))
				return -1;
			count++;
			field_has_value = true;
			continue;
		}
		if (!field_has_value || (p < end && class_of(*p) == B_OTHER))
			return -1;
		if (p < end && *p == ',') {
			p++;
			field_has_value = false;
			continue;
		}
		*pp = p < end ? p + 1 : end;
		return count;
	}
}

long csvfast_line(enum scalar s, const char *line, size_t len, char *dst, size_t room)
{
	const char *p = line, *end = line + len;
	long got = len ? line_values(s, &p, end, dst, room) : -1;

	return p == end ? got : -1; /* a newline inside is not one line */
}

struct part {
	enum scalar s;
	const char *text;
	size_t len;
	char *vals;   /* the part's values: its own array, or its place in the caller's */
	bool own;     /* vals allocated by parse_part (room: csvfast_room), else room given */
	size_t room;  /* values vals can hold */
	size_t n;     /* how many */
	size_t lines; /* newlines passed */
	char *dst;    /* place_part: where its values go */
	bool failed;
};

/* A line that is one short integer and its newline (what `seq` writes), read as a float or
 * double into dst: the bytes taken, or 0 for any other line (line_values reads it; dst may
 * have been written). */
static size_t integer_line(enum scalar s, const char *p, const char *end, char *dst)
{
	size_t len = short_integral(s, p, end, dst);

	return len && (size_t)(end - p) > len && p[len] == '\n' ? len + 1 : 0;
}

static void *parse_part(void *arg)
{
	struct part *pt = arg;
	const char *p = pt->text, *end = pt->text + pt->len;
	size_t size = scalar_size(pt->s), room, took;
	bool floats = pt->s == SC_FLOAT || pt->s == SC_DOUBLE;

	if (pt->own) {
		pt->room = csvfast_room(pt->len);
		pt->vals = malloc(pt->room * size);
	}
	room = pt->room;
	pt->failed = pt->vals == NULL;
	while (!pt->failed && p < end) {
		long got;

		if (floats && pt->n < room &&
		    (took = integer_line(pt->s, p, end, pt->vals + pt->n * size)) > 0) {
			p += took;
			pt->n++;
			pt->lines++;
			continue;
		}
		got = line_values(pt->s, &p, end, pt->vals + pt->n * size, room - pt->n);
		if (got < 0) {
			pt->failed = true;
			break;
		}
		pt->n += (size_t)got;
		pt->lines += p[-1] == '\n'; /* a line was read: p moved */
	}
	return NULL;
}

static void *place_part(void *arg)
{
	struct part *pt = arg;

	if (pt->n)
		memcpy(pt->dst, pt->vals, pt->n * scalar_size(pt->s));
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
		parts[i] = (struct part){.s = s, .text = text + at, .len = to - at, .own = true};
		at = to;
	}
}

static void free_parts(struct part *parts, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (parts[i].own)
			free(parts[i].vals);
}

/* Every part parsed: the number of parts, or 0 when one failed (their arrays freed). */
static size_t parse_parts(struct part *parts, enum scalar s, const char *text, size_t len)
{
	size_t k = par_parts(len, PART_MIN);
	bool failed = false;

	cut(parts, k, s, text, len);
	par_run(parse_part, parts, sizeof(parts[0]), k);
	for (size_t i = 0; i < k; i++)
		failed = failed || parts[i].failed;
	if (!failed)
		return k;
	free_parts(parts, k);
	return 0;
}

/* The parts' values copied in order to dst (over the parts' threads); their arrays freed. */
static void place_parts(struct part *parts, size_t k, char *dst)
{
	size_t size = scalar_size(parts[0].s), at = 0;

	for (size_t i = 0; i < k; i++) {
		parts[i].dst = dst + at * size;
		at += parts[i].n;
	}
	par_run(place_part, parts, sizeof(parts[0]), k);
	free_parts(parts, k);
}

static size_t total_values(const struct part *parts, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < k; i++)
		n += parts[i].n;
	return n;
}

static size_t total_lines(const struct part *parts, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < k; i++)
		n += parts[i].lines;
	return n;
}

int csvfast_all(enum scalar s, const char *text, size_t len, void **dst, size_t *n, size_t *lines)
{
	struct part parts[PARRUN_MAX];
	size_t k = parse_parts(parts, s, text, len), total;
	char *all;

	if (k == 0)
		return -1;
	total = total_values(parts, k);
	if (lines)
		*lines = total_lines(parts, k);
	all = malloc(total ? total * scalar_size(s) : 1);
	if (!all) {
		free_parts(parts, k);
		return -1;
	}
	place_parts(parts, k, all);
	*dst = all;
	*n = total;
	return 0;
}

/* Bytes counted a block at a time: GCC's -O2 vectorises a loop of a fixed count (a memchr
 * a line cost more than the parse it saved). */
#define COUNT_BLOCK 64

static size_t newlines(const char *restrict p, size_t len)
{
	size_t n = 0, i = 0;

	for (; len - i >= COUNT_BLOCK; i += COUNT_BLOCK) {
		unsigned char c = 0;

		for (size_t j = 0; j < COUNT_BLOCK; j++)
			c += p[i + j] == '\n';
		n += c;
	}
	for (; i < len; i++)
		n += p[i] == '\n';
	return n;
}

/* The lines of a part: its newlines, and a last line without one. */
static void *count_part(void *arg)
{
	struct part *pt = arg;

	pt->room = newlines(pt->text, pt->len) + (pt->len && pt->text[pt->len - 1] != '\n');
	return NULL;
}

/* The commonest text, one value a line, parsed straight into dst: each part's place is
 * where its lines say, so no array of its own and no copy. 0 when every line held one
 * value, -1 otherwise (dst may have been written). */
static int parse_in_place(enum scalar s, const char *text, size_t len, char *dst, size_t room,
                          size_t *n, size_t *lines)
{
	struct part parts[PARRUN_MAX];
	size_t k = par_parts(len, PART_MIN), at = 0;

	cut(parts, k, s, text, len);
	par_run(count_part, parts, sizeof(parts[0]), k);
	for (size_t i = 0; i < k; i++) {
		parts[i].own = false;
		parts[i].vals = dst + at * scalar_size(s);
		at += parts[i].room;
	}
	if (at > room)
		return -1;
	par_run(parse_part, parts, sizeof(parts[0]), k);
	*lines = 0;
	for (size_t i = 0; i < k; i++) {
		if (parts[i].failed || parts[i].n != parts[i].room)
			return -1;
		*lines += parts[i].lines;
	}
	*n = at;
	return 0;
}

int csvfast_into(enum scalar s, const char *text, size_t len, void *dst, size_t room, size_t *n,
                 size_t *lines)
{
	struct part parts[PARRUN_MAX];
	size_t k, total;

	if (parse_in_place(s, text, len, dst, room, n, lines) == 0)
		return 0;
	k = parse_parts(parts, s, text, len);

	if (k == 0)
		return -1;
	total = total_values(parts, k);
	if (total > room) {
		free_parts(parts, k);
		return 1;
	}
	*lines = total_lines(parts, k);
	place_parts(parts, k, dst);
	*n = total;
	return 0;
}
