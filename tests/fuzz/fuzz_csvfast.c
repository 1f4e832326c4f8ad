/* libFuzzer target: the fast CSV path against the general one (libcsv). The first byte picks
 * the scalar type and the next two the value count expected; the rest is the file. The
 * stream reader (fast path for plain lines) and the libcsv-only reader must give the same
 * values or the same error; where the whole-text fast path (the one run over the cores on a
 * mapped file) accepts the text, it must give the same values too, whether into an array of
 * its own or straight into the caller's (csvfast_into). */
#include <stdio.h>
#include <string.h>

#include "data/csvfast.h"
#include "data/csvio.h"
#include "fuzz.h"

static int read_with(int general, const uint8_t *data, size_t size, enum scalar s, void *dst,
                     size_t n, struct cs_err *e)
{
	FILE *f = fmemopen((void *)data, size, "r");
	int rc;

	if (!f)
		abort();
	rc = general ? csvio_read_general(f, "fuzz.csv", s, dst, n, e)
	             : csvio_read_stream(f, "fuzz.csv", s, dst, n, e);
	fclose(f);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_err ea, eb;
	enum scalar s;
	size_t n, bytes, all_n, lines;
	void *a, *b, *all;
	int ra, rb;

	if (size < 4)
		return 0;
	s = (enum scalar)(data[0] % SC_COUNT);
	n = ((size_t)data[1] | (size_t)data[2] << 8) % 1025;
	data += 3, size -= 3;
	bytes = n * scalar_size(s);
	a = fuzz_exact(bytes);
	b = fuzz_exact(bytes);
	memset(a, 0, bytes);
	memset(b, 0, bytes);
	ra = read_with(0, data, size, s, a, n, &ea);
	rb = read_with(1, data, size, s, b, n, &eb);
	if (ra != rb || (ra == 0 && memcmp(a, b, bytes) != 0) ||
	    (ra != 0 && strcmp(ea.msg, eb.msg) != 0)) {
		fprintf(stderr, "fast: %d '%s'; general: %d '%s'\n", ra, ra ? ea.msg : "", rb,
		        rb ? eb.msg : "");
		abort();
	}
	if (csvfast_all(s, (const char *)data, size, &all, &all_n, NULL) == 0) {
		if (rb != 0 ? all_n == n : all_n != n || memcmp(all, b, bytes) != 0) {
			fprintf(stderr, "whole-text fast path: %zu values, general: %d\n", all_n,
			        rb);
			abort();
		}
		free(all);
	}
	/* Straight into an array of n values (one value a line in place, else through the
	 * parts' arrays): accepted only with exactly the general reader's values. */
	memset(a, 0, bytes);
	if (csvfast_into(s, (const char *)data, size, a, n, &all_n, &lines) == 0 && all_n == n &&
	    (rb != 0 || memcmp(a, b, bytes) != 0)) {
		fprintf(stderr, "fast path into an array: %zu values, general: %d\n", all_n, rb);
		abort();
	}
	free(a);
	free(b);
	return 0;
}
