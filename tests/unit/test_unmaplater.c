/* util/unmaplater: every mapping handed over is gone once unmap_wait returns, however many
 * were queued; a small one, and any in a forked child (which has no unmapping thread), goes
 * before unmap_later returns. Whether a range is still mapped: msync fails with ENOMEM on an
 * unmapped one. */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "util/unmaplater.h"

#define BIG ((size_t)8 << 20)

static char *mapped(size_t bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 7, 4096); /* a page taken, as a fill's would be */
	return p;
}

static bool is_mapped(void *p)
{
	return msync(p, 4096, MS_ASYNC) == 0 || errno != ENOMEM;
}

START_TEST(test_unmaplater_all_gone_after_wait)
{
	char *p[20]; /* more than the queue holds: the rest are unmapped by the caller */

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		p[i] = mapped(BIG);
		unmap_later(p[i], BIG);
	}
	unmap_wait();
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		ck_assert_msg(!is_mapped(p[i]), "mapping %zu still there after unmap_wait", i);
}
END_TEST

START_TEST(test_unmaplater_small_at_once)
{
	char *p = mapped(65536);

	unmap_later(p, 65536);
	ck_assert(!is_mapped(p));
}
END_TEST

START_TEST(test_unmaplater_child_at_once)
{
	char *first = mapped(BIG);
	pid_t pid;
	int status = 0;

	unmap_later(first, BIG); /* the thread now runs in this process */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char *p = mapped(BIG);

		unmap_later(p, BIG);
		_exit(is_mapped(p) ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	              "a child's mapping was still there after unmap_later");
	unmap_wait();
	ck_assert(!is_mapped(first));
}
END_TEST

Suite *suite_unmaplater(void)
{
	Suite *s = suite_create("unmaplater");
	TCase *tc = tcase_create("unmap");

	tcase_add_test(tc, test_unmaplater_all_gone_after_wait);
	tcase_add_test(tc, test_unmaplater_small_at_once);
	tcase_add_test(tc, test_unmaplater_child_at_once);
	suite_add_tcase(s, tc);
	return s;
}
