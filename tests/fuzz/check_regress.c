/*
 * One test per crash, hang or wrong result found while hardening (docs/hardening.md says
 * how each was found), on a minimal form of the input. Inputs that fuzz targets found are
 * also kept whole in tests/fuzz/regress/TARGET/ (make fuzz-regress runs them).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/csvio.h"
#include "data/types.h"
#include "util/error.h"

Suite *suite_fuzz_regressions(void);

static struct cs_err err;

static int csv_into(const char *text, enum scalar s, void *dst, size_t n)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	ck_assert_ptr_nonnull(f);
	err_clear(&err);
	rc = csvio_read_stream(f, "x.csv", s, dst, n, &err);
	fclose(f);
	return rc;
}

/* A file with two or more values too many wrote the second one past the end of the buffer
 * (a heap overflow in `virtbuf fill`, and in a job staging an input file). */
START_TEST(test_csv_with_many_values_too_many_writes_nothing_past_the_buffer)
{
	float v[8];

	for (size_t i = 0; i < 8; i++)
		v[i] = -1.0f;
	ck_assert_int_ne(csv_into("1,2,3,4,5,6,7,8\n9,10\n", SC_FLOAT, v, 2), 0);
	ck_assert_str_eq(err.msg, "x.csv: 10 values, expected 2");
	for (size_t i = 2; i < 8; i++)
		ck_assert_msg(v[i] == -1.0f, "value %zu was written past the 2 slots", i);
}
END_TEST

START_TEST(test_csv_with_one_value_too_many_is_refused)
{
	int v[3] = {0, 0, -7};

	ck_assert_int_ne(csv_into("1,2,3", SC_INT, v, 2), 0);
	ck_assert_str_eq(err.msg, "x.csv: 3 values, expected 2");
	ck_assert_int_eq(v[2], -7);
}
END_TEST

/* A field with control characters (an escape sequence, a binary file) is quoted with them
 * escaped, so the message cannot garble the terminal. */
START_TEST(test_bad_field_is_quoted_without_control_characters)
{
	float v[2];

	ck_assert_int_ne(csv_into("1,\033[31mred\a\n", SC_FLOAT, v, 2), 0);
	ck_assert_str_eq(err.msg, "x.csv:1:2: '\\x1b[31mred\\x07' is not a number");
	err_clear(&err);
	ck_assert_int_ne(number_parse(SC_UCHAR, "\x7f\x01", v, &err), 0);
	ck_assert_str_eq(err.msg, "'\\x7f\\x01' is not a number");
}
END_TEST

Suite *suite_fuzz_regressions(void)
{
	Suite *s = suite_create("regressions");
	TCase *tc = tcase_create("regressions");

	tcase_add_test(tc, test_csv_with_many_values_too_many_writes_nothing_past_the_buffer);
	tcase_add_test(tc, test_csv_with_one_value_too_many_is_refused);
	tcase_add_test(tc, test_bad_field_is_quoted_without_control_characters);
	suite_add_tcase(s, tc);
	return s;
}
