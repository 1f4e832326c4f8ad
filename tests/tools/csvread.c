/* The reference tools' CSV reader (csvread.h). */
#include "csvread.h"

#include <stdlib.h>
#include <string.h>

double *csv_read_stream(FILE *f, const char *path, size_t *n, csv_fail *fail)
{
	size_t cap = 1024;
	double *v = malloc(cap * sizeof(*v));
	int ch;

	if (!v)
		fail("out of memory", NULL);
	*n = 0;
	for (;;) {
		while ((ch = fgetc(f)) == ',' || ch == ' ' || ch == '\n' || ch == '\r' ||
		       ch == '\t')
			;
		if (ch == EOF)
			break;
		ungetc(ch, f);
		if (*n == cap && !(v = realloc(v, (cap *= 2) * sizeof(*v))))
			fail("out of memory", NULL);
		if (fscanf(f, "%lf", &v[(*n)++]) != 1)
			fail("not a number in", path);
	}
	return v;
}

double *csv_read(const char *path, size_t *n, csv_fail *fail)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	double *v;

	if (!f)
		fail("cannot read", path);
	v = csv_read_stream(f, path, n, fail);
	if (f != stdin)
		fclose(f);
	return v;
}

double *csv_read_n(const char *path, size_t want, csv_fail *fail)
{
	size_t n;
	double *v = csv_read(path, &n, fail);
	char msg[4096];

	if (n != want) {
		snprintf(msg, sizeof(msg), "%s has %zu values, expected %zu", path, n, want);
		fail(msg, NULL);
	}
	return v;
}
