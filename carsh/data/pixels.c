/*
 * Tight loops, one a scalar kind, on parts of the raster run by par_run(): a 4096² picture is
 * 16 M samples, which a loop that dispatches on the type per pixel (scalar_store_integer())
 * converts in tens of milliseconds where memory moves it in a few.
 */
#include "data/pixels.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/parrun.h"

/* Fewer samples than this a part are not worth a thread. */
#define PART_MIN ((size_t)1 << 20)

struct part {
	enum scalar s;
	const unsigned char *src;
	size_t bps, from, to;
	long limit;
	void *dst;
	size_t bad;           /* the first sample above limit, or `to` */
	const void *scalars;  /* pixels_to_bytes: from these */
	unsigned char *bytes; /* into these */
};

static long sample(const unsigned char *src, size_t bps, size_t i)
{
	return bps == 2 ? (long)src[2 * i] << 8 | src[2 * i + 1] : src[i];
}

/* GCC's vectoriser at -O2 takes only loops it can vectorise whole: loops of a constant trip
 * count, over restrict pointers, with the remainder done one at a time after them. */
#define BLOCK 256

/* One scalar kind's loops: restrict parameters (GCC honours restrict on those) and 8-bit
 * samples a block at a time. */
#define DEFINE_WIDEN(NAME, T)                                                           \
	static void NAME(T *restrict d, const unsigned char *restrict src, size_t bps,  \
	                 size_t from, size_t to)                                        \
	{                                                                               \
		size_t i = from;                                                        \
		if (bps == 2) {                                                         \
			for (; i < to; i++)                                             \
				d[i] = (T)((unsigned)src[2 * i] << 8 | src[2 * i + 1]); \
			return;                                                         \
		}                                                                       \
		for (; to - i >= BLOCK; i += BLOCK)                                     \
			for (size_t j = 0; j < BLOCK; j++)                              \
				d[i + j] = (T)src[i + j];                               \
		for (; i < to; i++)                                                     \
			d[i] = (T)src[i];                                               \
	}

DEFINE_WIDEN(widen_i8, int8_t)
DEFINE_WIDEN(widen_u8, uint8_t)
DEFINE_WIDEN(widen_i16, int16_t)
DEFINE_WIDEN(widen_u16, uint16_t)
DEFINE_WIDEN(widen_i32, int32_t)
DEFINE_WIDEN(widen_u32, uint32_t)
DEFINE_WIDEN(widen_i64, int64_t)
DEFINE_WIDEN(widen_u64, uint64_t)
DEFINE_WIDEN(widen_f32, float)
DEFINE_WIDEN(widen_f64, double)

#define CONVERT(FN) FN(p->dst, p->src, p->bps, p->from, p->to)

static void convert(struct part *p)
{
	switch (p->s) {
	case SC_CHAR:
		CONVERT(widen_i8);
		break;
	case SC_UCHAR:
		CONVERT(widen_u8);
		break;
	case SC_SHORT:
		CONVERT(widen_i16);
		break;
	case SC_USHORT:
		CONVERT(widen_u16);
		break;
	case SC_INT:
		CONVERT(widen_i32);
		break;
	case SC_UINT:
		CONVERT(widen_u32);
		break;
	case SC_LONG:
		CONVERT(widen_i64);
		break;
	case SC_ULONG:
		CONVERT(widen_u64);
		break;
	case SC_FLOAT:
		CONVERT(widen_f32);
		break;
	case SC_DOUBLE:
	case SC_COUNT:
		CONVERT(widen_f64);
		break;
	}
}

/* The largest of 8-bit samples, a block at a time (see BLOCK). */
static long byte_max(const unsigned char *restrict src, size_t from, size_t to)
{
	unsigned char max = 0;
	size_t i = from;

	for (; to - i >= BLOCK; i += BLOCK) {
		unsigned char m = 0;

		for (size_t j = 0; j < BLOCK; j++)
			m = src[i + j] > m ? src[i + j] : m;
		max = m > max ? m : max;
	}
	for (; i < to; i++)
		max = src[i] > max ? src[i] : max;
	return max;
}

/* The largest sample first, the first bad one only when there is one. */
static void *check_part(void *arg)
{
	struct part *p = arg;
	long max = 0;

	if (p->bps == 1)
		max = byte_max(p->src, p->from, p->to);
	else
		for (size_t i = p->from; i < p->to; i++) {
			long v = sample(p->src, p->bps, i);

			max = v > max ? v : max;
		}
	p->bad = p->to;
	for (size_t i = p->from; max > p->limit && i < p->to && p->bad == p->to; i++)
		if (sample(p->src, p->bps, i) > p->limit)
			p->bad = i;
	return NULL;
}

static void *convert_part(void *arg)
{
	convert(arg);
	return NULL;
}

/* k parts of [0, n). */
static size_t split(struct part *parts, const struct part *proto, size_t n)
{
	size_t k = par_parts(n, PART_MIN), each = n / k;

	for (size_t i = 0; i < k; i++) {
		parts[i] = *proto;
		parts[i].from = i * each;
		parts[i].to = i + 1 == k ? n : (i + 1) * each;
	}
	return k;
}

size_t pixels_first_above(const unsigned char *src, size_t bps, size_t n, long limit)
{
	struct part parts[PARRUN_MAX];
	struct part proto = {.src = src, .bps = bps, .limit = limit};
	size_t k;

	if (limit >= (bps == 1 ? UINT8_MAX : UINT16_MAX))
		return n; /* no sample can be above it: nothing to read */
	k = split(parts, &proto, n);

	par_run(check_part, parts, sizeof(parts[0]), k);
	for (size_t i = 0; i < k; i++)
		if (parts[i].bad < parts[i].to)
			return parts[i].bad;
	return n;
}

void pixels_from_samples(enum scalar s, const unsigned char *src, size_t bps, size_t n, void *dst)
{
	struct part parts[PARRUN_MAX];
	struct part proto = {.s = s, .src = src, .bps = bps, .dst = dst};
	size_t k = split(parts, &proto, n);

	par_run(convert_part, parts, sizeof(parts[0]), k);
}

/* Halves away from zero for positive values below 255: floor(v + 0.5), exact in double for
 * any float; a double is rounded by round() itself. */
static unsigned char float_byte(double v, bool exact_half)
{
	if (!(v > 0))
		return 0; /* also NaN */
	if (v >= 255)
		return 255;
	return (unsigned char)(exact_half ? v + 0.5 : round(v));
}

static unsigned char int_byte(long long v)
{
	return v <= 0 ? 0 : v >= 255 ? 255 : (unsigned char)v;
}

/* float_byte(v, true) for a float, in a form GCC vectorises (float_byte()'s branches and
 * double arithmetic it leaves scalar, and a selection that makes the value a constant gets its
 * own path, which stops the vectoriser too): the bits, as an unsigned number, order the
 * non-negative floats as their values, so the least of them and 255.0f's is the value
 * clamped; trunc(v) and v - trunc(v) are exact in float, the latter compared with 0.5 as bits
 * (a float comparison is a branch under -ftrapping-math); a sign bit or a NaN (bits above
 * +inf's) masks the byte to 0. Checked equal to float_byte(v, true) for all 2^32 floats. */
static unsigned char float_byte_bits(float f)
{
	uint32_t u, c;
	int32_t r, fb;
	float v, frac;

	memcpy(&u, &f, sizeof(u));
	c = u > 0x437f0000u ? 0x437f0000u : u; /* 255.0f */
	memcpy(&v, &c, sizeof(v));
	r = (int32_t)v;
	frac = v - (float)r;
	memcpy(&fb, &frac, sizeof(fb));
	return (unsigned char)((r + (fb >= 0x3f000000)) & -(int32_t)(u <= 0x7f800000u));
}

/* A block at a time (see BLOCK). */
static void floats_to_bytes(unsigned char *restrict out, const float *restrict x, size_t from,
                            size_t to)
{
	size_t i = from;

	for (; to - i >= BLOCK; i += BLOCK)
		for (size_t j = 0; j < BLOCK; j++)
			out[i + j] = float_byte_bits(x[i + j]);
	for (; i < to; i++)
		out[i] = float_byte_bits(x[i]);
}

#define TO_BYTES(T, EXPR)                                \
	do {                                             \
		const T *x = p->scalars;                 \
		for (size_t i = p->from; i < p->to; i++) \
			out[i] = EXPR;                   \
	} while (0)

static void *to_part(void *arg)
{
	struct part *p = arg;
	unsigned char *out = p->bytes;

	switch (p->s) {
	case SC_CHAR:
		TO_BYTES(int8_t, int_byte(x[i]));
		break;
	case SC_UCHAR:
		TO_BYTES(uint8_t, x[i]);
		break;
	case SC_SHORT:
		TO_BYTES(int16_t, int_byte(x[i]));
		break;
	case SC_USHORT:
		TO_BYTES(uint16_t, int_byte(x[i]));
		break;
	case SC_INT:
		TO_BYTES(int32_t, int_byte(x[i]));
		break;
	case SC_UINT:
		TO_BYTES(uint32_t, x[i] >= 255 ? 255 : (unsigned char)x[i]);
		break;
	case SC_LONG:
		TO_BYTES(int64_t, int_byte(x[i]));
		break;
	case SC_ULONG:
		TO_BYTES(uint64_t, x[i] >= 255 ? 255 : (unsigned char)x[i]);
		break;
	case SC_FLOAT:
		floats_to_bytes(out, p->scalars, p->from, p->to);
		break;
	case SC_DOUBLE:
	case SC_COUNT:
		TO_BYTES(double, float_byte(x[i], false));
		break;
	}
	return NULL;
}

void pixels_to_bytes(enum scalar s, const void *src, size_t n, unsigned char *dst)
{
	struct part parts[PARRUN_MAX];
	struct part proto = {.s = s, .scalars = src, .bytes = dst};
	size_t k = split(parts, &proto, n);

	par_run(to_part, parts, sizeof(parts[0]), k);
}
