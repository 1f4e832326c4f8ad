/*
 * The fast path of numeric CSV (data/csvio.c): lines of plain numbers split by commas or by
 * runs of blanks, parsed with number_parse_fast(). Anything else (a quote, a CR, an empty
 * field, a value number_parse_fast() declines) is left to the general parser, which gives
 * the same values or the error with its file:line:column.
 */
#ifndef CARSH_DATA_CSVFAST_H
#define CARSH_DATA_CSVFAST_H

#include <stdbool.h>
#include <stddef.h>

#include "data/types.h"

/* Longer tokens are left to the general parser (which refuses fields this long). */
#define CSVFAST_TOKEN_MAX 4096

/* The values of one line (len bytes, no newline) into dst, which has room for `room`
 * scalars of kind s: how many were stored, or -1 when the general parser must read the line
 * (then what dst holds past its old contents is undefined). An empty line is -1 too. */
long csvfast_line(enum scalar s, const char *line, size_t len, char *dst, size_t room);

/* The most values a line of len bytes can hold. */
size_t csvfast_room(size_t len);

/* Every value of the text (whole lines; the last may lack its newline), over the cores for a
 * large text: 0 with *dst allocated (free() it), *n set and *lines (when not NULL) set to the
 * newlines of the text, or -1 when some line needs the general parser or memory ran short
 * (nothing allocated, no error set). */
int csvfast_all(enum scalar s, const char *text, size_t len, void **dst, size_t *n, size_t *lines);

/* The same into dst, which has room for `room` scalars: 0 with *n values stored and *lines
 * set to the newlines of the text, 1 when it holds more than room values (nothing stored),
 * -1 as for csvfast_all. */
int csvfast_into(enum scalar s, const char *text, size_t len, void *dst, size_t room, size_t *n,
                 size_t *lines);

#endif
