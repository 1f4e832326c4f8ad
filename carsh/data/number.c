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
	if (scalar_is_float(s))
		return parse_float(s, p, len, dst, e);
	if (scalar_is_signed(s))
		return parse_signed(s, p, len, dst, e);
	return parse_unsigned(s, p, len, dst, e);
}

/*
 * Shortest round-trip formatting: the shortest of %.6g .. %.9g (float) or %.15g .. %.17g
 * (double) that reads back to the same bits. printf and strtof cost 100-250 ns a call here,
 * too slow for a million values, so the exact decimal digits are computed in integers and
 * rounded as printf rounds (to nearest, ties to even), and a candidate is checked against the
 * interval of decimals that strtof would read back as the value (as Ryu does). Doubles below
 * about 1e-38 take printf's digits; they, denormals, and values whose interval does not fit
 * 128 bits are checked with strtof.
 */
typedef unsigned __int128 u128;

/* A binary format and the %g precisions to try. */
struct fp_format {
	int prec;     /* significand bits */
	int min_bexp; /* frexp() exponent of the smallest normal number */
	int least, most;
};

static const struct fp_format fp_float = {24, -125, 6, 9};
static const struct fp_format fp_double = {53, -1021, 15, 17};

struct decimal {
	bool neg;
	bool sticky; /* nonzero digits were cut off after d */
	int exp;     /* the value is d[0].d[1]d[2]... times 10^exp */
	int n;
	char d[24];
};

/* The decimals that read back as v, scaled to integers: a candidate C (v ~ C * 10^-k) reads
 * back when C << shift lies within [value - below, value + above], the ends included for an
 * even significand (strtod rounds ties to even). */
struct roundtrip {
	bool known;
	bool even;
	int k;
	int shift;
	u128 value, below, above;
};

#define POW5_MAX 55 /* 5^55 < 2^128 */

static u128 pow5_128[POW5_MAX + 1];
static u128 pow10_128[39]; /* 10^38 < 2^128 */
static pthread_once_t pow_once = PTHREAD_ONCE_INIT;

static void pow_init(void)
{
	pow5_128[0] = 1;
	for (int i = 1; i <= POW5_MAX; i++)
		pow5_128[i] = pow5_128[i - 1] * 5;
	pow10_128[0] = 1;
	for (int i = 1; i < 39; i++)
		pow10_128[i] = pow10_128[i - 1] * 10;
}

/* floor(e * log10(2)) for |e| < 1650 (Ryu's constant: 78913 / 2^18). log10(2) is irrational,
 * so for negative e the floor is one below the truncated magnitude. */
static int floor_log10_pow2(int e)
{
	return e >= 0 ? (e * 78913) >> 18 : -((-e * 78913) >> 18) - 1;
}

/* dec = n times 10^pow10. */
static void decimal_set(struct decimal *dec, uint64_t n, int pow10, bool sticky)
{
	char tmp[24];
	int len = 0;

	do {
		tmp[len++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	for (int i = 0; i < len; i++)
		dec->d[i] = tmp[len - 1 - i];
	dec->d[len] = '\0';
	dec->n = len;
	dec->exp = len - 1 + pow10;
	dec->sticky = sticky;
}

/* v = m * 2^e with e >= 0: an integer. Past 64 bits, 19 digits are kept and the rest go into
 * sticky: still more than the 17 + 1 that rounding needs. */
static bool decimal_integer(uint64_t m, int e, struct decimal *dec)
{
	u128 x, q;
	int digits = 20;

	if (e > 127 - (63 - __builtin_clzll(m)))
		return false;
	x = (u128)m << e;
	if (x <= UINT64_MAX) {
		decimal_set(dec, (uint64_t)x, 0, false);
		return true;
	}
	while (digits < 39 && x >= pow10_128[digits])
		digits++;
	q = x / pow10_128[digits - 19];
	decimal_set(dec, (uint64_t)q, digits - 19, x != q * pow10_128[digits - 19]);
	return true;
}

/* m * 5^k >> sh (a 64-bit result), sticky when bits shifted out are not all zero. The
 * product takes up to 53 + 128 bits: it is formed as hi * 2^64 + lo. */
static uint64_t mul_pow5_shift(uint64_t m, int k, int sh, bool *sticky)
{
	u128 low = (u128)m * (uint64_t)pow5_128[k];
	u128 hi = (u128)m * (uint64_t)(pow5_128[k] >> 64) + (low >> 64);
	uint64_t lo = (uint64_t)low;

	if (sh < 64) {
		*sticky = (lo & ((1ull << sh) - 1)) != 0;
		return (uint64_t)(hi << (64 - sh)) | lo >> sh;
	}
	*sticky = lo != 0 || (hi & (((u128)1 << (sh - 64)) - 1)) != 0;
	return (uint64_t)(hi >> (sh - 64));
}

/* v = m / 2^s, scaled by 10^k: v * 10^k = m * 5^k * 2^(k-s), below 2^64 by the choice of k. */
static bool decimal_fraction(uint64_t m, int s, int k, struct decimal *dec)
{
	bool sticky = false;
	uint64_t n;

	if (k < 0 || k > POW5_MAX || s - k >= 64 + 128)
		return false;
	if (k >= s)
		n = mul_pow5_shift(m, k, 0, &sticky) << (k - s);
	else
		n = mul_pow5_shift(m, k, s - k, &sticky);
	decimal_set(dec, n, -k, sticky);
	return true;
}

/* value and half_gap already scaled by 10^k and 2^shift. Just above a power of two the gap
 * below is half as wide. */
static void roundtrip_set(struct roundtrip *rt, int k, int shift, u128 value, u128 half_gap,
                          bool boundary, bool even)
{
	rt->k = k;
	rt->shift = shift;
	rt->value = value;
	rt->above = half_gap;
	rt->below = boundary ? half_gap / 2 : half_gap;
	rt->even = even;
	rt->known = true;
}

static bool at_power_of_two(uint64_t m, int bexp, const struct fp_format *fmt)
{
	return m == 1ull << (fmt->prec - 1) && bexp > fmt->min_bexp;
}

/* v = m / 2^s (m the full significand): scale by 10^k and by 4 << (s - k) so that v and the
 * half gaps to its neighbours are integers. */
static void roundtrip_fraction(struct roundtrip *rt, uint64_t m, int s, int k, int bexp,
                               const struct fp_format *fmt)
{
	u128 value;

	if (bexp < fmt->min_bexp || s - k + 2 < 0 || s - k + 2 > 120)
		return;
	if (__builtin_mul_overflow((u128)m, pow5_128[k], &value) || value >> 124)
		return;
	roundtrip_set(rt, k, s - k + 2, value << 2, 2 * pow5_128[k], at_power_of_two(m, bexp, fmt),
	              m % 2 == 0);
}

/* v = m * 2^e, an integer: scale by 2^t so that the half gap 2^(e-1) is an integer with
 * room to halve. */
static void roundtrip_integer(struct roundtrip *rt, uint64_t m, int e, int bexp,
                              const struct fp_format *fmt)
{
	int t = e < 2 ? 2 - e : 0;

	roundtrip_set(rt, 0, t, (u128)m << (e + t), (u128)1 << (e - 1 + t),
	              at_power_of_two(m, bexp, fmt), m % 2 == 0);
}

static bool roundtrip_ok(const struct roundtrip *rt, const struct decimal *dec)
{
	int pow10_exp = dec->exp - (dec->n - 1) + rt->k;
	u128 c = 0;
	u128 gap, width;

	if (pow10_exp < 0 || pow10_exp > 38)
		return false;
	for (int i = 0; i < dec->n; i++)
		c = c * 10 + (u128)(dec->d[i] - '0');
	/* A candidate past 2^128 is far outside the interval. */
	if (__builtin_mul_overflow(c, pow10_128[pow10_exp], &c))
		return false;
	if (rt->shift > 0 && c >> (128 - rt->shift) != 0)
		return false;
	c <<= rt->shift;
	gap = c >= rt->value ? c - rt->value : rt->value - c;
	width = c >= rt->value ? rt->above : rt->below;
	return gap < width || (gap == width && rt->even);
}

/* The exact digits of finite v: all of them, or more than fmt->most and a sticky bit. */
static bool decimal_exact(double v, const struct fp_format *fmt, struct decimal *dec,
                          struct roundtrip *rt)
{
	int bexp;
	uint64_t m = (uint64_t)ldexp(frexp(fabs(v), &bexp), fmt->prec);
	int e = bexp - fmt->prec;
	int zeros, k;

	pthread_once(&pow_once, pow_init);
	rt->known = false;
	dec->neg = signbit(v);
	if (m == 0) {
		decimal_set(dec, 0, 0, false);
		return true;
	}
	zeros = __builtin_ctzll(m);
	if (e + zeros >= 0) {
		if (!decimal_integer(m >> zeros, e + zeros, dec))
			return false;
		roundtrip_integer(rt, m, e, bexp, fmt);
		return true;
	}
	/* One digit more than the longest form, so that rounding sees the digit after it. */
	k = fmt->most - floor_log10_pow2(bexp - 1);
	if (!decimal_fraction(m >> zeros, -e - zeros, k, dec))
		return false;
	roundtrip_fraction(rt, m, -e, k, bexp, fmt);
	return true;
}

/* The slow way: printf's own %.*e digits, read in any locale (any non-digit before the 'e'
 * is the decimal point). */
static void decimal_print(double v, int digits, struct decimal *dec)
{
	char text[48];
	const char *p = text;

	snprintf(text, sizeof(text), "%.*e", digits - 1, v);
	dec->neg = *p == '-';
	p += dec->neg;
	for (dec->n = 0; *p != 'e'; p++) {
		if (isdigit((unsigned char)*p))
			dec->d[dec->n++] = *p;
	}
	dec->d[dec->n] = '\0';
	dec->exp = atoi(p + 1);
	dec->sticky = false;
}

static bool decimal_rounds_up(const struct decimal *dec, int digits)
{
	char first = dec->d[digits];

	if (first != '5')
		return first > '5';
	if (dec->sticky || dec->d[digits + 1 + strspn(dec->d + digits + 1, "0")] != '\0')
		return true;
	return (dec->d[digits - 1] - '0') % 2 == 1;
}

/* Round exact digits to `digits` significant digits, as printf does. */
static void decimal_round(const struct decimal *from, int digits, struct decimal *to)
{
	int i;

	*to = *from;
	if (from->n <= digits)
		return;
	to->n = digits;
	to->d[digits] = '\0';
	if (!decimal_rounds_up(from, digits))
		return;
	for (i = digits - 1; i >= 0 && to->d[i] == '9'; i--)
		to->d[i] = '0';
	if (i >= 0) {
		to->d[i]++;
	} else {
		to->d[0] = '1';
		to->exp++;
	}
}

static char *put_digits(char *o, const char *d, int n)
{
	memcpy(o, d, (size_t)n);
	return o + n;
}

/* "e+05", "e-123": printf's exponent, at least two digits. */
static char *put_exponent(char *o, int x)
{
	int ax = abs(x);

	*o++ = 'e';
	*o++ = x < 0 ? '-' : '+';
	if (ax >= 100)
		*o++ = (char)('0' + ax / 100);
	*o++ = (char)('0' + ax / 10 % 10);
	*o++ = (char)('0' + ax % 10);
	return o;
}

/* The %.{precision}g rendering of dec (C11 7.21.6.1: style f when precision > X >= -4). */
static int decimal_format_g(const struct decimal *dec, int precision, char *out)
{
	int n = dec->n;
	int x = dec->exp;
	char *o = out;

	while (n > 1 && dec->d[n - 1] == '0')
		n--;
	if (dec->neg)
		*o++ = '-';
	if (precision > x && x >= 0) {
		int whole = x + 1 < n ? x + 1 : n;

		o = put_digits(o, dec->d, whole);
		for (int i = whole; i <= x; i++)
			*o++ = '0';
		if (n > x + 1) {
			*o++ = '.';
			o = put_digits(o, dec->d + x + 1, n - x - 1);
		}
	} else if (precision > x && x >= -4) {
		*o++ = '0';
		*o++ = '.';
		for (int i = -1; i > x; i--)
			*o++ = '0';
		o = put_digits(o, dec->d, n);
	} else {
		*o++ = dec->d[0];
		if (n > 1) {
			*o++ = '.';
			o = put_digits(o, dec->d + 1, n - 1);
		}
		o = put_exponent(o, x);
	}
	*o = '\0';
	return (int)(o - out);
}

static bool reads_back(const char *text, double v, const struct fp_format *fmt)
{
	if (fmt == &fp_float) {
		float f = (float)v;
		float r = strtof_l(text, NULL, number_locale());

		return memcmp(&f, &r, sizeof(f)) == 0;
	}
	double r = strtod_l(text, NULL, number_locale());

	return memcmp(&v, &r, sizeof(v)) == 0;
}

static int format_shortest(double v, const struct fp_format *fmt, char *out)
{
	struct decimal exact, dec;
	struct roundtrip rt = {.known = false};
	bool fast;
	int len;

	if (isnan(v))
		return sprintf(out, "nan");
	if (isinf(v))
		return sprintf(out, "%sinf", v < 0 ? "-" : "");
	fast = decimal_exact(v, fmt, &exact, &rt);
	for (int p = fmt->least;; p++) {
		if (fast)
			decimal_round(&exact, p, &dec);
		else
			decimal_print(v, p, &dec);
		if (p == fmt->most || (rt.known && roundtrip_ok(&rt, &dec)))
			return decimal_format_g(&dec, p, out);
		if (rt.known)
			continue;
		len = decimal_format_g(&dec, p, out);
		if (reads_back(out, v, fmt))
			return len;
	}
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

/* Like snprintf(buf, n, "%s", out), without printf's cost. */
static int copy_out(const char *out, char *buf, size_t n)
{
	size_t len = strlen(out);

	if (n > 0) {
		size_t copied = len < n ? len : n - 1;

		memcpy(buf, out, copied);
		buf[copied] = '\0';
	}
	return (int)len;
}

int number_format(enum scalar s, const void *src, char *buf, size_t n)
{
	char out[NUMBER_BUF];
	float f;
	double d;

	if (s == SC_FLOAT) {
		memcpy(&f, src, sizeof(f));
		format_shortest(f, &fp_float, out);
	} else if (s == SC_DOUBLE) {
		memcpy(&d, src, sizeof(d));
		format_shortest(d, &fp_double, out);
	} else if (scalar_is_signed(s)) {
		snprintf(out, sizeof(out), "%lld", load_signed(s, src));
	} else {
		snprintf(out, sizeof(out), "%llu", load_unsigned(s, src));
	}
	return copy_out(out, buf, n);
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
