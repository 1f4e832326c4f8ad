/* The server's directory checks (exec/serverdir.h) and the job message with its job
 * environment (exec/workerwire.h), which decides which of the server's workers a job may
 * have. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/jobplan.h"
#include "exec/serverdir.h"
#include "exec/workerwire.h"
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
	setenv("UNRELATED_X", "1", 1);
	workerwire_job_env(&env);
	for (size_t i = 0; i < env.n; i++) {
		ocl |= strcmp(env.v[i], "OCL_ICD_VENDORS=/v") == 0;
		other |= strncmp(env.v[i], "UNRELATED_X=", 12) == 0;
		srv |= strncmp(env.v[i], "CARSH_SERVER", 12) == 0;
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
}
END_TEST

START_TEST(test_job_message_truncated_refused)
{
	struct strvec env = STRVEC_INIT, got = STRVEC_INIT;
	struct job_plan *jp = NULL;
	struct wbuf w = WBUF_INIT;
	struct cs_err e;
	char *cwd = NULL;

	sv_push(&env, "OCL_ICD_VENDORS=/v");
	wb_str(&w, "/here");
	wb_u32(&w, 1);
	wb_str(&w, env.v[0]);
	/* No plan after the environment; and a count of variables that are not there. */
	ck_assert_int_eq(workerwire_decode_job(w.p, w.len, &cwd, &got, &jp, &e), -1);
	ck_assert_ptr_null(cwd);
	ck_assert_ptr_null(jp);
	ck_assert_int_eq(workerwire_decode_job(w.p, w.len - 3, &cwd, &got, &jp, &e), -1);
	ck_assert_int_eq(got.n, 0);
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
	suite_add_tcase(s, tc);
	return s;
}
