/* libFuzzer target: the .npy header parser and the binary stream reader. The first byte picks
 * the scalar type and the next two the value count expected; the rest is the file, given to
 * the header functions in a buffer of exactly its size (ASan sees any read past it) and to
 * binio_read as a stream. */
#include <stdio.h>
#include <string.h>

#include "data/binio.h"
#include "data/npy.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npy_header h;
	struct cs_err e;
	enum scalar s;
	size_t n, hsize;
	unsigned char *copy;
	void *dst;
	FILE *f;

	if (size < 4)
		return 0;
	s = (enum scalar)(data[0] % SC_COUNT);
	n = ((size_t)data[1] | (size_t)data[2] << 8) % 4097;
	data += 3, size -= 3;
	copy = fuzz_exact(size);
	memcpy(copy, data, size);
	if (npy_header_size(copy, size, &hsize, &e) == 0 && hsize <= size &&
	    npy_parse(copy, hsize, &h, &e) == 0 && npy_check(&h, s, n, &e) == 0 &&
	    (h.count != n || h.data_offset != hsize)) {
		fprintf(stderr, "header accepted with %zu values, expected %zu\n", h.count, n);
		abort();
	}
	free(copy);
	dst = fuzz_exact(n * scalar_size(s));
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	binio_read(NULL, f, "fuzz.npy", BIN_NPY, s, dst, n, &e);
	fclose(f);
	free(dst);
	return 0;
}
