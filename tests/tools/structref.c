/*
 * The C side of tests/shell/structstreams.sh: struct Rec as a C compiler lays it out (the
 * OpenCL C declaration's int2 is an int[2] aligned to 8, as OpenCL aligns a vector to its
 * size), so the layout CarSh computes is checked against the C compiler's, and the kernel's
 * arithmetic against C's.
 *
 *   structref layout            sizeof and the offsets of w, h, p, v, one a line
 *   structref raw IN.csv OUT    the records of IN (11 values a line) written with fwrite
 *   structref csv IN.raw        the records of a raw file, one a line
 *   structref kernel IN.csv     what the test's kernel makes of each record
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pt {
	float lat, lng;
};

struct rec {
	signed char id;
	double w;
	short h[3];
	struct pt p[2];
	int v[2] __attribute__((aligned(8)));
};

static void die(const char *what)
{
	fprintf(stderr, "structref: %s\n", what);
	exit(2);
}

/* One record: 11 values separated by commas or blanks, as CarSh reads them; blank lines
 * skipped. */
static int read_rec(FILE *f, struct rec *r)
{
	char line[1024];
	int id, n;

	do {
		if (!fgets(line, sizeof(line), f))
			return 0;
	} while (line[strspn(line, " \t\r\n")] == '\0');
	for (char *c = line; *c; c++)
		if (*c == ',')
			*c = ' ';
	memset(r, 0, sizeof(*r));
	n = sscanf(line, "%d %lf %hd %hd %hd %f %f %f %f %d %d", &id, &r->w, &r->h[0], &r->h[1],
	           &r->h[2], &r->p[0].lat, &r->p[0].lng, &r->p[1].lat, &r->p[1].lng, &r->v[0],
	           &r->v[1]);
	if (n != 11)
		die("a line does not hold 11 values");
	r->id = (signed char)id;
	return 1;
}

static void print_rec(const struct rec *r)
{
	printf("%d,%g,%d,%d,%d,%g,%g,%g,%g,%d,%d\n", r->id, r->w, r->h[0], r->h[1], r->h[2],
	       r->p[0].lat, r->p[0].lng, r->p[1].lat, r->p[1].lng, r->v[0], r->v[1]);
}

static FILE *open_or_die(const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f)
		die(path);
	return f;
}

int main(int argc, char **argv)
{
	struct rec r;
	FILE *in, *out;

	if (argc == 2 && strcmp(argv[1], "layout") == 0) {
		printf("%zu\n%zu\n%zu\n%zu\n%zu\n", sizeof(r), offsetof(struct rec, w),
		       offsetof(struct rec, h), offsetof(struct rec, p), offsetof(struct rec, v));
		return 0;
	}
	if (argc == 4 && strcmp(argv[1], "raw") == 0) {
		in = open_or_die(argv[2], "r");
		out = open_or_die(argv[3], "wb");
		while (read_rec(in, &r))
			if (fwrite(&r, sizeof(r), 1, out) != 1)
				die("write error");
		return fclose(out) != 0 || fclose(in) != 0;
	}
	if (argc == 3 && strcmp(argv[1], "csv") == 0) {
		in = open_or_die(argv[2], "rb");
		while (fread(&r, sizeof(r), 1, in) == 1)
			print_rec(&r);
		return fclose(in) != 0;
	}
	if (argc == 3 && strcmp(argv[1], "kernel") == 0) {
		in = open_or_die(argv[2], "r");
		while (read_rec(in, &r)) {
			r.id = (signed char)(r.id + 1);
			r.w *= 2;
			r.h[2] = (short)(r.h[0] + r.h[1]);
			r.p[1].lng = r.p[0].lat + r.p[1].lat;
			r.v[1] = r.v[0] * 10;
			print_rec(&r);
		}
		return fclose(in) != 0;
	}
	die("usage: structref layout | raw IN.csv OUT.raw | csv IN.raw | kernel IN.csv");
	return 2;
}
