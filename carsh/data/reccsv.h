/*
 * Streams of structs as CSV: one record a line, its fields' components in order as the
 * line's values (separated by ',' or blanks, as numeric CSV), each parsed as its field's
 * type. Blank lines are skipped. Errors name the file, the line, the value's place on the
 * line and its field: "nodes.csv:3:2: field 'no_of_edges' of struct Node: 'x' is not a
 * number", "nodes.csv:3: 3 values, struct Node needs 2 a line (starting, no_of_edges)".
 */
#ifndef CARSH_DATA_RECCSV_H
#define CARSH_DATA_RECCSV_H

#include <stddef.h>
#include <stdio.h>

#include "data/record.h"
#include "util/error.h"

/* Read exactly n records into dst (n * r->size bytes; the padding is zero). With dst NULL
 * only count them into *found (n is then ignored). Error on another count: "nodes.csv: 3
 * records, expected 4 (struct Node, one a line)". */
int reccsv_read(FILE *f, const char *name, const struct cs_record *r, void *dst, size_t n,
                size_t *found, struct cs_err *e);

/* Write n records, one a line. */
int reccsv_write(FILE *f, const char *name, const struct cs_record *r, const void *src, size_t n,
                 struct cs_err *e);

#endif
