#include "apitest.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

char saxpy_path[4096];

void apitest_setup(void)
{
	const char *top = getenv("TOP_SRCDIR");

	snprintf(saxpy_path, sizeof(saxpy_path), "%s/flowmodels/saxpy.xml", top ? top : ".");
}

carsh_flowmodel *saxpy(carsh_machine *m, const char *a, float *x, float *y)
{
	carsh_flowmodel *fm = NULL;
	char n[16];

	snprintf(n, sizeof(n), "%d", N);
	ck_assert_msg(carsh_flowmodel_from_file(m, saxpy_path, &fm) == 0, "%s",
	              carsh_machine_last_error(m));
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "N", n), 0);
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "A", a), 0);
	if (x)
		ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "x", x, N * sizeof(float)), 0);
	if (y)
		ck_assert_int_eq(carsh_flowmodel_bind_memory(fm, "y", y, N * sizeof(float)), 0);
	return fm;
}

void fill(float *x, float *y)
{
	for (int i = 0; i < N; i++) {
		x[i] = (float)(i % 8) * 0.25f;
		y[i] = 1.0f;
	}
}

void expect_saxpy(const float *x, const float *y, float a, int fires)
{
	for (int i = 0; i < N; i++)
		ck_assert_msg(y[i] == 1.0f + (float)fires * a * x[i], "y[%d] = %g, expected %g", i,
		              (double)y[i], (double)(1.0f + (float)fires * a * x[i]));
}

int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n - 2; /* . and .. */
}
