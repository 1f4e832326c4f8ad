/* data/vbuf's sweep of stale segments: a segment named for a master that has ended is
 * removed, even while that master is a zombie its parent has not reaped yet (under MPI, a
 * rank killed by SIGKILL until the launcher reaps it); one named for a live carsh process
 * stays. Each test unlinks what it made before it asserts, so a failure leaves nothing in
 * /dev/shm. */
#include <check.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data/vbuf.h"
#include "suites.h"

/* An empty segment named as vbuf names those of pid. */
static void make_segment(char *name, size_t n, pid_t pid)
{
	int fd;

	snprintf(name, n, "/carsh-%d-%016llx", (int)pid, 0x5eedULL);
	fd = shm_open(name, O_CREAT | O_RDWR, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
}

static bool segment_exists(const char *name)
{
	int fd = shm_open(name, O_RDONLY, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

START_TEST(test_a_zombie_masters_segments_are_stale)
{
	char name[64];
	siginfo_t si;
	int removed;
	bool gone;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	/* Ended and not reaped (WNOWAIT): a zombie until the waitpid below. */
	ck_assert_int_eq(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
	make_segment(name, sizeof(name), pid);
	removed = vbuf_remove_stale();
	gone = !segment_exists(name);
	shm_unlink(name);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	ck_assert_msg(gone, "the segment of a zombie master was kept");
	ck_assert_int_ge(removed, 1);
}
END_TEST

START_TEST(test_a_live_masters_segments_stay)
{
	char name[64];
	bool stayed;

	make_segment(name, sizeof(name), getpid()); /* this process, check_carsh: a carsh */
	vbuf_remove_stale();
	stayed = segment_exists(name);
	shm_unlink(name);
	ck_assert_msg(stayed, "the segment of a live master was removed");
}
END_TEST

Suite *suite_vbufstale(void)
{
	Suite *s = suite_create("vbufstale");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_a_zombie_masters_segments_are_stale);
	tcase_add_test(tc, test_a_live_masters_segments_stay);
	suite_add_tcase(s, tc);
	return s;
}
