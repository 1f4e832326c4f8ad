/* util/parcopy: the copy and the read are whole and exact at every size around the thread
 * split; a file that ends early is a short read, never a silent partial copy. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A temporary file of `len` patterned bytes; its descriptor, positioned at 0. */
static int patterned_file(size_t len, unsigned char **bytes)
{
	FILE *f = tmpfile();
	unsigned char *b = malloc(len + 1);
	int fd;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(b);
	for (size_t i = 0; i < len; i++)
		b[i] = (unsigned char)(i * 2246822519u >> 11);
	ck_assert_uint_eq(fwrite(b, 1, len, f), len);
	ck_assert_int_eq(fflush(f), 0);
	*bytes = b;
	fd = dup(fileno(f)); /* the file lives while this descriptor does */
	ck_assert_int_ge(fd, 0);
	fclose(f);
	return fd;
}

START_TEST(test_parpread_reads_from_offset)
{
	const size_t n = 5 * PARCOPY_MIN + 777, off = 128 + 3;
	const unsigned threads[] = {0, 1, 3, 64};
	unsigned char *want, *dst = malloc(n + 1);
	int fd = patterned_file(n + off, &want);

	ck_assert_ptr_nonnull(dst);
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		memset(dst, 0xA5, n + 1);
		ck_assert_int_eq(par_pread(fd, dst, n, (off_t)off, threads[t]), 0);
		ck_assert_int_eq(memcmp(dst, want + off, n), 0);
		ck_assert_uint_eq(dst[n], 0xA5);
	}
	close(fd);
	free(want);
	free(dst);
}
END_TEST

START_TEST(test_parpread_short_file_fails)
{
	const size_t have = 3 * PARCOPY_MIN;
	unsigned char *want, *dst = malloc(4 * PARCOPY_MIN);
	int fd = patterned_file(have, &want);

	ck_assert_ptr_nonnull(dst);
	errno = 1234;
	ck_assert_int_eq(par_pread(fd, dst, 4 * PARCOPY_MIN, 0, 4), -1);
	ck_assert_int_eq(errno, 0); /* the file ended: no system error */
	ck_assert_int_eq(par_pread(-1, dst, 16, 0, 1), -1);
	ck_assert_int_eq(errno, EBADF);
	close(fd);
	free(want);
	free(dst);
}
END_TEST

Suite *suite_parcopy(void)
{
	Suite *s = suite_create("parcopy");
	TCase *tc = tcase_create("copy");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parcopy_every_size_and_thread_count);
	tcase_add_test(tc, test_parpread_reads_from_offset);
	tcase_add_test(tc, test_parpread_short_file_fails);
	suite_add_tcase(s, tc);
	return s;
}
