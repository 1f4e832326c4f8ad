/* Writing JSON: the pieces the engines' --json reports share. */
#ifndef CARSH_UTIL_JSON_H
#define CARSH_UTIL_JSON_H

#include <stdio.h>

/* s as a JSON string: quotes, backslashes and control characters escaped. */
void json_put_string(FILE *f, const char *s);

#endif
