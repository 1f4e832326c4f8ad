/* What the API's test programs share (tests/api/apitest.c): saxpy with N elements on the
 * caller's arrays, checked against the closed form, and the process's thread count. */
#ifndef CARSH_TESTS_API_APITEST_H
#define CARSH_TESTS_API_APITEST_H

#include "carsh.h"

#define N 1024

/* flowmodels/saxpy.xml of the source tree ($TOP_SRCDIR), set by apitest_setup. */
extern char saxpy_path[4096];
void apitest_setup(void);

/* saxpy with N elements, A = a, on the caller's x and y (either may be NULL: unbound). */
carsh_flowmodel *saxpy(carsh_machine *m, const char *a, float *x, float *y);
void fill(float *x, float *y);
/* y after `fires` fires of y = a*x + y from fill's y = 1: exact in float for these values. */
void expect_saxpy(const float *x, const float *y, float a, int fires);
/* The threads of this process. */
int thread_count(void);

#endif
