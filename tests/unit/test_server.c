/* The server's directory checks (exec/serverdir.h), the job message with its job
 * environment (exec/workerwire.h), which decides which of the server's workers a job may
 * have, and the device list a lent worker gives `auto` (WORKER_DEVICES, WORKER_DEVLIST). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/jobplan.h"
#include "exec/serverdir.h"
#include "exec/serverwire.h"
#include "server/sessionwire.h"
#include "exec/workerwire.h"
#include "util/wire.h"
#include "util/alloc.h"
#include "suites.h"

static char *scratch(void)
{
	char *d = xstrdup("/tmp/carsh-test-server-XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

static void rm_scratch(char *d)
{
	char *cmd = xasprintf("rm -rf '%s'", d);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(d);
}

START_TEST(test_server_dir_own_0700_accepted)
{
	char *d = scratch();
	struct cs_err e;

	ck_assert_int_eq(chmod(d, 0700), 0);
	ck_assert_int_eq(server_dir_check(d, getuid(), &e), 0);
	rm_scratch(d);
}
END_TEST

START_TEST(test_server_dir_unsafe_refused)
{
	char *d = scratch(), *link = xasprintf("%s/link", d), *file = xasprintf("%s/file", d);
	struct cs_err e;

	ck_assert_int_eq(chmod(d, 0755), 0);
	ck_assert_int_eq(server_dir_check(d, getuid(), &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "is open to others (mode 755)"));
	ck_assert_int_eq(chmod(d, 0700), 0);
	ck_assert_int_eq(server_dir_check(d, getuid() + 1, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "belongs to uid"));
	ck_assert_int_eq(symlink(d, link), 0);
	ck_assert_int_eq(server_dir_check(link, getuid(), &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "is a symbolic link"));
	fclose(fopen(file, "w"));
	ck_assert_int_eq(server_dir_check(file, getuid(), &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "is not a directory"));
	free(link);
	free(file);
	rm_scratch(d);
}
END_TEST

START_TEST(test_server_socket_name_carries_build)
{
	char *p = server_path("/d", "sock");

	ck_assert_int_eq(strlen(server_build_id()), 16);
	ck_assert_str_eq(p + strlen(p) - 5, ".sock");
	ck_assert_ptr_nonnull(strstr(p, server_build_id()));
	free(p);
}
END_TEST

START_TEST(test_job_env_only_runtime_variables)
{
	struct strvec env = STRVEC_INIT;
	bool ocl = false, other = false, srv = false;

	setenv("OCL_ICD_VENDORS", "/v", 1);
	setenv("CARSH_SERVER_DIR", "/s", 1);
	setenv("CARSH_EXE", "/bin/carsh", 1);
	setenv("UNRELATED_X", "1", 1);
	workerwire_job_env(&env);
	for (size_t i = 0; i < env.n; i++) {
		ocl |= strcmp(env.v[i], "OCL_ICD_VENDORS=/v") == 0;
		other |= strncmp(env.v[i], "UNRELATED_X=", 12) == 0;
		srv |= strncmp(env.v[i], "CARSH_SERVER", 12) == 0 ||
		       strncmp(env.v[i], "CARSH_EXE", 9) == 0;
	}
	ck_assert(ocl && !other && !srv);
	sv_free(&env);
	/* Applying a job's environment replaces this process's runtime variables. */
	char *job[] = {"POCL_DEBUG=1"};

	workerwire_apply_env(job, 1);
	ck_assert_ptr_null(getenv("OCL_ICD_VENDORS"));
	ck_assert_str_eq(getenv("POCL_DEBUG"), "1");
	ck_assert_str_eq(getenv("UNRELATED_X"), "1");
	unsetenv("POCL_DEBUG");
	unsetenv("UNRELATED_X");
	unsetenv("CARSH_SERVER_DIR");
	unsetenv("CARSH_EXE");
}
END_TEST

START_TEST(test_job_message_truncated_refused)
{
	struct strvec env = STRVEC_INIT, got = STRVEC_INIT;
	struct job_plan *jp = NULL;
	struct job_home *homes = NULL;
	struct wbuf w = WBUF_INIT;
	struct cs_err e;
	char *cwd = NULL;
	uint32_t flags;

	sv_push(&env, "OCL_ICD_VENDORS=/v");
	wb_str(&w, "/here");
	wb_u32(&w, 1);
	wb_str(&w, env.v[0]);
	/* No plan after the environment; and a count of variables that are not there. */
	ck_assert_int_eq(workerwire_decode_job(w.p, w.len, &cwd, &got, &homes, &flags, &jp, &e),
	                 -1);
	ck_assert_ptr_null(cwd);
	ck_assert_ptr_null(jp);
	ck_assert_ptr_null(homes);
	ck_assert_int_eq(workerwire_decode_job(w.p, w.len - 3, &cwd, &got, &homes, &flags, &jp, &e),
	                 -1);
	ck_assert_int_eq(got.n, 0);
	wb_free(&w);
	sv_free(&env);
}
END_TEST

static void sample_session(struct wbuf *w)
{
	struct session_req r = {.client = 4242, .umask = 027, .cwd = "/some/dir"};

	sv_push(&r.env, "HOME=/root");
	sv_push(&r.env, "MYVAR=a b=c");
	sv_push(&r.argv, "carsh");
	sv_push(&r.argv, "-T");
	sv_push(&r.argv, "");
	sv_push(&r.argv, "x.bat.xml");
	sessionwire_encode(&r, w);
	sv_free(&r.env);
	sv_free(&r.argv);
}

START_TEST(test_session_message_round_trip)
{
	struct wbuf w = WBUF_INIT;
	struct session_req r;
	struct cs_err e;

	sample_session(&w);
	ck_assert_int_eq(sessionwire_decode(w.p, w.len, &r, &e), 0);
	ck_assert_uint_eq(r.client, 4242);
	ck_assert_uint_eq(r.umask, 027);
	ck_assert_str_eq(r.cwd, "/some/dir");
	ck_assert_int_eq(r.env.n, 2);
	ck_assert_str_eq(r.env.v[1], "MYVAR=a b=c");
	ck_assert_int_eq(r.argv.n, 4);
	ck_assert_str_eq(r.argv.v[2], "");
	ck_assert_str_eq(r.argv.v[3], "x.bat.xml");
	ck_assert_ptr_null(r.argv.v[4]); /* main's argv ends with NULL */
	sessionwire_free(&r);
	wb_free(&w);
}
END_TEST

/* Every prefix is refused, and so are bytes after the end and a count past it. */
START_TEST(test_session_message_truncated_or_garbled_refused)
{
	struct wbuf w = WBUF_INIT, g = WBUF_INIT;
	struct session_req r;
	struct cs_err e;

	sample_session(&w);
	for (size_t n = 0; n < w.len; n++) {
		ck_assert_int_eq(sessionwire_decode(w.p, n, &r, &e), -1);
		ck_assert_ptr_null(r.cwd);
		ck_assert_int_eq(r.argv.n, 0);
	}
	ck_assert_str_eq(e.msg, "session message: truncated or garbled");
	wb_bytes(&g, w.p, w.len);
	wb_u32(&g, 0);
	ck_assert_int_eq(sessionwire_decode(g.p, g.len, &r, &e), -1);
	wb_free(&g);
	wb_u32(&g, 1);
	wb_u32(&g, 0);
	wb_str(&g, "/");
	wb_u32(&g, 0xfffffff0u); /* variables that cannot be there */
	ck_assert_int_eq(sessionwire_decode(g.p, g.len, &r, &e), -1);
	wb_free(&g);
	wb_u32(&g, 1);
	wb_u32(&g, 0);
	wb_str(&g, "/");
	wb_u32(&g, 0);
	wb_u32(&g, 0); /* no command line */
	ck_assert_int_eq(sessionwire_decode(g.p, g.len, &r, &e), -1);
	wb_free(&g);
	wb_free(&w);
}
END_TEST

/* The session message as it travels: a frame with the three descriptors. */
START_TEST(test_session_frame_with_descriptors)
{
	struct wbuf w = WBUF_INIT;
	struct wire_msg m;
	struct session_req r;
	struct cs_err e;
	int sv[2], fds[3] = {0, 1, 2};

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	sample_session(&w);
	ck_assert_int_eq(wire_send(sv[0], WORKER_SESSION, w.p, w.len, fds, 3, &e), 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, WORKER_SESSION);
	ck_assert_int_eq(m.nfds, 3);
	ck_assert_int_eq(sessionwire_decode(m.payload, m.len, &r, &e), 0);
	ck_assert_str_eq(r.argv.v[1], "-T");
	sessionwire_free(&r);
	wire_msg_free(&m);
	close(sv[0]);
	close(sv[1]);
	wb_free(&w);
}
END_TEST

static void sample_devices(struct rt_devinfo *d, size_t n)
{
	memset(d, 0, n * sizeof(*d));
	for (size_t i = 0; i < n; i++) {
		d[i].index = (int)i;
		d[i].type = i ? CL_DEVICE_TYPE_CPU : CL_DEVICE_TYPE_GPU;
		snprintf(d[i].name, sizeof(d[i].name), "device %zu", i);
		d[i].max_item_sizes[2] = 64 + i;
		d[i].fp64 = i == 1;
	}
}

/* The device list as it travels, in a frame: every device byte for byte, in order. */
START_TEST(test_device_list_round_trip)
{
	struct rt_devinfo d[3], *got;
	struct wbuf w = WBUF_INIT;
	struct wire_msg m;
	struct cs_err e;
	size_t n;
	int sv[2];

	sample_devices(d, 3);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	workerwire_encode_devices(d, 3, &w);
	ck_assert_int_eq(wire_send(sv[0], WORKER_DEVLIST, w.p, w.len, NULL, 0, &e), 0);
	ck_assert_int_eq(wire_recv(sv[1], &m, &e), 1);
	ck_assert_uint_eq(m.type, WORKER_DEVLIST);
	ck_assert_int_eq(workerwire_decode_devices(m.payload, m.len, &got, &n, &e), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_mem_eq(got, d, sizeof(d));
	ck_assert_str_eq(got[2].name, "device 2");
	free(got);
	wire_msg_free(&m);
	wb_free(&w);
	/* None is a list too (the caller's rt_devices_list refuses it, not the wire). */
	workerwire_encode_devices(d, 0, &w);
	ck_assert_int_eq(workerwire_decode_devices(w.p, w.len, &got, &n, &e), 0);
	ck_assert_int_eq(n, 0);
	free(got);
	wb_free(&w);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* Every prefix is refused, and so are bytes after the end and a count past the bound. */
START_TEST(test_device_list_truncated_or_garbled_refused)
{
	struct rt_devinfo d[2], *got;
	struct wbuf w = WBUF_INIT, g = WBUF_INIT;
	struct cs_err e;
	size_t n;

	sample_devices(d, 2);
	workerwire_encode_devices(d, 2, &w);
	for (size_t k = 0; k < w.len; k++) {
		ck_assert_int_eq(workerwire_decode_devices(w.p, k, &got, &n, &e), -1);
		ck_assert_ptr_null(got);
		ck_assert_int_eq(n, 0);
	}
	ck_assert_str_eq(e.msg, "device list: truncated or garbled");
	wb_bytes(&g, w.p, w.len);
	wb_u32(&g, 0);
	ck_assert_int_eq(workerwire_decode_devices(g.p, g.len, &got, &n, &e), -1);
	wb_free(&g);
	wb_u32(&g, WORKERWIRE_MAX_DEVS + 1);
	for (size_t i = 0; i <= WORKERWIRE_MAX_DEVS; i++)
		wb_bytes(&g, &d[0], sizeof(d[0]));
	ck_assert_int_eq(workerwire_decode_devices(g.p, g.len, &got, &n, &e), -1);
	wb_free(&g);
	wb_free(&w);
}
END_TEST

/* The request: the job environment, nothing before or after it. */
START_TEST(test_device_list_request)
{
	struct strvec env = STRVEC_INIT, got = STRVEC_INIT;
	struct wbuf w = WBUF_INIT, g = WBUF_INIT;
	struct cs_err e;

	sv_push(&env, "POCL_DEVICES=pthread basic");
	sv_push(&env, "XDG_CACHE_HOME=/c");
	workerwire_encode_env(&env, &w);
	ck_assert_int_eq(workerwire_decode_env(w.p, w.len, &got, &e), 0);
	ck_assert_int_eq(got.n, 2);
	ck_assert_str_eq(got.v[0], "POCL_DEVICES=pthread basic");
	sv_free(&got);
	for (size_t k = 0; k < w.len; k++) {
		ck_assert_int_eq(workerwire_decode_env(w.p, k, &got, &e), -1);
		ck_assert_int_eq(got.n, 0);
	}
	ck_assert_str_eq(e.msg, "device list request: truncated or garbled");
	wb_bytes(&g, w.p, w.len);
	wb_u32(&g, 0);
	ck_assert_int_eq(workerwire_decode_env(g.p, g.len, &got, &e), -1);
	ck_assert_int_eq(got.n, 0);
	wb_free(&g);
	wb_free(&w);
	sv_free(&env);
}
END_TEST

Suite *suite_server(void)
{
	Suite *s = suite_create("server");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_server_dir_own_0700_accepted);
	tcase_add_test(tc, test_server_dir_unsafe_refused);
	tcase_add_test(tc, test_server_socket_name_carries_build);
	tcase_add_test(tc, test_job_env_only_runtime_variables);
	tcase_add_test(tc, test_job_message_truncated_refused);
	tcase_add_test(tc, test_session_message_round_trip);
	tcase_add_test(tc, test_session_message_truncated_or_garbled_refused);
	tcase_add_test(tc, test_session_frame_with_descriptors);
	tcase_add_test(tc, test_device_list_round_trip);
	tcase_add_test(tc, test_device_list_truncated_or_garbled_refused);
	tcase_add_test(tc, test_device_list_request);
	suite_add_tcase(s, tc);
	return s;
}
