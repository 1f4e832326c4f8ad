/* libFuzzer target: the PGM reader (P2 and P5 images as streams). The first byte picks the
 * scalar type and the next two the pixel count expected; the rest is the file. The pixels go
 * into a buffer of exactly that many values, so ASan sees any write past it. */
#include <stdio.h>

#include "data/pgm.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_err e;
	enum scalar s;
	size_t n, w, h;
	void *dst;
	FILE *f;

	if (size < 3)
		return 0;
	s = (enum scalar)(data[0] % SC_COUNT);
	n = ((size_t)data[1] | (size_t)data[2] << 8) % 4097;
	data += 3, size -= 3;
	dst = fuzz_exact(n * scalar_size(s));
	f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		abort();
	if (size && pgm_read_stream(f, "fuzz.pgm", s, dst, n, &w, &h, &e) == 0 && w * h != n) {
		fprintf(stderr, "read %zux%zu pixels, expected %zu\n", w, h, n);
		abort();
	}
	fclose(f);
	free(dst);
	return 0;
}
