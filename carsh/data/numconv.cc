/*
 * The C interface of data/numconv.h over <charconv>. GCC's libstdc++ (12 and later) parses
 * with the Eisel-Lemire method of fast_float and prints the shortest round-trip digits with
 * Ryu: well-kept, exhaustively tested code, so CarSh keeps none of its own for this.
 */
#include "data/numconv.h"

#include <charconv>
#include <system_error>

namespace
{

template <typename T> int parse(const char *p, const char *end, T *v)
{
	T tmp;
	std::from_chars_result r = std::from_chars(p, end, tmp);

	if (r.ec != std::errc() || r.ptr != end)
		return -1;
	*v = tmp;
	return 0;
}

/* 32 bytes hold any float or double in scientific form ("-2.2250738585072014e-308"). */
template <typename T> int text(T v, char *out, std::chars_format fmt)
{
	std::to_chars_result r = std::to_chars(out, out + 32, v, fmt);

	return r.ec == std::errc() ? static_cast<int>(r.ptr - out) : 0;
}

template <typename T> int integer(T v, char *out)
{
	std::to_chars_result r = std::to_chars(out, out + 20, v);

	return r.ec == std::errc() ? static_cast<int>(r.ptr - out) : 0;
}

} // namespace

extern "C" {

int numconv_float(const char *p, const char *end, float *v)
{
	return parse(p, end, v);
}

int numconv_double(const char *p, const char *end, double *v)
{
	return parse(p, end, v);
}

int numconv_int64(const char *p, const char *end, int64_t *v)
{
	return parse(p, end, v);
}

int numconv_uint64(const char *p, const char *end, uint64_t *v)
{
	return parse(p, end, v);
}

int numconv_float_sci(float v, char *out)
{
	return text(v, out, std::chars_format::scientific);
}

int numconv_double_sci(double v, char *out)
{
	return text(v, out, std::chars_format::scientific);
}

int numconv_int64_text(int64_t v, char *out)
{
	return integer(v, out);
}

int numconv_uint64_text(uint64_t v, char *out)
{
	return integer(v, out);
}
}
