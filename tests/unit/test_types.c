/* Types, number parsing and formatting, vectors (DESIGN §3.1). */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/fill.h"
#include "data/types.h"
#include "suites.h"

/* OpenCL C's sizes, written down independently of the implementation's table. */
static const struct {
	const char *name;
	enum scalar scalar;
	size_t size;
	int is_float, is_signed;
} opencl[] = {
        {"char", SC_CHAR, 1, 0, 1},     {"uchar", SC_UCHAR, 1, 0, 0}, {"short", SC_SHORT, 2, 0, 1},
        {"ushort", SC_USHORT, 2, 0, 0}, {"int", SC_INT, 4, 0, 1},     {"uint", SC_UINT, 4, 0, 0},
        {"long", SC_LONG, 8, 0, 1},     {"ulong", SC_ULONG, 8, 0, 0}, {"float", SC_FLOAT, 4, 1, 1},
        {"double", SC_DOUBLE, 8, 1, 1},
};

static const unsigned widths[] = {1, 2, 4, 8, 16};

/* A fixed-seed generator, so that failures repeat. */
static uint64_t rng_state = 0x853c49e6748fea9bull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

START_TEST(test_type_parse_every_scalar_and_width)
{
	struct cs_err e;

	for (size_t i = 0; i < sizeof(opencl) / sizeof(opencl[0]); i++) {
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			char text[32], back[32];
			struct cs_type t;

			if (widths[w] == 1)
				snprintf(text, sizeof(text), "%s", opencl[i].name);
			else
				snprintf(text, sizeof(text), "%s%u", opencl[i].name, widths[w]);
			ck_assert_int_eq(type_parse(text, &t, &e), 0);
			ck_assert_int_eq(t.scalar, opencl[i].scalar);
			ck_assert_uint_eq(t.width, widths[w]);
			ck_assert_uint_eq(type_size(t), opencl[i].size * widths[w]);
			ck_assert_str_eq(type_name(t, back, sizeof(back)), text);
		}
	}
}
END_TEST

START_TEST(test_scalar_properties_match_opencl)
{
	for (size_t i = 0; i < sizeof(opencl) / sizeof(opencl[0]); i++) {
		ck_assert_str_eq(scalar_name(opencl[i].scalar), opencl[i].name);
		ck_assert_uint_eq(scalar_size(opencl[i].scalar), opencl[i].size);
		ck_assert_int_eq(scalar_is_float(opencl[i].scalar), opencl[i].is_float);
		ck_assert_int_eq(scalar_is_signed(opencl[i].scalar), opencl[i].is_signed);
	}
	ck_assert_str_eq(type_names(), "char uchar short ushort int uint long ulong float double");
}
END_TEST

START_TEST(test_type_parse_unknown_lists_the_types)
{
	const char *bad[] = {"flaot", "float3", "float1",  "float04", "float32", "",
	                     "4",     "Float",  "float 4", "float4x", "int-2"};
	struct cs_err e;
	struct cs_type t;
	char want[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(type_parse(bad[i], &t, &e), -1);
		snprintf(want, sizeof(want),
		         "unknown type '%s' (types: char uchar short ushort int uint long ulong "
		         "float double, with widths 2 4 8 16)",
		         bad[i]);
		ck_assert_str_eq(e.msg, want);
	}
}
END_TEST

/* Limits of each integer type as text, and the values they must give. */
static const struct {
	enum scalar s;
	const char *min, *max, *below, *above;
	long long smin;
	unsigned long long umax;
} limits[] = {
        {SC_CHAR, "-128", "127", "-129", "128", INT8_MIN, INT8_MAX},
        {SC_UCHAR, "0", "255", "-1", "256", 0, UINT8_MAX},
        {SC_SHORT, "-32768", "32767", "-32769", "32768", INT16_MIN, INT16_MAX},
        {SC_USHORT, "0", "65535", "-1", "65536", 0, UINT16_MAX},
        {SC_INT, "-2147483648", "2147483647", "-2147483649", "2147483648", INT32_MIN, INT32_MAX},
        {SC_UINT, "0", "4294967295", "-1", "4294967296", 0, UINT32_MAX},
        {SC_LONG, "-9223372036854775808", "9223372036854775807", "-9223372036854775809",
         "9223372036854775808", INT64_MIN, INT64_MAX},
        {SC_ULONG, "0", "18446744073709551615", "-1", "18446744073709551616", 0, UINT64_MAX},
};

/* The value v stored as scalar s, by C conversion: the expected bytes. */
static void native(enum scalar s, unsigned long long v, void *out)
{
	int8_t c = (int8_t)v;
	int16_t h = (int16_t)v;
	int32_t i = (int32_t)v;

	if (scalar_size(s) == 1)
		memcpy(out, &c, 1);
	else if (scalar_size(s) == 2)
		memcpy(out, &h, 2);
	else if (scalar_size(s) == 4)
		memcpy(out, &i, 4);
	else
		memcpy(out, &v, 8);
}

START_TEST(test_number_parse_integer_limits)
{
	enum scalar s = limits[_i].s;
	unsigned char got[8], want[8];
	char msg[128];
	struct cs_err e;

	ck_assert_int_eq(number_parse(s, limits[_i].min, got, &e), 0);
	native(s, (unsigned long long)limits[_i].smin, want);
	ck_assert_mem_eq(got, want, scalar_size(s));
	ck_assert_int_eq(number_parse(s, limits[_i].max, got, &e), 0);
	native(s, limits[_i].umax, want);
	ck_assert_mem_eq(got, want, scalar_size(s));

	ck_assert_int_eq(number_parse(s, limits[_i].above, got, &e), -1);
	snprintf(msg, sizeof(msg), "'%s' is out of range for %s", limits[_i].above, scalar_name(s));
	ck_assert_str_eq(e.msg, msg);
	ck_assert_int_eq(number_parse(s, limits[_i].below, got, &e), -1);
	snprintf(msg, sizeof(msg), "'%s' is out of range for %s", limits[_i].below, scalar_name(s));
	ck_assert_str_eq(e.msg, msg);
}
END_TEST

/* Integer text takes a shorter path than from_chars for floats: the same bits as glibc's
 * correctly rounded strtof/strtod, at the rounding points and past the short path's 18 digits. */
START_TEST(test_number_parse_float_integers_round_as_strtod)
{
	static const char *const texts[] = {
	        "0",
	        "-0",
	        "7",
	        "-7",
	        "007",
	        "16777216",
	        "16777217",
	        "16777219",
	        "-16777217",
	        "33554435",
	        "9007199254740993",
	        "-9007199254740995",
	        "123456789012345678",
	        "999999999999999999",
	        "1234567890123456789",
	        "99999999999999999999",
	};
	struct cs_err e;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		float f, want_f = strtof(texts[i], NULL);
		double d, want_d = strtod(texts[i], NULL);

		ck_assert_int_eq(number_parse(SC_FLOAT, texts[i], &f, &e), 0);
		ck_assert_int_eq(number_parse(SC_DOUBLE, texts[i], &d, &e), 0);
		ck_assert_msg(memcmp(&f, &want_f, sizeof(f)) == 0, "float '%s': %a, expected %a",
		              texts[i], (double)f, (double)want_f);
		ck_assert_msg(memcmp(&d, &want_d, sizeof(d)) == 0, "double '%s': %a, expected %a",
		              texts[i], d, want_d);
	}
}
END_TEST

START_TEST(test_number_parse_rejects_what_is_not_an_integer)
{
	struct cs_err e;
	int v;

	ck_assert_int_eq(number_parse(SC_INT, "2.5", &v, &e), -1);
	ck_assert_str_eq(e.msg, "'2.5' is not an integer");
	ck_assert_int_eq(number_parse(SC_INT, "1e3", &v, &e), -1);
	ck_assert_str_eq(e.msg, "'1e3' is not an integer");
	ck_assert_int_eq(number_parse(SC_INT, "abc", &v, &e), -1);
	ck_assert_str_eq(e.msg, "'abc' is not a number");
	ck_assert_int_eq(number_parse(SC_INT, "12abc", &v, &e), -1);
	ck_assert_str_eq(e.msg, "'12abc' is not a number");
	ck_assert_int_eq(number_parse(SC_INT, "", &v, &e), -1);
	ck_assert_str_eq(e.msg, "empty value");
	ck_assert_int_eq(number_parse(SC_INT, " \t ", &v, &e), -1);
	ck_assert_str_eq(e.msg, "empty value");
	ck_assert_int_eq(number_parse(SC_INT, "1 2", &v, &e), -1);
	ck_assert_str_eq(e.msg, "'1 2' is not a number: separate values with commas or new lines, "
	                        "not blanks");
	ck_assert_int_eq(number_parse(SC_FLOAT,
	                              "\xef\xbb\xbf"
	                              "1",
	                              &v, &e),
	                 -1);
	ck_assert_str_eq(e.msg, "'1' follows a UTF-8 byte-order mark: save the file without it "
	                        "(plain ASCII or UTF-8 without BOM)");
	ck_assert_int_eq(number_parse(SC_FLOAT, "1.5x", &v, &e), -1);
	ck_assert_str_eq(e.msg, "'1.5x' is not a number");
	ck_assert_int_eq(number_parse(SC_DOUBLE, "", &v, &e), -1);
	ck_assert_str_eq(e.msg, "empty value");
}
END_TEST

START_TEST(test_number_parse_allows_blanks_around_the_value)
{
	struct cs_err e;
	int v = 0;
	double d = 0;

	ck_assert_int_eq(number_parse(SC_INT, "  -42\t ", &v, &e), 0);
	ck_assert_int_eq(v, -42);
	ck_assert_int_eq(number_parse(SC_INT, "+7", &v, &e), 0);
	ck_assert_int_eq(v, 7);
	ck_assert_int_eq(number_parse(SC_DOUBLE, " 0.25 ", &d, &e), 0);
	ck_assert_double_eq(d, 0.25);
}
END_TEST

START_TEST(test_number_parse_unsigned_refuses_negatives)
{
	struct cs_err e;
	unsigned long long ul = 99;
	unsigned u = 99;

	ck_assert_int_eq(number_parse(SC_ULONG, "-1", &ul, &e), -1);
	ck_assert_str_eq(e.msg, "'-1' is out of range for ulong");
	ck_assert_int_eq(number_parse(SC_UINT, " -18446744073709551615", &u, &e), -1);
	ck_assert_str_eq(e.msg, "'-18446744073709551615' is out of range for uint");
	ck_assert_int_eq(number_parse(SC_UINT, "-0", &u, &e), 0);
	ck_assert_uint_eq(u, 0);
}
END_TEST

START_TEST(test_number_parse_float_rounds_once)
{
	/* Just above the midpoint between 1 and the next float: strtof rounds up, while
	 * strtod gives the midpoint itself, which a cast to float rounds to even (1). */
	const char *text = "1.0000000596046447753906250001";
	struct cs_err e;
	float f;

	ck_assert_float_eq((float)strtod(text, NULL), 1.0f);
	ck_assert_int_eq(number_parse(SC_FLOAT, text, &f, &e), 0);
	ck_assert_float_eq(f, nextafterf(1.0f, 2.0f));
}
END_TEST

START_TEST(test_number_parse_float_range_and_specials)
{
	struct cs_err e;
	float f;
	double d;

	ck_assert_int_eq(number_parse(SC_FLOAT, "1e39", &f, &e), -1);
	ck_assert_str_eq(e.msg, "'1e39' is out of range for float");
	ck_assert_int_eq(number_parse(SC_DOUBLE, "-1e309", &d, &e), -1);
	ck_assert_str_eq(e.msg, "'-1e309' is out of range for double");
	/* Underflow is rounding, not an error: denormals must read back. */
	ck_assert_int_eq(number_parse(SC_FLOAT, "1e-45", &f, &e), 0);
	ck_assert_float_eq(f, nextafterf(0.0f, 1.0f));
	ck_assert_int_eq(number_parse(SC_FLOAT, "inf", &f, &e), 0);
	ck_assert(isinf(f) && f > 0);
	ck_assert_int_eq(number_parse(SC_FLOAT, "-inf", &f, &e), 0);
	ck_assert(isinf(f) && f < 0);
	ck_assert_int_eq(number_parse(SC_DOUBLE, "nan", &d, &e), 0);
	ck_assert(isnan(d));
	ck_assert_int_eq(number_parse(SC_DOUBLE, "0x1p-2", &d, &e), 0);
	ck_assert_double_eq(d, 0.25);
}
END_TEST

static const char *fmt_float(float f, char *buf)
{
	number_format(SC_FLOAT, &f, buf, NUMBER_BUF);
	return buf;
}

static const char *fmt_double(double d, char *buf)
{
	number_format(SC_DOUBLE, &d, buf, NUMBER_BUF);
	return buf;
}

START_TEST(test_number_format_known_values)
{
	char b[NUMBER_BUF];

	ck_assert_str_eq(fmt_float(0.1f, b), "0.1");
	ck_assert_str_eq(fmt_float(1.0f, b), "1");
	ck_assert_str_eq(fmt_float(-2.5f, b), "-2.5");
	ck_assert_str_eq(fmt_float(1e10f, b), "10000000000");
	ck_assert_str_eq(fmt_float(123456789.0f, b), "123456790");
	ck_assert_str_eq(fmt_float(1e6f, b), "1000000");
	ck_assert_str_eq(fmt_float(1e16f, b), "1e+16");
	ck_assert_str_eq(fmt_float(1.5e-7f, b), "1.5e-07");
	ck_assert_str_eq(fmt_float(0.0001f, b), "0.0001");
	ck_assert_str_eq(fmt_float(0.00001f, b), "1e-05");
	ck_assert_str_eq(fmt_float(-0.0f, b), "-0");
	ck_assert_str_eq(fmt_float(FLT_MAX, b), "3.4028235e+38");
	ck_assert_str_eq(fmt_float(1.0f / 3.0f, b), "0.33333334");
	ck_assert_str_eq(fmt_float(nextafterf(0.0f, 1.0f), b), "1e-45");
	ck_assert_str_eq(fmt_float(NAN, b), "nan");
	ck_assert_str_eq(fmt_float(INFINITY, b), "inf");
	ck_assert_str_eq(fmt_float(-INFINITY, b), "-inf");
	ck_assert_str_eq(fmt_double(0.1, b), "0.1");
	ck_assert_str_eq(fmt_double(0.1 + 0.2, b), "0.30000000000000004");
	ck_assert_str_eq(fmt_double(1.0 / 3.0, b), "0.3333333333333333");
	ck_assert_str_eq(fmt_double(DBL_MAX, b), "1.7976931348623157e+308");
	ck_assert_str_eq(fmt_double(5e-324, b), "5e-324");
	ck_assert_str_eq(fmt_double(1e6, b), "1000000");
	ck_assert_str_eq(fmt_double(123456789012345.6, b), "123456789012345.6");
	ck_assert_str_eq(fmt_double(1234567890123456.7, b), "1234567890123456.8");
	ck_assert_str_eq(fmt_double(1e16, b), "1e+16");
	ck_assert_str_eq(fmt_double(-INFINITY, b), "-inf");
}
END_TEST

/* Integral values print as their integer digits below 2^25 (float) and 2^53 (double) without
 * the shortest-digit search; the digits are those of the search (checked for every integral
 * float below 2^25 once, by hand). Just past 2^25 a float has a shorter form. */
START_TEST(test_number_format_integral_values)
{
	char b[NUMBER_BUF];

	ck_assert_str_eq(fmt_float(16777215.0f, b), "16777215");
	ck_assert_str_eq(fmt_float(16777216.0f, b), "16777216");
	ck_assert_str_eq(fmt_float(16777218.0f, b), "16777218");
	ck_assert_str_eq(fmt_float(-33554430.0f, b), "-33554430");
	ck_assert_str_eq(fmt_float(33554432.0f, b), "33554432");
	ck_assert_str_eq(fmt_float(33554448.0f, b), "33554450");
	ck_assert_str_eq(fmt_float(-7.0f, b), "-7");
	ck_assert_str_eq(fmt_float(10.0f, b), "10");
	ck_assert_str_eq(fmt_float(100.0f, b), "100");
	ck_assert_str_eq(fmt_float(-12345.0f, b), "-12345");
	ck_assert_str_eq(fmt_double(1234567.0, b), "1234567");
	ck_assert_str_eq(fmt_float(0.0f, b), "0");
	ck_assert_str_eq(fmt_double(9007199254740991.0, b), "9007199254740991");
	ck_assert_str_eq(fmt_double(-9007199254740990.0, b), "-9007199254740990");
	ck_assert_str_eq(fmt_double(9007199254740992.0, b), "9007199254740992");
	ck_assert_str_eq(fmt_double(-0.0, b), "-0");
}
END_TEST

START_TEST(test_number_format_integers_exactly)
{
	int8_t c = INT8_MIN;
	uint8_t uc = UINT8_MAX;
	int16_t h = INT16_MIN;
	uint32_t u = UINT32_MAX;
	int64_t l = INT64_MIN;
	uint64_t ul = UINT64_MAX;
	char b[NUMBER_BUF];

	ck_assert_int_eq(number_format(SC_CHAR, &c, b, sizeof(b)), 4);
	ck_assert_str_eq(b, "-128");
	number_format(SC_UCHAR, &uc, b, sizeof(b));
	ck_assert_str_eq(b, "255");
	number_format(SC_SHORT, &h, b, sizeof(b));
	ck_assert_str_eq(b, "-32768");
	number_format(SC_UINT, &u, b, sizeof(b));
	ck_assert_str_eq(b, "4294967295");
	number_format(SC_LONG, &l, b, sizeof(b));
	ck_assert_str_eq(b, "-9223372036854775808");
	ck_assert_int_eq(number_format(SC_ULONG, &ul, b, sizeof(b)), 20);
	ck_assert_str_eq(b, "18446744073709551615");
}
END_TEST

/* The specification, computed the slow way: the digits of the first of %.{0..most}e that
 * reads back, written out in full for decimal exponents -4..15 and as printf's %e otherwise. */
static void reference_layout(const char *sci, char *buf)
{
	char digits[24];
	int n = 0, x;
	const char *p = sci;
	char *o = buf;

	if (*p == '-')
		*o++ = *p++;
	for (; *p != 'e'; p++)
		if (*p != '.')
			digits[n++] = *p;
	x = atoi(p + 1);
	if (x < -4 || x >= 16) {
		strcpy(buf, sci);
		return;
	}
	if (x < 0) {
		o += sprintf(o, "0.%0*d", -x - 1, 0) - (x == -1);
		memcpy(o, digits, (size_t)n);
		o += n;
	} else {
		for (int i = 0; i <= x; i++)
			*o++ = i < n ? digits[i] : '0';
		if (n > x + 1) {
			*o++ = '.';
			memcpy(o, digits + x + 1, (size_t)(n - x - 1));
			o += n - x - 1;
		}
	}
	*o = '\0';
}

/* p + 1 significant digits of v: the nearest, or where that does not read back, the next one
 * away from zero (just above a power of two the values that read back lie mostly above). */
static bool reference_digits(double v, bool is_float, int p, char *sci, size_t n)
{
	for (int away = 0; away < 2; away++) {
		long double c = v;
		double back;

		if (away) {
			int x = atoi(strchr(sci, 'e') + 1);

			c = strtold(sci, NULL) + copysignl(powl(10.0L, (long double)(x - p)), v);
		}
		snprintf(sci, n, "%.*Le", p, c);
		back = is_float ? (double)strtof(sci, NULL) : strtod(sci, NULL);
		if (back == v && signbit(back) == signbit(v))
			return true;
	}
	return false;
}

static void reference_float(float f, char *buf)
{
	char sci[64];

	for (int p = 0; p <= 8 && !reference_digits(f, true, p, sci, sizeof(sci)); p++)
		;
	reference_layout(sci, buf);
}

static void reference_double(double d, char *buf)
{
	char sci[64];

	for (int p = 0; p <= 16 && !reference_digits(d, false, p, sci, sizeof(sci)); p++)
		;
	reference_layout(sci, buf);
}

static void check_float_bits(uint32_t bits)
{
	char got[NUMBER_BUF], want[64];
	struct cs_err e;
	float f, back;

	memcpy(&f, &bits, sizeof(f));
	if (isnan(f) || isinf(f))
		return;
	reference_float(f, want);
	ck_assert_str_eq(fmt_float(f, got), want);
	ck_assert_int_eq(number_parse(SC_FLOAT, got, &back, &e), 0);
	ck_assert_msg(memcmp(&back, &f, sizeof(f)) == 0, "%08x -> %s", bits, got);
}

static void check_double_bits(uint64_t bits)
{
	char got[NUMBER_BUF], want[64];
	struct cs_err e;
	double d, back;

	memcpy(&d, &bits, sizeof(d));
	if (isnan(d) || isinf(d))
		return;
	reference_double(d, want);
	ck_assert_str_eq(fmt_double(d, got), want);
	ck_assert_int_eq(number_parse(SC_DOUBLE, got, &back, &e), 0);
	ck_assert_msg(memcmp(&back, &d, sizeof(d)) == 0, "%016llx -> %s", (unsigned long long)bits,
	              got);
}

START_TEST(test_float_format_is_shortest_round_trip_for_random_bits)
{
	for (int i = 0; i < 20000; i++)
		check_float_bits((uint32_t)(rng_next() >> 32));
}
END_TEST

START_TEST(test_float_format_is_shortest_round_trip_for_data_like_values)
{
	for (int i = 0; i < 20000; i++) {
		/* Values as computations make them: uniform in a range, or tenths. */
		float f = (float)(rng_next() >> 40) / (float)(1 << 24) * 1000.0f;
		uint32_t bits;

		memcpy(&bits, &f, sizeof(f));
		check_float_bits(bits);
		f = (float)i * 0.1f;
		memcpy(&bits, &f, sizeof(f));
		check_float_bits(bits);
	}
}
END_TEST

/* Powers of two (where the gap below is half the gap above), denormals and the largest. */
START_TEST(test_float_format_is_shortest_round_trip_at_boundaries)
{
	for (uint32_t exp = 0; exp < 255; exp++) {
		for (int d = -2; d <= 2; d++) {
			check_float_bits((exp << 23) + (uint32_t)d);
			check_float_bits(((exp << 23) | 0x80000000u) + (uint32_t)d);
		}
	}
	for (uint32_t b = 0; b < 5000; b++)
		check_float_bits(b);
	for (uint64_t exp = 0; exp < 2047; exp += 3) {
		for (int d = -2; d <= 2; d++)
			check_double_bits((exp << 52) + (uint64_t)d);
	}
}
END_TEST

START_TEST(test_double_format_is_shortest_round_trip_for_random_bits)
{
	for (int i = 0; i < 20000; i++) {
		double d = (double)(rng_next() >> 11) / 9007199254740992.0 * 1e6;
		uint64_t bits;

		check_double_bits(rng_next());
		memcpy(&bits, &d, sizeof(d));
		check_double_bits(bits);
	}
}
END_TEST

START_TEST(test_number_format_then_parse_round_trips_every_type)
{
	for (size_t i = 0; i < sizeof(opencl) / sizeof(opencl[0]); i++) {
		enum scalar s = opencl[i].scalar;

		for (int k = 0; k < 1000; k++) {
			uint64_t bits = rng_next();
			unsigned char back[8];
			char text[NUMBER_BUF];
			struct cs_err e;
			double d;

			/* NaN has no single text: "nan" reads back as the default NaN. */
			memcpy(&d, &bits, sizeof(d));
			if (s == SC_DOUBLE && isnan(d))
				continue;
			if (s == SC_FLOAT && (bits & 0x7f800000u) == 0x7f800000u)
				continue;
			number_format(s, &bits, text, sizeof(text));
			ck_assert_int_eq(number_parse(s, text, back, &e), 0);
			ck_assert_mem_eq(back, &bits, scalar_size(s));
		}
	}
}
END_TEST

START_TEST(test_number_format_reports_length_and_truncates)
{
	double d = 0.1 + 0.2;
	char small[8];

	ck_assert_int_eq(number_format(SC_DOUBLE, &d, small, sizeof(small)), 19);
	ck_assert_str_eq(small, "0.30000");
}
END_TEST

/* A front-end may call setlocale(); a German LC_NUMERIC must not turn "0.5" into an error
 * or 0.5 into "0,5". Skipped where no such locale is installed. */
START_TEST(test_numbers_ignore_the_locale)
{
	const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
	char b[NUMBER_BUF];
	struct cs_err e;
	double d = 0;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (setlocale(LC_NUMERIC, names[i]))
			break;
	}
	if (i == sizeof(names) / sizeof(names[0]))
		return;
	ck_assert_int_eq(number_parse(SC_DOUBLE, "0.5", &d, &e), 0);
	ck_assert_double_eq(d, 0.5);
	ck_assert_str_eq(fmt_double(0.1, b), "0.1");
	ck_assert_str_eq(fmt_double(1.5e-300, b), "1.5e-300");
	setlocale(LC_NUMERIC, "C");
}
END_TEST

START_TEST(test_vector_parse_components)
{
	struct cs_type f4 = {SC_FLOAT, 4};
	struct cs_err e;
	float v[4];
	int iv[2];

	ck_assert_int_eq(vector_parse(f4, "1,2.5, -3 ,4e2", v, &e), 0);
	ck_assert_float_eq(v[0], 1.0f);
	ck_assert_float_eq(v[1], 2.5f);
	ck_assert_float_eq(v[2], -3.0f);
	ck_assert_float_eq(v[3], 400.0f);
	ck_assert_int_eq(vector_parse((struct cs_type){SC_INT, 2}, "7", iv, &e), 0);
	ck_assert_int_eq(iv[0], 7);
	ck_assert_int_eq(iv[1], 7);
	ck_assert_int_eq(vector_parse((struct cs_type){SC_FLOAT, 1}, "0.5", v, &e), 0);
	ck_assert_float_eq(v[0], 0.5f);
}
END_TEST

START_TEST(test_vector_parse_wrong_count_says_what_is_needed)
{
	struct cs_err e;
	float v[16];
	unsigned char c[16];

	ck_assert_int_eq(vector_parse((struct cs_type){SC_FLOAT, 4}, "1,2,3", v, &e), -1);
	ck_assert_str_eq(e.msg, "'1,2,3' has 3 values, float4 needs 4 (or 1)");
	ck_assert_int_eq(vector_parse((struct cs_type){SC_FLOAT, 1}, "1,2", v, &e), -1);
	ck_assert_str_eq(e.msg, "'1,2' has 2 values, float needs 1");
	ck_assert_int_eq(vector_parse((struct cs_type){SC_FLOAT, 4}, "1,,2,3", v, &e), -1);
	ck_assert_str_eq(e.msg, "value 2 of '1,,2,3': empty value");
	ck_assert_int_eq(vector_parse((struct cs_type){SC_UCHAR, 2}, "1,300", c, &e), -1);
	ck_assert_str_eq(e.msg, "value 2 of '1,300': '300' is out of range for uchar");
	ck_assert_int_eq(vector_parse((struct cs_type){SC_UCHAR, 16}, "x", c, &e), -1);
	ck_assert_str_eq(e.msg, "'x' is not a number");
}
END_TEST

START_TEST(test_type_fill_repeats_the_element)
{
	struct cs_type f4 = {SC_FLOAT, 4};
	const float value[4] = {1, 2, 3, 4};
	float *v = malloc(1001 * sizeof(value));

	v[4000] = -1;
	type_fill(f4, v, 1000, value);
	for (int i = 0; i < 4000; i++)
		ck_assert_float_eq(v[i], value[i % 4]);
	ck_assert_float_eq(v[4000], -1);
	type_fill(f4, v + 4000, 0, value);
	ck_assert_float_eq(v[4000], -1);
	free(v);
}
END_TEST

/* fill_par over the cores: every element at every size around its block and part edges,
 * and nothing written past the end. */
START_TEST(test_fill_par_fills_exactly_n_elements)
{
	static const size_t counts[] = {0, 1, 511, 512, 513, 4097, 100001};
	struct cs_type d16 = {SC_DOUBLE, 16}, c2 = {SC_CHAR, 2};
	double dv[16];
	const char cv[2] = {7, -9};

	for (int i = 0; i < 16; i++)
		dv[i] = i * 1.5 - 3;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		size_t n = counts[k];
		double *d = malloc((n + 1) * sizeof(dv));
		char *c = malloc((n + 1) * sizeof(cv));

		d[n * 16] = 42;
		c[n * 2] = 42;
		fill_par(d16, d, n, dv);
		fill_par(c2, c, n, cv);
		size_t bad_d = n * 16, bad_c = n * 2; /* Check's asserts are slow: one each */

		for (size_t i = 0; i < n * 16 && bad_d == n * 16; i++)
			bad_d = d[i] == dv[i % 16] ? bad_d : i;
		for (size_t i = 0; i < n * 2 && bad_c == n * 2; i++)
			bad_c = c[i] == cv[i % 2] ? bad_c : i;
		ck_assert_msg(bad_d == n * 16, "double16 x %zu: element %zu", n, bad_d / 16);
		ck_assert_msg(bad_c == n * 2, "char2 x %zu: element %zu", n, bad_c / 2);
		ck_assert(d[n * 16] == 42 && c[n * 2] == 42);
		free(d);
		free(c);
	}
}
END_TEST

/* What a C cast to each kind gives, worked out by hand: low bits kept, floats rounded. */
START_TEST(test_scalar_store_integer_then_load_double_is_a_c_cast)
{
	static const struct {
		enum scalar s;
		long long v;
		double want;
	} cases[] = {
	        {SC_CHAR, -3, -3},
	        {SC_UCHAR, 300, 44},
	        {SC_SHORT, 40000, -25536},
	        {SC_USHORT, 65535, 65535},
	        {SC_INT, -7, -7},
	        {SC_UINT, -1, 4294967295.0},
	        {SC_LONG, -5, -5},
	        {SC_ULONG, 1LL << 53, 9007199254740992.0},
	        {SC_FLOAT, 16777217, 16777216},
	        {SC_DOUBLE, 16777217, 16777217},
	};
	unsigned char buf[9];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0xaa, sizeof(buf));
		scalar_store_integer(cases[i].s, cases[i].v, buf);
		ck_assert_double_eq(scalar_load_double(cases[i].s, buf), cases[i].want);
		ck_assert_uint_eq(buf[scalar_size(cases[i].s)], 0xaa);
	}
}
END_TEST

Suite *suite_types(void)
{
	Suite *s = suite_create("types");
	TCase *tc = tcase_create("types");
	TCase *fmt = tcase_create("format");

	tcase_add_test(tc, test_type_parse_every_scalar_and_width);
	tcase_add_test(tc, test_scalar_properties_match_opencl);
	tcase_add_test(tc, test_type_parse_unknown_lists_the_types);
	tcase_add_loop_test(tc, test_number_parse_integer_limits, 0,
	                    sizeof(limits) / sizeof(limits[0]));
	tcase_add_test(tc, test_number_parse_rejects_what_is_not_an_integer);
	tcase_add_test(tc, test_number_parse_float_integers_round_as_strtod);
	tcase_add_test(tc, test_number_parse_allows_blanks_around_the_value);
	tcase_add_test(tc, test_number_parse_unsigned_refuses_negatives);
	tcase_add_test(tc, test_number_parse_float_rounds_once);
	tcase_add_test(tc, test_number_parse_float_range_and_specials);
	tcase_add_test(tc, test_number_format_known_values);
	tcase_add_test(tc, test_number_format_integral_values);
	tcase_add_test(tc, test_number_format_integers_exactly);
	tcase_add_test(tc, test_number_format_reports_length_and_truncates);
	tcase_add_test(tc, test_numbers_ignore_the_locale);
	tcase_add_test(tc, test_vector_parse_components);
	tcase_add_test(tc, test_vector_parse_wrong_count_says_what_is_needed);
	tcase_add_test(tc, test_type_fill_repeats_the_element);
	tcase_add_test(tc, test_fill_par_fills_exactly_n_elements);
	tcase_add_test(tc, test_scalar_store_integer_then_load_double_is_a_c_cast);
	suite_add_tcase(s, tc);

	/* Thousands of printf calls for the reference: slow under valgrind. */
	tcase_set_timeout(fmt, 120);
	tcase_add_test(fmt, test_float_format_is_shortest_round_trip_for_random_bits);
	tcase_add_test(fmt, test_float_format_is_shortest_round_trip_for_data_like_values);
	tcase_add_test(fmt, test_float_format_is_shortest_round_trip_at_boundaries);
	tcase_add_test(fmt, test_double_format_is_shortest_round_trip_for_random_bits);
	tcase_add_test(fmt, test_number_format_then_parse_round_trips_every_type);
	suite_add_tcase(s, fmt);
	return s;
}
