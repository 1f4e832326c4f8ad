/* Filling large arrays with one element over the cores (virtbuf fill --value, <Fill>). */
#ifndef CARSH_DATA_FILL_H
#define CARSH_DATA_FILL_H

#include <stddef.h>

#include "data/types.h"

/* n elements of esize bytes, each a copy of value: the first copied, then the filled part
 * doubled (n elements in log2(n) memcpy calls). */
void fill_bytes(void *dst, size_t esize, size_t n, const void *value);
/* fill_bytes, with parts of a large array written by several threads. */
void fill_bytes_par(void *dst, size_t esize, size_t n, const void *value);
/* type_fill(t, dst, n, value), with parts of a large array written by several threads. */
void fill_par(struct cs_type t, void *dst, size_t n, const void *value);

#endif
