/*
 * Scalars as text: parsing with range checks, and the shortest text that reads back to the
 * same bits. Numbers always use the C locale's '.', whatever setlocale() the front-end did.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strtod_l, strtof_l */
#endif
#include "data/types.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "data/numconv.h"
#include "util/alloc.h"

/* Quote at most this much of a bad value: a stray binary file can make one huge field. */
#define QUOTE_MAX 64

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0)
		c_locale = LC_GLOBAL_LOCALE;
}

static locale_t number_locale(void)
{
	pthread_once(&c_locale_once, c_locale_init);
	return c_locale;
}

/* The value as quoted in a message: at most QUOTE_MAX bytes, control characters as \xNN, so
 * that a binary file or an escape sequence in a field cannot garble the terminal. */
static int bad_value(struct cs_err *e, const char *p, size_t len, const char *what)
{
	char shown[QUOTE_MAX * 4 + 1];
	size_t n = 0;

	for (size_t i = 0; i < len && i < QUOTE_MAX; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(shown + n, sizeof(shown) - n, "\\x%02x", c);
		else
			shown[n++] = (char)c;
	}
	shown[n] = '\0';
	return err_set(e, "'%s%s' %s", shown, len > QUOTE_MAX ? "..." : "", what);
}

/* Not a number, with what to do where the cause is plain: numbers with blanks between them
 * ("1 2 3": the separator is a comma or a new line), or a UTF-8 byte-order mark before the
 * first one (invisible when quoted). */
static bool blank_inside(const char *p, size_t len)
{
	bool seen_value = false, seen_blank = false;

	for (size_t i = 0; i < len; i++) {
		bool blank = p[i] == ' ' || p[i] == '\t';

		if (!blank && seen_value && seen_blank)
			return true;
		seen_blank = seen_blank || (blank && seen_value);
		seen_value = seen_value || !blank;
	}
	return false;
}

static int not_a_number(const char *p, size_t len, struct cs_err *e)
{
	static const char bom[] = "\xef\xbb\xbf";

	if (len >= 3 && memcmp(p, bom, 3) == 0)
		return bad_value(e, p + 3, len - 3,
		                 "follows a UTF-8 byte-order mark: save the file without it "
		                 "(plain ASCII or UTF-8 without BOM)");
	if (blank_inside(p, len))
		return bad_value(e, p, len,
		                 "is not a number: separate values with commas or new lines, not "
		                 "blanks");
	return bad_value(e, p, len, "is not a number");
}

/* An integer type got something that is not an integer: say whether it is a number at all. */
static int not_integer(const char *p, size_t len, struct cs_err *e)
{
	char *end;

	strtod_l(p, &end, number_locale());
	if (end == p + len)
		return bad_value(e, p, len, "is not an integer");
	return not_a_number(p, len, e);
}

static int out_of_range(enum scalar s, const char *p, size_t len, struct cs_err *e)
{
	char what[40];

	snprintf(what, sizeof(what), "is out of range for %s", scalar_name(s));
	return bad_value(e, p, len, what);
}

static void store_signed(enum scalar s, long long v, void *dst)
{
	int8_t c = (int8_t)v;
	int16_t h = (int16_t)v;
	int32_t i = (int32_t)v;
	int64_t l = v;

	if (s == SC_CHAR)
		memcpy(dst, &c, 1);
	else if (s == SC_SHORT)
		memcpy(dst, &h, 2);
	else if (s == SC_INT)
		memcpy(dst, &i, 4);
	else
		memcpy(dst, &l, 8);
}

static void store_unsigned(enum scalar s, unsigned long long v, void *dst)
{
	uint8_t c = (uint8_t)v;
	uint16_t h = (uint16_t)v;
	uint32_t i = (uint32_t)v;
	uint64_t l = v;

	if (s == SC_UCHAR)
		memcpy(dst, &c, 1);
	else if (s == SC_USHORT)
		memcpy(dst, &h, 2);
	else if (s == SC_UINT)
		memcpy(dst, &i, 4);
	else
		memcpy(dst, &l, 8);
}

static int parse_signed(enum scalar s, const char *p, size_t len, void *dst, struct cs_err *e)
{
	unsigned bits = 8 * (unsigned)scalar_size(s);
	long long max = (long long)(UINT64_MAX >> (65 - bits));
	long long v;
	char *end;

	errno = 0;
	v = strtoll(p, &end, 10);
	if (end != p + len)
		return not_integer(p, len, e);
	if (errno == ERANGE || v > max || v < -max - 1)
		return out_of_range(s, p, len, e);
	store_signed(s, v, dst);
	return 0;
}

/* strtoull() wraps "-1" to ULLONG_MAX; only "-0" is a non-negative value with a minus. */
static int parse_unsigned(enum scalar s, const char *p, size_t len, void *dst, struct cs_err *e)
{
	unsigned bits = 8 * (unsigned)scalar_size(s);
	unsigned long long max = UINT64_MAX >> (64 - bits);
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(p, &end, 10);
	if (end != p + len)
		return not_integer(p, len, e);
	if (errno == ERANGE || v > max || (*p == '-' && v != 0))
		return out_of_range(s, p, len, e);
	store_unsigned(s, v, dst);
	return 0;
}

/* Underflow (ERANGE with a tiny or zero result) is accepted: it is rounding, and denormals
 * must read back. Only overflow to infinity is out of range. */
static int parse_float(enum scalar s, const char *p, size_t len, void *dst, struct cs_err *e)
{
	char *end;
	float f = 0;
	double d = 0;

	errno = 0;
	if (s == SC_FLOAT)
		f = strtof_l(p, &end, number_locale());
	else
		d = strtod_l(p, &end, number_locale());
	if (end == p || end != p + len)
		return not_a_number(p, len, e);
	if (errno == ERANGE && (isinf(f) || isinf(d)))
		return out_of_range(s, p, len, e);
	if (s == SC_FLOAT)
		memcpy(dst, &f, sizeof(f));
	else
		memcpy(dst, &d, sizeof(d));
	return 0;
}

/* Plain decimal text only: from_chars reads "nan(...)" payloads and "infinity" its own way,
 * so those, '+', blanks and hex go to the general parser. */
static bool plain_decimal(const char *p, size_t len)
{
	unsigned char c = (unsigned char)p[0];

	if (c == '-' && len > 1)
		c = (unsigned char)p[1];
	return (c >= '0' && c <= '9') || c == '.';
}

static int fast_integer(enum scalar s, const char *p, const char *end, void *dst)
{
	unsigned bits = 8 * (unsigned)scalar_size(s);
	int64_t v;
	uint64_t u;

	if (scalar_is_signed(s)) {
		long long max = (long long)(UINT64_MAX >> (65 - bits));

		if (numconv_int64(p, end, &v) || v > max || v < -max - 1)
			return -1;
		store_signed(s, v, dst);
		return 0;
	}
	if (*p == '-' || numconv_uint64(p, end, &u) || u > UINT64_MAX >> (64 - bits))
		return -1;
	store_unsigned(s, u, dst);
	return 0;
}

/* At most this many digits make an integer exact in int64. */
#define SHORT_DIGITS 18

/* A short integer ("42", "-7"), the commonest value in the CSV of scripts: its digits are
 * exact in an int64, whose conversion rounds once to the nearest even as from_chars does,
 * so the bits are the same at a fraction of the cost. "-0" is -0.0 there too. */
static bool short_integer(const char *p, size_t len, bool *negative, int64_t *v)
{
	size_t i = *p == '-';

	*negative = i == 1;
	if (len == i || len - i > SHORT_DIGITS)
		return false;
	*v = 0;
	for (; i < len; i++) {
		unsigned digit = (unsigned)(unsigned char)p[i] - '0';

		if (digit > 9)
			return false;
		*v = *v * 10 + digit;
	}
	return true;
}

static bool short_float(enum scalar s, const char *p, size_t len, void *dst)
{
	bool negative;
	int64_t v;
	float f;
	double d;

	if (!short_integer(p, len, &negative, &v))
		return false;
	if (s == SC_FLOAT) {
		f = negative ? -(float)v : (float)v;
		memcpy(dst, &f, sizeof(f));
	} else {
		d = negative ? -(double)v : (double)v;
		memcpy(dst, &d, sizeof(d));
	}
	return true;
}

int number_parse_fast(enum scalar s, const char *p, size_t len, void *dst)
{
	float f;
	double d;

	if (len == 0 || !plain_decimal(p, len))
		return -1;
	if (scalar_is_float(s) && short_float(s, p, len, dst))
		return 0;
	if (s == SC_FLOAT) {
		if (numconv_float(p, p + len, &f))
			return -1;
		memcpy(dst, &f, sizeof(f));
		return 0;
	}
	if (s == SC_DOUBLE) {
		if (numconv_double(p, p + len, &d))
			return -1;
		memcpy(dst, &d, sizeof(d));
		return 0;
	}
	return fast_integer(s, p, p + len, dst);
}

int number_parse(enum scalar s, const char *text, void *dst, struct cs_err *e)
{
	const char *p = text;
	size_t len;

	while (isspace((unsigned char)*p))
		p++;
	len = strlen(p);
	while (len > 0 && isspace((unsigned char)p[len - 1]))
		len--;
	if (len == 0)
		return err_set(e, "empty value");
	if (number_parse_fast(s, p, len, dst) == 0)
		return 0;
	if (scalar_is_float(s))
		return parse_float(s, p, len, dst, e);
	if (scalar_is_signed(s))
		return parse_signed(s, p, len, dst, e);
	return parse_unsigned(s, p, len, dst, e);
}

/*
 * Shortest round-trip formatting: std::to_chars gives the shortest digits that read back to
 * the same bits (data/numconv.cc); they are laid out as Python's repr() does, in full when
 * the decimal exponent X is in -4 <= X < 16 ("1000000", "0.0001", "123.5") and in scientific
 * form otherwise ("1e+16", "1.5e-05"), so that a million sorts with `sort -n`.
 */
#define FIXED_MIN_EXP (-4)
#define FIXED_MAX_EXP 16

struct shortest {
	bool neg;
	int n; /* significant digits in d */
	int x; /* the value is d[0].d[1]... times 10^x */
	char d[24];
};

/* Reads to_chars' "-d.ddde+XX" back into digits and an exponent (its sign always given). */
static void shortest_split(const char *sci, int len, struct shortest *sh)
{
	const char *p = sci, *end = sci + len;

	sh->neg = *p == '-';
	p += sh->neg;
	sh->n = 0;
	for (; p < end && *p != 'e'; p++) {
		if (*p != '.')
			sh->d[sh->n++] = *p;
	}
	sh->x = 0;
	if (p + 2 > end)
		return;
	for (const char *q = p + 2; q < end; q++)
		sh->x = sh->x * 10 + (*q - '0');
	if (p[1] == '-')
		sh->x = -sh->x;
}

static int layout_fixed(const struct shortest *sh, char *out)
{
	char *o = out;

	if (sh->neg)
		*o++ = '-';
	if (sh->x < 0) {
		*o++ = '0';
		*o++ = '.';
		for (int i = -1; i > sh->x; i--)
			*o++ = '0';
		memcpy(o, sh->d, (size_t)sh->n);
		o += sh->n;
	} else {
		for (int i = 0; i <= sh->x; i++)
			*o++ = i < sh->n ? sh->d[i] : '0';
		if (sh->n > sh->x + 1) {
			*o++ = '.';
			memcpy(o, sh->d + sh->x + 1, (size_t)(sh->n - sh->x - 1));
			o += sh->n - sh->x - 1;
		}
	}
	return (int)(o - out);
}

/* Below these an integral float or double is its own shortest form: its neighbours are at
 * most 2 (1 for a double) apart, so every other decimal that reads back to it lies within 1
 * of it, and no multiple of 10 but itself does (at a distance of exactly 1 it would be odd);
 * its digits are laid out in full (the exponent is under FIXED_MAX_EXP). */
#define INTEGRAL_FLOAT_MAX  33554432.0         /* 2^25 */
#define INTEGRAL_DOUBLE_MAX 9007199254740992.0 /* 2^53 */

/* How many decimal digits u has, in a few steps of a halving size. */
static int digit_count(uint64_t u)
{
	int n = 1;

	if (u >= 10000000000000000ULL) {
		n += 16;
		u /= 10000000000000000ULL;
	}
	if (u >= 100000000) {
		n += 8;
		u /= 100000000;
	}
	if (u >= 10000) {
		n += 4;
		u /= 10000;
	}
	if (u >= 100) {
		n += 2;
		u /= 100;
	}
	return u >= 10 ? n + 1 : n;
}

/* The decimal digits of u, two at a time from a table, from the last: half the time of
 * std::to_chars (which counts the digits one multiply at a time) for the integral floats
 * of a large output; checked against printf for every integral float below 2^25. */
static int u64_digits(uint64_t u, char *out)
{
	static const char pairs[] = "000102030405060708091011121314151617181920212223242526272829"
	                            "303132333435363738394041424344454647484950515253545556575859"
	                            "606162636465666768697071727374757677787980818283848586878889"
	                            "90919293949596979899";
	int len = digit_count(u);
	char *p = out + len;

	while (u >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * u, 2);
	} else {
		*--p = (char)('0' + u);
	}
	return len;
}

/* v's integer digits when v is integral below the limit (not -0): the commonest value in
 * the CSV of scripts, printed without the shortest-digit search. 0 when not. */
static int format_integral(double v, double limit, char *out)
{
	int64_t i;

	if (!(v > -limit && v < limit))
		return 0;
	i = (int64_t)v;
	if ((double)i != v || (i == 0 && signbit(v)))
		return 0;
	if (i >= 0)
		return u64_digits((uint64_t)i, out);
	*out = '-';
	return 1 + u64_digits((uint64_t)-i, out + 1);
}

/* out holds NUMBER_BUF bytes; returns the length, no NUL written. */
static int format_shortest(double v, bool is_float, char *out)
{
	char sci[40];
	struct shortest sh;
	int len = format_integral(v, is_float ? INTEGRAL_FLOAT_MAX : INTEGRAL_DOUBLE_MAX, out);

	if (len > 0)
		return len;
	if (isnan(v)) {
		memcpy(out, "nan", 3);
		return 3;
	}
	if (isinf(v)) {
		memcpy(out, v < 0 ? "-inf" : "inf", v < 0 ? 4 : 3);
		return v < 0 ? 4 : 3;
	}
	len = is_float ? numconv_float_sci((float)v, sci) : numconv_double_sci(v, sci);
	shortest_split(sci, len, &sh);
	if (sh.x < FIXED_MIN_EXP || sh.x >= FIXED_MAX_EXP) {
		memcpy(out, sci, (size_t)len);
		return len;
	}
	return layout_fixed(&sh, out);
}

static long long load_signed(enum scalar s, const void *src)
{
	int8_t c;
	int16_t h;
	int32_t i;
	int64_t l;

	if (s == SC_CHAR) {
		memcpy(&c, src, 1);
		return c;
	}
	if (s == SC_SHORT) {
		memcpy(&h, src, 2);
		return h;
	}
	if (s == SC_INT) {
		memcpy(&i, src, 4);
		return i;
	}
	memcpy(&l, src, 8);
	return l;
}

static unsigned long long load_unsigned(enum scalar s, const void *src)
{
	uint8_t c;
	uint16_t h;
	uint32_t i;
	uint64_t l;

	if (s == SC_UCHAR) {
		memcpy(&c, src, 1);
		return c;
	}
	if (s == SC_USHORT) {
		memcpy(&h, src, 2);
		return h;
	}
	if (s == SC_UINT) {
		memcpy(&i, src, 4);
		return i;
	}
	memcpy(&l, src, 8);
	return l;
}

double scalar_load_double(enum scalar s, const void *src)
{
	float f;
	double d;

	if (s == SC_FLOAT) {
		memcpy(&f, src, sizeof(f));
		return f;
	}
	if (s == SC_DOUBLE) {
		memcpy(&d, src, sizeof(d));
		return d;
	}
	if (scalar_is_signed(s))
		return (double)load_signed(s, src);
	return (double)load_unsigned(s, src);
}

void scalar_store_integer(enum scalar s, long long v, void *dst)
{
	float f = (float)v;
	double d = (double)v;

	if (s == SC_FLOAT)
		memcpy(dst, &f, sizeof(f));
	else if (s == SC_DOUBLE)
		memcpy(dst, &d, sizeof(d));
	else if (scalar_is_signed(s))
		store_signed(s, v, dst);
	else
		store_unsigned(s, (unsigned long long)v, dst);
}

/* Like snprintf(buf, n, "%s", out) for the len bytes at out, without printf's cost. */
static int copy_out(const char *out, int len, char *buf, size_t n)
{
	if (n > 0) {
		size_t copied = (size_t)len < n ? (size_t)len : n - 1;

		memcpy(buf, out, copied);
		buf[copied] = '\0';
	}
	return len;
}

int number_format(enum scalar s, const void *src, char *buf, size_t n)
{
	char tmp[NUMBER_BUF];
	/* no form is as long as NUMBER_BUF: a buffer that large is written directly */
	char *out = n >= NUMBER_BUF ? buf : tmp;
	float f;
	double d;
	int len;

	if (s == SC_FLOAT) {
		memcpy(&f, src, sizeof(f));
		len = format_shortest(f, true, out);
	} else if (s == SC_DOUBLE) {
		memcpy(&d, src, sizeof(d));
		len = format_shortest(d, false, out);
	} else if (scalar_is_signed(s)) {
		len = numconv_int64_text(load_signed(s, src), out);
	} else {
		len = numconv_uint64_text(load_unsigned(s, src), out);
	}
	if (out == tmp)
		return copy_out(out, len, buf, n);
	buf[len] = '\0';
	return len;
}

static int vector_count_error(struct cs_type t, const char *text, size_t count, struct cs_err *e)
{
	char name[16];

	type_name(t, name, sizeof(name));
	if (t.width == 1)
		return err_set(e, "'%s' has %zu values, %s needs 1", text, count, name);
	return err_set(e, "'%s' has %zu values, %s needs %u (or 1)", text, count, name, t.width);
}

static int vector_parse_each(struct cs_type t, const char *text, char *dst, struct cs_err *e)
{
	size_t size = scalar_size(t.scalar);
	char *copy = xstrdup(text);
	char *rest = copy;
	int rc = 0;

	for (unsigned i = 0; i < t.width && rc == 0; i++) {
		rc = number_parse(t.scalar, strsep(&rest, ","), dst + i * size, e);
		if (rc)
			err_prefix(e, "value %u of '%s': ", i + 1, text);
	}
	free(copy);
	return rc;
}

int vector_parse(struct cs_type t, const char *text, void *dst, struct cs_err *e)
{
	size_t count = 1;
	struct cs_type one = {t.scalar, 1};

	for (const char *p = text; *p; p++)
		count += *p == ',';
	if (count != 1 && count != t.width)
		return vector_count_error(t, text, count, e);
	if (count > 1)
		return vector_parse_each(t, text, dst, e);
	if (number_parse(t.scalar, text, dst, e))
		return -1;
	type_fill(one, (char *)dst + scalar_size(t.scalar), t.width - 1, dst);
	return 0;
}
