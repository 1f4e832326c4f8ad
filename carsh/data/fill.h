/* Filling large arrays with one element over the cores (virtbuf fill --value, <Fill>). */
#ifndef CARSH_DATA_FILL_H
#define CARSH_DATA_FILL_H

#include <stddef.h>

#include "data/types.h"

/* type_fill(t, dst, n, value), with parts of a large array written by several threads. */
void fill_par(struct cs_type t, void *dst, size_t n, const void *value);

#endif
