/* libFuzzer target: streams of structs (data/reccsv.h, data/recnpy.h). The first byte picks
 * a layout (struct Node; a struct with padding, a fixed array, nested structs and a 3-wide
 * vector), the next two the record count expected; the rest is the file. It is read as CSV
 * into a buffer of exactly the records' size (ASan sees any write past it), counted, and,
 * where accepted, written back and read again: the same bytes must come back. The same
 * bytes are then read as a .npy header. */
#include <stdio.h>
#include <string.h>

#include "data/reccsv.h"
#include "data/recnpy.h"
#include "fuzz.h"

static void layout(unsigned pick, struct cs_record *r, struct cs_record *inner)
{
	record_init(inner, "Pt");
	record_add(inner, "lat", (struct cs_type){SC_FLOAT, 1}, 1);
	record_add(inner, "lng", (struct cs_type){SC_FLOAT, 1}, 1);
	record_finish(inner);
	if (pick % 2 == 0) {
		record_init(r, "Node");
		record_add(r, "starting", (struct cs_type){SC_INT, 1}, 1);
		record_add(r, "no_of_edges", (struct cs_type){SC_INT, 1}, 1);
	} else {
		record_init(r, "Rec");
		record_add(r, "id", (struct cs_type){SC_CHAR, 1}, 1);
		record_add(r, "w", (struct cs_type){SC_DOUBLE, 1}, 1);
		record_add(r, "h", (struct cs_type){SC_USHORT, 1}, 3);
		record_add_record(r, "p", inner, 2);
		record_add(r, "v", (struct cs_type){SC_LONG, 3}, 1);
	}
	record_finish(r);
}

/* Written back and read again, the records must be the same bytes. */
static void round_trip(const struct cs_record *r, const unsigned char *recs, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	unsigned char *again = fuzz_exact(n * r->size);
	struct cs_err e;
	FILE *f = open_memstream(&text, &len);

	if (!f || reccsv_write(f, "fuzz.csv", r, recs, n, &e) || fclose(f) != 0)
		abort();
	f = fmemopen(text, len ? len : 1, "r");
	if (!f || reccsv_read(f, "fuzz.csv", r, again, n, NULL, &e) != 0 ||
	    memcmp(again, recs, n * r->size) != 0) {
		fprintf(stderr, "written back and read again: %s\n%s", e.msg, text);
		abort();
	}
	fclose(f);
	free(again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_record r, inner;
	unsigned char *dst;
	size_t n, found;
	struct cs_err e;
	FILE *f;

	if (size < 4)
		return 0;
	layout(data[0], &r, &inner);
	n = ((size_t)data[1] | (size_t)data[2] << 8) % 513;
	data += 3, size -= 3;
	dst = fuzz_exact(n * r.size);
	f = fmemopen((void *)data, size, "r");
	if (!f)
		abort();
	if (reccsv_read(f, "fuzz.csv", &r, dst, n, NULL, &e) == 0) {
		round_trip(&r, dst, n);
		rewind(f);
		if (reccsv_read(f, "fuzz.csv", &r, NULL, 0, &found, &e) != 0 || found != n) {
			fprintf(stderr, "read %zu records, counted %zu\n", n, found);
			abort();
		}
	}
	rewind(f);
	(void)reccsv_read(f, "fuzz.csv", &r, NULL, 0, &found, &e);
	rewind(f);
	(void)recnpy_read_header(f, "fuzz.npy", &r, &found, &e);
	fclose(f);
	free(dst);
	record_free(&r);
	record_free(&inner);
	return 0;
}
