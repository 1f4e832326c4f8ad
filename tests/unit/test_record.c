/* Struct layouts (data/record.h) against offsets worked out by hand from OpenCL C's rules,
 * and records as CSV lines (data/reccsv.h): values, padding, every message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/reccsv.h"
#include "data/record.h"
#include "suites.h"

static const struct cs_type t_char = {SC_CHAR, 1}, t_short = {SC_SHORT, 1}, t_float = {SC_FLOAT, 1},
                            t_double = {SC_DOUBLE, 1}, t_int2 = {SC_INT, 2},
                            t_float4 = {SC_FLOAT, 4};

/* struct Pt { float lat, lng; }; struct Rec { char id; double w; short h[3]; struct Pt p[2];
 * int2 v; }: id 0, w 8 (a double's 8), h 16..21, p 24 (a Pt's 4) to 40, v 40 (an int2's
 * 8), 48 in all. */
static void make_rec(struct cs_record *pt, struct cs_record *rec)
{
	record_init(pt, "Pt");
	record_add(pt, "lat", t_float, 1);
	record_add(pt, "lng", t_float, 1);
	record_finish(pt);
	record_init(rec, "Rec");
	record_add(rec, "id", t_char, 1);
	record_add(rec, "w", t_double, 1);
	record_add(rec, "h", t_short, 3);
	record_add_record(rec, "p", pt, 2);
	record_add(rec, "v", t_int2, 1);
	record_finish(rec);
}

START_TEST(test_record_layout_is_opencl_cs)
{
	static const struct {
		const char *name;
		size_t offset, count;
	} want[] = {{"id", 0, 1},        {"w", 8, 1},         {"h", 16, 3},
	            {"p[0].lat", 24, 1}, {"p[0].lng", 28, 1}, {"p[1].lat", 32, 1},
	            {"p[1].lng", 36, 1}, {"v", 40, 1}};
	struct cs_record pt, rec;
	size_t offset;

	make_rec(&pt, &rec);
	ck_assert_uint_eq(pt.size, 8);
	ck_assert_uint_eq(pt.align, 4);
	ck_assert_uint_eq(rec.size, 48);
	ck_assert_uint_eq(rec.align, 8);
	ck_assert_uint_eq(rec.nfields, 8);
	for (size_t i = 0; i < 8; i++) {
		ck_assert_str_eq(rec.fields[i].name, want[i].name);
		ck_assert_uint_eq(rec.fields[i].offset, want[i].offset);
		ck_assert_uint_eq(rec.fields[i].count, want[i].count);
	}
	ck_assert_uint_eq(record_components(&rec), 11);
	/* component 3 is h[1], component 10 is v.y */
	ck_assert_str_eq(record_component(&rec, 3, &offset)->name, "h");
	ck_assert_uint_eq(offset, 18);
	ck_assert_str_eq(record_component(&rec, 10, &offset)->name, "v");
	ck_assert_uint_eq(offset, 44);
	record_free(&rec);
	record_free(&pt);
}
END_TEST

START_TEST(test_record_padding_at_the_end_and_vectors_aligned_to_their_size)
{
	struct cs_record r;
	size_t offset;

	/* { double d; char c; }: 9 bytes padded to 16 */
	record_init(&r, "A");
	record_add(&r, "d", t_double, 1);
	record_add(&r, "c", t_char, 1);
	record_finish(&r);
	ck_assert_uint_eq(r.size, 16);
	record_free(&r);
	/* { char c; float4 v; }: v at 16, 32 in all */
	record_init(&r, "B");
	record_add(&r, "c", t_char, 1);
	record_add(&r, "v", t_float4, 1);
	record_finish(&r);
	ck_assert_uint_eq(r.fields[1].offset, 16);
	ck_assert_uint_eq(r.size, 32);
	record_free(&r);
	/* { char a; short b[3]; char c; }: b at 2, c at 8, 10 in all (a short's 2) */
	record_init(&r, "C");
	record_add(&r, "a", t_char, 1);
	record_add(&r, "b", t_short, 3);
	record_add(&r, "c", t_char, 1);
	record_finish(&r);
	ck_assert_uint_eq(r.fields[1].offset, 2);
	ck_assert_uint_eq(r.fields[2].offset, 8);
	ck_assert_uint_eq(r.size, 10);
	record_free(&r);
	/* { char c; float3 p; short3 m[2]; }: p at 16 (a float4's room), m at 32, 8 bytes
	 * each; 48 in all; component 5 is m[0].y at 34, component 7 is m[1].x at 40 */
	record_init(&r, "D");
	record_add(&r, "c", t_char, 1);
	record_add(&r, "p", (struct cs_type){SC_FLOAT, 3}, 1);
	record_add(&r, "m", (struct cs_type){SC_SHORT, 3}, 2);
	record_finish(&r);
	ck_assert_uint_eq(r.fields[1].offset, 16);
	ck_assert_uint_eq(r.fields[2].offset, 32);
	ck_assert_uint_eq(r.size, 48);
	ck_assert_uint_eq(record_components(&r), 10);
	ck_assert_str_eq(record_component(&r, 5, &offset)->name, "m");
	ck_assert_uint_eq(offset, 34);
	record_component(&r, 7, &offset);
	ck_assert_uint_eq(offset, 40);
	record_free(&r);
}
END_TEST

static int read_text(const char *text, const struct cs_record *r, void *dst, size_t n,
                     size_t *found, struct cs_err *e)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = reccsv_read(f, "x.csv", r, dst, n, found, e);

	fclose(f);
	return rc;
}

START_TEST(test_reccsv_reads_each_field_at_its_offset_padding_zero)
{
	struct cs_record pt, rec;
	unsigned char buf[2 * 48];
	double w;
	short h[3];
	float lng;
	int v[2];
	size_t found = 0;
	struct cs_err e;

	make_rec(&pt, &rec);
	memset(buf, 0xff, sizeof(buf));
	ck_assert_int_eq(read_text("-3, 0.5, 1,2,3, 1,2,3,4, 5,6\n\n7 1e3 -1 -2 -3 0 0 0 0.25 -8 9",
	                           &rec, buf, 2, NULL, &e),
	                 0);
	ck_assert_int_eq((signed char)buf[0], -3);
	for (int k = 1; k < 8; k++)
		ck_assert_uint_eq(buf[k], 0); /* padding after id */
	memcpy(&w, buf + 8, 8);
	ck_assert(w == 0.5);
	memcpy(h, buf + 16, 6);
	ck_assert(h[0] == 1 && h[1] == 2 && h[2] == 3);
	ck_assert(buf[22] == 0 && buf[23] == 0);
	memcpy(&lng, buf + 48 + 36, 4);
	ck_assert(lng == 0.25f);
	memcpy(v, buf + 48 + 40, 8);
	ck_assert(v[0] == -8 && v[1] == 9);
	ck_assert_int_eq(read_text("1,2,3,4,5,6,7,8,9,10,11\n1,2,3,4,5,6,7,8,9,10,11\n", &rec, NULL,
	                           0, &found, &e),
	                 0);
	ck_assert_uint_eq(found, 2);
	record_free(&rec);
	record_free(&pt);
}
END_TEST

START_TEST(test_reccsv_errors_name_line_column_and_field)
{
	struct cs_record pt, rec;
	unsigned char buf[2 * 48];
	struct cs_err e;

	make_rec(&pt, &rec);
	ck_assert_int_eq(read_text("1,2,3\n", &rec, buf, 1, NULL, &e), -1);
	ck_assert_str_eq(e.msg,
	                 "x.csv:1: 3 values, struct Rec needs 11 a line (id, w, h, p[0].lat, "
	                 "p[0].lng, p[1].lat, p[1].lng, v)");
	ck_assert_int_eq(read_text("\n1,2,3,4,5,6,7,8,9,10,x\n", &rec, buf, 1, NULL, &e), -1);
	ck_assert_str_eq(e.msg, "x.csv:2:11: field 'v' of struct Rec: 'x' is not a number");
	ck_assert_int_eq(read_text("300,2,3,4,5,6,7,8,9,10,11\n", &rec, buf, 1, NULL, &e), -1);
	ck_assert_str_eq(e.msg,
	                 "x.csv:1:1: field 'id' of struct Rec: '300' is out of range for char");
	ck_assert_int_eq(read_text("1,,3\n", &rec, buf, 1, NULL, &e), -1);
	ck_assert_str_eq(e.msg,
	                 "x.csv:1:2: empty value: values are separated by one ',' or blanks");
	ck_assert_int_eq(read_text("1,2,3,4,5,6,7,8,9,10,11\n", &rec, buf, 2, NULL, &e), -1);
	ck_assert_str_eq(e.msg, "x.csv: 1 record, expected 2 (struct Rec, one a line)");
	ck_assert_int_eq(read_text("1,2,3,4,5,6,7,8,9,10,11\n1,2,3,4,5,6,7,8,9,10,11\n", &rec, buf,
	                           1, NULL, &e),
	                 -1);
	ck_assert_str_eq(e.msg, "x.csv: more than 1 record, expected 1 (struct Rec, one a line)");
	record_free(&rec);
	record_free(&pt);
}
END_TEST

START_TEST(test_reccsv_writes_what_it_reads)
{
	static const char text[] = "-3,0.5,1,2,3,1,2,3,4.5,5,6\n7,1000,-1,-2,-3,0,0,0,0.25,-8,9\n";
	struct cs_record pt, rec;
	unsigned char buf[2 * 48];
	char out[256] = "";
	struct cs_err e;
	FILE *f = fmemopen(out, sizeof(out), "w");

	make_rec(&pt, &rec);
	ck_assert_int_eq(read_text(text, &rec, buf, 2, NULL, &e), 0);
	ck_assert_int_eq(reccsv_write(f, "y.csv", &rec, buf, 2, &e), 0);
	fclose(f);
	ck_assert_str_eq(out, text);
	record_free(&rec);
	record_free(&pt);
}
END_TEST

Suite *suite_record(void)
{
	Suite *s = suite_create("record");
	TCase *tc = tcase_create("layout");
	TCase *tv = tcase_create("csv");

	tcase_add_test(tc, test_record_layout_is_opencl_cs);
	tcase_add_test(tc, test_record_padding_at_the_end_and_vectors_aligned_to_their_size);
	tcase_add_test(tv, test_reccsv_reads_each_field_at_its_offset_padding_zero);
	tcase_add_test(tv, test_reccsv_errors_name_line_column_and_field);
	tcase_add_test(tv, test_reccsv_writes_what_it_reads);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tv);
	return s;
}
