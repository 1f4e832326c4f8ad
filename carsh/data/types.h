/* The OpenCL element types a stream can carry (DESIGN §3.1). */
#ifndef CARSH_DATA_TYPES_H
#define CARSH_DATA_TYPES_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

enum scalar {
	SC_CHAR,
	SC_UCHAR,
	SC_SHORT,
	SC_USHORT,
	SC_INT,
	SC_UINT,
	SC_LONG,
	SC_ULONG,
	SC_FLOAT,
	SC_DOUBLE,
	SC_COUNT
};

/* A scalar or a vector of width 2, 4, 8 or 16. */
struct cs_type {
	enum scalar scalar;
	unsigned width;
};

/* The largest value of any type (double16) in bytes: room for a by-value constant. */
#define TYPE_MAX_BYTES 128
/* Room for any scalar formatted by number_format(). */
#define NUMBER_BUF 40

/* "float4" -> {SC_FLOAT, 4}. Error: "unknown type 'flaot' (types: char uchar ... double,
 * with widths 2 4 8 16)". */
int type_parse(const char *name, struct cs_type *t, struct cs_err *e);
/* "float4"; buf must hold at least 16 bytes. Returns buf. */
const char *type_name(struct cs_type t, char *buf, size_t n);
const char *scalar_name(enum scalar s);
size_t scalar_size(enum scalar s);
bool scalar_is_float(enum scalar s);
bool scalar_is_signed(enum scalar s);
/* Bytes of one element: scalar size times width. */
size_t type_size(struct cs_type t);
/* A space-separated list of the scalar type names, for messages. */
const char *type_names(void);

/* Parse one scalar of kind s into dst (scalar_size(s) bytes). Leading and trailing blanks are
 * allowed. Errors: "'abc' is not a number", "'300' is out of range for uchar",
 * "'2.5' is not an integer". Floats accept what strtod accepts (inf, nan, hex). */
int number_parse(enum scalar s, const char *text, void *dst, struct cs_err *e);

/* Parse exactly the len bytes at p when they are a plain decimal number in range for s
 * ("-1.5e3", "42"): 0, or -1 with nothing stored and no error set when number_parse() must
 * decide (blanks, '+', hex, inf, nan, an error). Gives the bits number_parse() gives. */
int number_parse_fast(enum scalar s, const char *p, size_t len, void *dst);

/* Format one scalar. Floats use the shortest text that reads back to the same bits, in full
 * for decimal exponents -4 to 15 ("1000000", "0.0001") and in scientific form otherwise
 * ("1e+16", "1.5e-05"). Returns the length written (buf >= NUMBER_BUF). */
int number_format(enum scalar s, const void *src, char *buf, size_t n);

/* One scalar of kind s at src, as a double (long and ulong rounded to the nearest). */
double scalar_load_double(enum scalar s, const void *src);
/* Store v as one scalar of kind s at dst; integer kinds keep its low bits, as a C cast. */
void scalar_store_integer(enum scalar s, long long v, void *dst);

/* Parse a comma-separated list of exactly `width` scalars ("1,2,3,4") into dst; a single
 * value is repeated to every component. Used for Constant values and Fill values. */
int vector_parse(struct cs_type t, const char *text, void *dst, struct cs_err *e);

/* Fill n elements of type t at dst with the element at value. */
void type_fill(struct cs_type t, void *dst, size_t n, const void *value);

#endif
