/*
 * Numbers through the C++ standard library: std::from_chars (correctly rounded, the
 * Eisel-Lemire method in GCC's libstdc++) and std::to_chars (the shortest text that reads back
 * to the same bits). The only C++ in CarSh: a C interface over <charconv>, no exceptions.
 */
#ifndef CARSH_DATA_NUMCONV_H
#define CARSH_DATA_NUMCONV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parse all of [p, end) as a decimal number: 0 and *v set, or -1 when the text is not
 * exactly one number in from_chars' form or is out of range (the caller then asks the general
 * parser, which knows the error). */
int numconv_float(const char *p, const char *end, float *v);
int numconv_double(const char *p, const char *end, double *v);
int numconv_int64(const char *p, const char *end, int64_t *v);
int numconv_uint64(const char *p, const char *end, uint64_t *v);

/* The shortest digits of a finite nonzero-or-zero value in scientific form ("1.5e+06",
 * "-2e-07"); returns the length (at most 32 bytes, no NUL written). */
int numconv_float_sci(float v, char *out);
int numconv_double_sci(double v, char *out);
/* Decimal integers; the length (at most 20 bytes, no NUL written). */
int numconv_int64_text(int64_t v, char *out);
int numconv_uint64_text(uint64_t v, char *out);

#ifdef __cplusplus
}
#endif

#endif
