/* libFuzzer target: the CSV reader. The first byte picks the scalar type, the rest is the
 * file. Every input is read three ways (growing, as csvio_read_all does; with the exact count
 * found; into fewer slots than values, which must fail without writing past them), and whatever was
 * read is written back and read again: the values must come back bit for bit (NaNs as NaNs), which
 * checks number_format against number_parse for every type. */
#include <math.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "data/csvio.h"
#include "fuzz.h"

static int read_all_from(const uint8_t *data, size_t size, enum scalar s, void **dst, size_t *n,
                         struct cs_err *e)
{
	char path[64];
	int fd = memfd_create("fuzz.csv", 0);
	int rc;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = csvio_read_all(path, s, dst, n, e);
	close(fd);
	return rc;
}

static int read_exact(const char *text, size_t len, enum scalar s, void *dst, size_t n,
                      struct cs_err *e)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int rc;

	if (!f)
		abort();
	rc = csvio_read_stream(f, "fuzz.csv", s, dst, n, e);
	fclose(f);
	return rc;
}

static bool same_value(enum scalar s, const unsigned char *a, const unsigned char *b)
{
	if (s == SC_FLOAT) {
		float x, y;

		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		if (isnan(x) || isnan(y))
			return isnan(x) && isnan(y);
	} else if (s == SC_DOUBLE) {
		double x, y;

		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		if (isnan(x) || isnan(y))
			return isnan(x) && isnan(y);
	}
	return memcmp(a, b, scalar_size(s)) == 0;
}

/* Written and read back, the values are the same. */
static void round_trip(enum scalar s, const unsigned char *v, size_t n, size_t columns)
{
	size_t size = scalar_size(s);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	unsigned char *back = fuzz_exact(n * size);
	struct cs_err e;

	if (!m || csvio_write_stream(m, "out.csv", s, v, n, columns, &e))
		abort();
	fclose(m);
	if (read_exact(text, len, s, back, n, &e)) {
		fprintf(stderr, "round trip: %s\n", e.msg);
		abort();
	}
	for (size_t i = 0; i < n; i++)
		if (!same_value(s, v + i * size, back + i * size)) {
			fprintf(stderr, "round trip changed value %zu of %s: %.*s\n", i,
			        scalar_name(s), (int)len, text);
			abort();
		}
	free(back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_err e;
	enum scalar s;
	void *all = NULL;
	size_t n = 0;

	if (size < 1)
		return 0;
	s = (enum scalar)(data[0] % SC_COUNT);
	data++, size--;
	if (read_all_from(data, size, s, &all, &n, &e) == 0) {
		char *text = fuzz_text(data, size);
		unsigned char *again = fuzz_exact(n * scalar_size(s));

		/* The same file read with the exact count succeeds with the same values. */
		if (read_exact(text, size, s, again, n, &e) ||
		    memcmp(again, all, n * scalar_size(s)) != 0)
			abort();
		/* Fewer slots than values: an error, and nothing stored past the slots (the
		 * buffer has exactly that many, so ASan sees any write beyond). */
		for (size_t k = n; k-- > 0 && k + 4 > n;) {
			void *slots = fuzz_exact(k * scalar_size(s));

			if (read_exact(text, size, s, slots, k, &e) == 0)
				abort();
			free(slots);
		}
		if (n > 2) {
			size_t k = (size_t)data[size / 2] % (n - 1);
			void *slots = fuzz_exact(k * scalar_size(s));

			if (read_exact(text, size, s, slots, k, &e) == 0)
				abort();
			free(slots);
		}
		round_trip(s, all, n, 1 + (size % 7));
		free(again);
		free(text);
	}
	free(all);
	return 0;
}
