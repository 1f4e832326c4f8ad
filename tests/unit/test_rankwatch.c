/* mpi/rankwatch: the ranks' watchdog, without MPI (mpi/ranks.c broadcasts the address; here
 * a fork passes it). A rank killed by SIGKILL is named at once with its host, pid, last job
 * and the step; one that said bye is no loss; a stopped one is named after the silence the
 * environment allows; rank 0 killed is named by the other rank. Each test runs in a process
 * of its own (check's fork mode), as the watchdog's state is the process's. */
#include <check.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "mpi/rankwatch.h"

static int lost_pipe[2];

/* The lost callback does not return: it hands the sentence to the test and waits to end. */
static void lost_here(const char *msg)
{
	if (write(lost_pipe[1], msg, strlen(msg) + 1) < 0)
		_exit(3);
	for (;;)
		pause();
}

static void never_lost(const char *msg)
{
	(void)msg;
	_exit(4);
}

/* The sentence lost_here got within ms, or "" where none came. */
static const char *lost_within(int ms)
{
	static char msg[1024];
	struct pollfd p = {.fd = lost_pipe[0], .events = POLLIN};
	ssize_t n = 0;

	msg[0] = '\0';
	if (poll(&p, 1, ms) == 1)
		n = read(lost_pipe[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	return msg;
}

/* A process that is rank 1 of 2 (rank 0 this one) and then does what then says. */
static pid_t start_peer(const struct rankwatch_addr *a, void (*then)(void))
{
	struct cs_err e;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (rankwatch_arm(1, 2, a, never_lost, &e))
			_exit(5);
		then();
		_exit(0);
	}
	return pid;
}

static void wait_for_ever(void)
{
	for (;;)
		pause();
}

static void say_bye(void)
{
	rankwatch_bye();
}

static void stop_self(void)
{
	raise(SIGSTOP);
	wait_for_ever();
}

static void arm_root(struct rankwatch_addr *a, struct cs_err *e)
{
	ck_assert_int_eq(pipe(lost_pipe), 0);
	ck_assert_int_eq(rankwatch_listen(a, e), 0);
	ck_assert_int_ge(a->n, 1);
}

static void expect_lost(const char *got, int rank, pid_t pid, const char *why, const char *job,
                        const char *step)
{
	char host[64] = "", want[1024];

	ck_assert_int_eq(gethostname(host, sizeof(host) - 1), 0);
	snprintf(want, sizeof(want),
	         "lost rank %d on %s (pid %d): %s; its last job: %s; the ranks were at %s", rank,
	         host, (int)pid, why, job, step);
	ck_assert_str_eq(got, want);
}

START_TEST(test_a_killed_rank_is_named)
{
	struct rankwatch_addr a;
	struct cs_err e;
	pid_t peer;
	const char *got;

	arm_root(&a, &e);
	peer = start_peer(&a, wait_for_ever);
	ck_assert_msg(rankwatch_arm(0, 2, &a, lost_here, &e) == 0, "%s", e.msg);
	rankwatch_note_step("a.bat.xml:3: <Exec>");
	rankwatch_note_job(1, "a.bat.xml");
	rankwatch_note_step("a.bat.xml:4: <Sync>");
	ck_assert_int_eq(kill(peer, SIGKILL), 0);
	got = lost_within(5000);
	ck_assert_int_eq(waitpid(peer, NULL, 0), peer);
	expect_lost(got, 1, peer, "its connection closed",
	            "a.bat.xml, placed at a.bat.xml:3: <Exec>", "a.bat.xml:4: <Sync>");
}
END_TEST

START_TEST(test_a_rank_that_said_bye_is_no_loss)
{
	struct rankwatch_addr a;
	struct cs_err e;
	pid_t peer;
	int status = -1;

	arm_root(&a, &e);
	peer = start_peer(&a, say_bye);
	ck_assert_msg(rankwatch_arm(0, 2, &a, lost_here, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(waitpid(peer, &status, 0), peer);
	ck_assert_int_eq(status, 0);
	/* An end of file without the bye is named within milliseconds (the test above). */
	ck_assert_str_eq(lost_within(1000), "");
}
END_TEST

START_TEST(test_a_silent_rank_is_named)
{
	struct rankwatch_addr a;
	struct cs_err e;
	pid_t peer;
	const char *got;

	setenv("CARSH_MPI_WATCH_MS", "300", 1);
	arm_root(&a, &e);
	peer = start_peer(&a, stop_self);
	ck_assert_msg(rankwatch_arm(0, 2, &a, lost_here, &e) == 0, "%s", e.msg);
	got = lost_within(10000);
	kill(peer, SIGKILL);
	ck_assert_int_eq(waitpid(peer, NULL, 0), peer);
	expect_lost(got, 1, peer, "no heartbeat for 300 ms", "none", "their start");
}
END_TEST

/* Rank 0 in a child this time: the other rank names it. */
START_TEST(test_rank_0_killed_is_named_by_the_others)
{
	struct rankwatch_addr a;
	struct cs_err e;
	pid_t root;
	const char *got;

	arm_root(&a, &e);
	root = fork();
	ck_assert_int_ge(root, 0);
	if (root == 0) {
		if (rankwatch_arm(0, 2, &a, never_lost, &e))
			_exit(5);
		wait_for_ever();
	}
	ck_assert_msg(rankwatch_arm(1, 2, &a, lost_here, &e) == 0, "%s", e.msg);
	ck_assert_int_eq(kill(root, SIGKILL), 0);
	got = lost_within(5000);
	ck_assert_int_eq(waitpid(root, NULL, 0), root);
	expect_lost(got, 0, root, "its connection closed", "none", "their start");
}
END_TEST

Suite *suite_rankwatch(void)
{
	Suite *s = suite_create("rankwatch");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_a_killed_rank_is_named);
	tcase_add_test(tc, test_a_rank_that_said_bye_is_no_loss);
	tcase_add_test(tc, test_a_silent_rank_is_named);
	tcase_add_test(tc, test_rank_0_killed_is_named_by_the_others);
	suite_add_tcase(s, tc);
	return s;
}
