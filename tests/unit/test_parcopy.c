/* util/parcopy: the copy is whole and exact at every size around the thread split. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "util/parcopy.h"

static void copy_and_compare(size_t n, unsigned threads)
{
	unsigned char *src = malloc(n + 1), *dst = malloc(n + 1);

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	for (size_t i = 0; i < n; i++)
		src[i] = (unsigned char)(i * 2654435761u >> 13);
	memset(dst, 0xA5, n + 1);
	par_memcpy(dst, src, n, threads);
	ck_assert_int_eq(memcmp(dst, src, n), 0);
	ck_assert_uint_eq(dst[n], 0xA5); /* nothing past the end */
	free(src);
	free(dst);
}

START_TEST(test_parcopy_every_size_and_thread_count)
{
	const size_t sizes[] = {0,
	                        1,
	                        PARCOPY_MIN - 1,
	                        2 * PARCOPY_MIN,
	                        2 * PARCOPY_MIN + 63,
	                        5 * PARCOPY_MIN + 12345,
	                        17 * PARCOPY_MIN + 1};
	const unsigned threads[] = {0, 1, 2, 3, 7, 64};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
			copy_and_compare(sizes[i], threads[t]);
}
END_TEST

Suite *suite_parcopy(void)
{
	Suite *s = suite_create("parcopy");
	TCase *tc = tcase_create("copy");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parcopy_every_size_and_thread_count);
	suite_add_tcase(s, tc);
	return s;
}
