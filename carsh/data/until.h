/*
 * A loop's stop condition on a virtual buffer (docs/formats.md, "Loops until a result"):
 * "buffer:NAME OP VALUE", OP one of == != < <= > >=, VALUE a floating expression over
 * parameters (data/fexpr.h). It holds when every scalar of the buffer satisfies it, so that a
 * kernel can keep one flag per work-item (no atomics) and the loop stops when all are clear.
 */
#ifndef CARSH_DATA_UNTIL_H
#define CARSH_DATA_UNTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "data/types.h"
#include "util/error.h"

enum until_op { UNTIL_EQ, UNTIL_NE, UNTIL_LT, UNTIL_LE, UNTIL_GT, UNTIL_GE };

struct until {
	char *buffer;
	enum until_op op;
	char *value; /* a floating expression, evaluated when the loop runs */
};

/* Error: "until 'x = 0': expected buffer:NAME OP VALUE (OP one of == != < <= > >=)". */
int until_parse(const char *text, struct until *u, struct cs_err *e);
void until_free(struct until *u);
const char *until_op_text(enum until_op op);
/* Whether every one of the n scalars of kind s at data satisfies the condition with the
 * right-hand side v; when not, *first is the index of the first that does not. Values are
 * compared as doubles (a long beyond 2^53 is rounded). */
bool until_holds(const struct until *u, double v, enum scalar s, const void *data, size_t n,
                 size_t *first);

#endif
