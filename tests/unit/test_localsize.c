/* local="device": the choice of a work-group size (runtime/localsize.h). */
#include "runtime/localsize.h"
#include "suites.h"

static size_t choose0(size_t global, size_t limit, size_t pref)
{
	size_t g[3] = {global, 5, 7}, l[3] = {0, 0, 0};

	rt_local_choose(3, g, limit, pref, l);
	ck_assert_uint_eq(l[1], 1);
	ck_assert_uint_eq(l[2], 1);
	return l[0];
}

START_TEST(test_local_is_the_largest_divisor_within_the_limit)
{
	ck_assert_uint_eq(choose0(96, 4096, 8), 96);
	ck_assert_uint_eq(choose0(8192, 4096, 8), 4096);
	/* 1920 = 2^7 * 15: 240 divides it, but 192 is the largest multiple of 32 that does */
	ck_assert_uint_eq(choose0(1920, 256, 32), 192);
	ck_assert_uint_eq(choose0(1920, 256, 1), 240);
	ck_assert_uint_eq(choose0(1 << 20, 1024, 32), 1024);
}
END_TEST

START_TEST(test_local_falls_back_when_no_multiple_of_pref_divides)
{
	ck_assert_uint_eq(choose0(97, 4096, 8), 97);    /* a prime within the limit */
	ck_assert_uint_eq(choose0(194, 64, 32), 2);     /* 194 = 2 * 97 */
	ck_assert_uint_eq(choose0(1000, 256, 32), 250); /* 1000 = 2^3 5^3: no 32 in it */
	ck_assert_uint_eq(choose0(1000, 256, 0), 250);  /* no preference */
	ck_assert_uint_eq(choose0(7, 1, 1), 1);
	ck_assert_uint_eq(choose0(7, 0, 4), 1); /* a limit of 0 counts as 1 */
}
END_TEST

Suite *suite_localsize(void)
{
	Suite *s = suite_create("localsize");
	TCase *tc = tcase_create("localsize");

	tcase_add_test(tc, test_local_is_the_largest_divisor_within_the_limit);
	tcase_add_test(tc, test_local_falls_back_when_no_multiple_of_pref_divides);
	suite_add_tcase(s, tc);
	return s;
}
