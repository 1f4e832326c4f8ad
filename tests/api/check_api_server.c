/* Machines on the user's carsh server (carsh_machine_open_at("server", ...); docs/api.md,
 * "Machines on the server"): saxpy against C, asynchronous fires, parameters between fires,
 * the local messages byte for byte, a worker killed mid-fire, two threads on two server
 * machines, CARSH_SERVER=off, the guest rules. The server is the suite's (its private
 * CARSH_SERVER_DIR), stopped after the suite as for every test; CARSH_EXE names the
 * build's carsh. */
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apitest.h"

static void setup(void)
{
	const char *carsh = getenv("CARSH");

	apitest_setup();
	ck_assert_msg(carsh != NULL, "CARSH (the build's carsh) is not set");
	setenv("CARSH_EXE", carsh, 1);
	unsetenv("CARSH_SERVER");
}

static carsh_machine *open_at(const char *where)
{
	carsh_machine *m = NULL;

	ck_assert_msg(carsh_machine_open_at(where, "cpu", &m) == 0, "%s",
	              carsh_machine_last_error(m));
	return m;
}

START_TEST(test_saxpy_on_a_server_machine_matches_c)
{
	static float x[N], y[N];
	carsh_machine *m = open_at("server");
	carsh_flowmodel *fm;
	struct carsh_device_info d;
	struct carsh_stats st;
	size_t n = 0, bytes = 0, selected = 0;

	ck_assert_int_eq(carsh_machine_device_count(m, &n), 0);
	ck_assert_uint_ge(n, 1);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(carsh_machine_device_info(m, i, &d), 0);
		ck_assert(d.name[0] && strcmp(d.type, "cpu") == 0 && d.compute_units > 0);
		selected += d.selected;
	}
	ck_assert_uint_eq(selected, 1);
	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_stream_bytes(fm, "y", &bytes), 0);
	ck_assert_uint_eq(bytes, N * sizeof(float));
	for (int f = 0; f < 3; f++)
		ck_assert_msg(carsh_flowmodel_fire(fm) == 0, "%s", carsh_flowmodel_last_error(fm));
	expect_saxpy(x, y, 2.0f, 3);
	ck_assert_int_eq(carsh_flowmodel_stats(fm, &st), 0);
	ck_assert_uint_eq(st.fires, 3);
	ck_assert_uint_eq(st.launches, 3);
	ck_assert(st.fire_ms > 0 && st.last_fire_ms > 0);
	ck_assert_msg(strncmp(st.device, "server: ", 8) == 0, "device '%s'", st.device);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_async_fire_test_and_wait_on_a_server_machine)
{
	static float x[N], y[N];
	carsh_machine *m = open_at("server");
	carsh_flowmodel *fm;
	char want[4200];
	int done = 0;

	fill(x, y);
	fm = saxpy(m, "0.5", x, y);
	ck_assert_int_eq(carsh_flowmodel_test(fm, &done), 0);
	ck_assert_int_eq(done, 1);
	/* fires queue (issue 40): the caller's memory goes in once and comes back at the end */
	for (int i = 0; i < 70; i++)
		ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "A", "1"), CARSH_E_STATE);
	snprintf(want, sizeof(want), "%s: a fire is in flight: carsh_flowmodel_wait first",
	         saxpy_path);
	ck_assert_str_eq(carsh_flowmodel_last_error(fm), want);
	do
		ck_assert_int_eq(carsh_flowmodel_test(fm, &done), 0);
	while (!done);
	expect_saxpy(x, y, 0.5f, 70);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	expect_saxpy(x, y, 0.5f, 71);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0); /* ends the one queued before it */
	expect_saxpy(x, y, 0.5f, 73);
	ck_assert_int_eq(carsh_flowmodel_test(fm, NULL), CARSH_E_ARG);
	ck_assert_str_eq(carsh_flowmodel_last_error(fm), "carsh_flowmodel_test: done is NULL");
	/* freed in flight: waits, and the caller's memory is up to date */
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	carsh_flowmodel_free(fm);
	expect_saxpy(x, y, 0.5f, 75);
	carsh_machine_free(m);
}
END_TEST

START_TEST(test_parameters_and_memory_changed_between_fires)
{
	static float x[N], y[N];
	carsh_machine *m = open_at("server");
	carsh_flowmodel *fm;

	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	expect_saxpy(x, y, 2.0f, 1);
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "A", "3"), 0);
	for (int i = 0; i < N; i++)
		y[i] = 1.0f; /* the caller's memory is its own between fires */
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	expect_saxpy(x, y, 3.0f, 1);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

/* Each failing call leaves on the server machine the message a local machine leaves. */
static void both_fail(carsh_flowmodel *local, carsh_flowmodel *remote, int code,
                      int (*call)(carsh_flowmodel *), const char *want)
{
	ck_assert_int_eq(call(local), code);
	ck_assert_int_eq(call(remote), code);
	ck_assert_str_eq(carsh_flowmodel_last_error(remote), carsh_flowmodel_last_error(local));
	ck_assert_str_eq(carsh_flowmodel_last_error(remote), want);
}

static float ex[N];

static int bind_short(carsh_flowmodel *fm)
{
	return carsh_flowmodel_bind_memory(fm, "x", ex, sizeof(ex) - 4);
}

static int fire_unbound(carsh_flowmodel *fm)
{
	return carsh_flowmodel_fire(fm);
}

static int bad_param(carsh_flowmodel *fm)
{
	return carsh_flowmodel_set_param(fm, "n", "8");
}

START_TEST(test_errors_are_the_local_messages)
{
	carsh_machine *lm = open_at("local"), *rm = open_at("server");
	carsh_flowmodel *lf = saxpy(lm, "2", NULL, NULL), *rf = saxpy(rm, "2", NULL, NULL), *f;
	char want[8192];

	snprintf(want, sizeof(want), "%s: stream 'x' is 4096 bytes (1024 float), not 4092",
	         saxpy_path);
	both_fail(lf, rf, CARSH_E_SIZE, bind_short, want);
	snprintf(want, sizeof(want),
	         "%s: stream 'x' is not bound: carsh_flowmodel_bind_memory or "
	         "carsh_flowmodel_bind_buffer first",
	         saxpy_path);
	both_fail(lf, rf, CARSH_E_STATE, fire_unbound, want);
	snprintf(want, sizeof(want), "%s: no parameter 'n' (parameters: N A)", saxpy_path);
	both_fail(lf, rf, CARSH_E_NAME, bad_param, want);
	ck_assert_int_eq(carsh_flowmodel_from_string(rm, "<FlowModel>", "s.xml", &f), CARSH_E_FILE);
	ck_assert_ptr_null(f);
	ck_assert_int_eq(carsh_flowmodel_from_string(lm, "<FlowModel>", "s.xml", &f), CARSH_E_FILE);
	ck_assert_str_eq(carsh_machine_last_error(rm), carsh_machine_last_error(lm));
	ck_assert_int_eq(carsh_flowmodel_from_file(rm, "/nonexistent/f.xml", &f), CARSH_E_FILE);
	ck_assert_ptr_nonnull(strstr(carsh_machine_last_error(rm), "/nonexistent/f.xml"));
	ck_assert_int_eq(carsh_buffer_new(rm, 16, &(carsh_buffer *){NULL}), CARSH_E_STATE);
	ck_assert_str_eq(carsh_machine_last_error(rm),
	                 "carsh_buffer_new: not on a server machine (it has flow-models on the "
	                 "caller's memory only): open a local machine for it");
	carsh_flowmodel_free(lf);
	carsh_flowmodel_free(rf);
	carsh_machine_free(lm);
	carsh_machine_free(rm);
}
END_TEST

/* The pid the server lent to this process ("lent PID to CLIENT" of `carsh server status`). */
static pid_t lent_worker(void)
{
	char cmd[4200], line[256];
	FILE *p;
	int pid = 0, client;

	snprintf(cmd, sizeof(cmd), "'%s' server status", getenv("CARSH"));
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "lent %d to %d", &pid, &client) == 2 && client == (int)getpid())
			break;
	pclose(p);
	ck_assert_int_gt(pid, 0);
	return (pid_t)pid;
}

START_TEST(test_a_killed_worker_loses_the_machine_not_the_program)
{
	static float x[N], y[N];
	carsh_machine *m = open_at("server");
	carsh_flowmodel *fm;
	pid_t pid = lent_worker();
	char want[512];

	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	snprintf(want, sizeof(want),
	         "server: the carsh server's API worker (pid %d) was killed by SIGKILL; the "
	         "machine is lost: free its handles and open another",
	         (int)pid);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), CARSH_E_LOST);
	ck_assert_str_eq(carsh_flowmodel_last_error(fm), want);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), CARSH_E_LOST);
	ck_assert_str_eq(carsh_flowmodel_last_error(fm), want);
	ck_assert_int_eq(carsh_flowmodel_set_param(fm, "A", "1"), CARSH_E_LOST);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
	/* the server goes on: the next machine gets a new worker */
	m = open_at("server");
	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_fire(fm), 0);
	expect_saxpy(x, y, 2.0f, 1);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}
END_TEST

struct job {
	float x[N], y[N], a;
	int rc;
};

static void *work(void *arg)
{
	struct job *j = arg;
	carsh_machine *m = NULL;
	carsh_flowmodel *fm = NULL;
	char a[16];

	snprintf(a, sizeof(a), "%g", (double)j->a);
	j->rc = carsh_machine_open_at("server", "cpu", &m);
	if (j->rc == 0)
		j->rc = carsh_flowmodel_from_file(m, saxpy_path, &fm);
	if (j->rc == 0)
		j->rc = carsh_flowmodel_set_param(fm, "A", a);
	if (j->rc == 0)
		j->rc = carsh_flowmodel_bind_memory(fm, "x", j->x, sizeof(j->x));
	if (j->rc == 0)
		j->rc = carsh_flowmodel_bind_memory(fm, "y", j->y, sizeof(j->y));
	for (int f = 0; f < 20 && j->rc == 0; f++)
		j->rc = carsh_flowmodel_fire(fm);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
	return NULL;
}

START_TEST(test_two_threads_on_two_server_machines_at_once)
{
	static struct job j[2];
	pthread_t t[2];

	for (int k = 0; k < 2; k++) {
		fill(j[k].x, j[k].y);
		j[k].a = k ? 0.5f : 2.0f;
		ck_assert_int_eq(pthread_create(&t[k], NULL, work, &j[k]), 0);
	}
	for (int k = 0; k < 2; k++) {
		pthread_join(t[k], NULL);
		ck_assert_int_eq(j[k].rc, 0);
		expect_saxpy(j[k].x, j[k].y, j[k].a, 20);
	}
}
END_TEST

START_TEST(test_places_other_than_a_server_are_refused_clearly)
{
	carsh_machine *m = NULL;

	setenv("CARSH_SERVER", "off", 1);
	ck_assert_int_eq(carsh_machine_open_at("server", NULL, &m), CARSH_E_DEVICE);
	ck_assert_str_eq(carsh_machine_last_error(m),
	                 "server: CARSH_SERVER=off: this process uses no carsh server (unset it, "
	                 "or open a local machine)");
	carsh_machine_free(m);
	unsetenv("CARSH_SERVER");
	ck_assert_int_eq(carsh_machine_open_at("rank:1", NULL, &m), CARSH_E_ARG);
	ck_assert_str_eq(carsh_machine_last_error(m),
	                 "rank:1: an MPI rank is not a machine: CaravelaMPI (carsh_mpi_*) moves "
	                 "streams between the ranks' own machines");
	carsh_machine_free(m);
	ck_assert_int_eq(carsh_machine_open_at("mars", NULL, &m), CARSH_E_ARG);
	ck_assert_str_eq(carsh_machine_last_error(m),
	                 "carsh_machine_open_at: no place 'mars' (places: local, server)");
	carsh_machine_free(m);
	setenv("CARSH_EXE", "/nonexistent/carsh", 1);
	ck_assert_int_eq(carsh_machine_open_at("server", NULL, &m), CARSH_E_DEVICE);
	ck_assert_str_eq(carsh_machine_last_error(m),
	                 "server: no carsh program at /nonexistent/carsh: set CARSH_EXE to the "
	                 "carsh program's path");
	carsh_machine_free(m);
	ck_assert_int_eq(carsh_machine_open_at("server", "no-such-device-xyz", &m), CARSH_E_DEVICE);
	carsh_machine_free(m);
	ck_assert_int_eq(carsh_machine_open_at("server", NULL, NULL), CARSH_E_ARG);
}
END_TEST

static void one_saxpy(void)
{
	static float x[N], y[N];
	carsh_machine *m = open_at("server");
	carsh_flowmodel *fm;

	fill(x, y);
	fm = saxpy(m, "2", x, y);
	ck_assert_int_eq(carsh_flowmodel_fire_async(fm), 0);
	ck_assert_int_eq(carsh_flowmodel_wait(fm), 0);
	expect_saxpy(x, y, 2.0f, 1);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
}

START_TEST(test_a_server_machine_is_a_guest_too)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};
	struct sigaction before[5], after;
	sigset_t mask_before, mask_after;
	char path[] = "/tmp/check_api_server_out.XXXXXX";
	int fd = mkstemp(path), saved1 = dup(1), saved2 = dup(2), threads;

	one_saxpy(); /* the server started, if it was not */
	threads = thread_count();
	for (size_t i = 0; i < 5; i++)
		sigaction(sigs[i], NULL, &before[i]);
	pthread_sigmask(SIG_SETMASK, NULL, &mask_before);
	fflush(stdout);
	fflush(stderr);
	dup2(fd, 1);
	dup2(fd, 2);
	one_saxpy();
	fflush(stdout);
	fflush(stderr);
	dup2(saved1, 1);
	dup2(saved2, 2);
	ck_assert_int_eq((int)lseek(fd, 0, SEEK_END), 0);
	close(fd);
	unlink(path);
	ck_assert_int_eq(thread_count(), threads);
	ck_assert_int_eq(threads, 1); /* no OpenCL here: every thread would be ours */
	for (size_t i = 0; i < 5; i++) {
		sigaction(sigs[i], NULL, &after);
		ck_assert(after.sa_handler == before[i].sa_handler);
	}
	pthread_sigmask(SIG_SETMASK, NULL, &mask_after);
	for (int s = 1; s < 32; s++)
		ck_assert_int_eq(sigismember(&mask_after, s), sigismember(&mask_before, s));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api-server");
	TCase *tc = tcase_create("server");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_saxpy_on_a_server_machine_matches_c);
	tcase_add_test(tc, test_async_fire_test_and_wait_on_a_server_machine);
	tcase_add_test(tc, test_parameters_and_memory_changed_between_fires);
	tcase_add_test(tc, test_errors_are_the_local_messages);
	tcase_add_test(tc, test_a_killed_worker_loses_the_machine_not_the_program);
	tcase_add_test(tc, test_two_threads_on_two_server_machines_at_once);
	tcase_add_test(tc, test_places_other_than_a_server_are_refused_clearly);
	tcase_add_test(tc, test_a_server_machine_is_a_guest_too);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
