/* A stamp of the process's environment (util/envstamp.h). */
#include <check.h>
#include <stdlib.h>

#include "suites.h"
#include "util/envstamp.h"

/* Each way of changing the environment ends a stamp's sameness; a new stamp is the same
 * until the next change. */
START_TEST(test_every_change_is_seen)
{
	struct env_stamp s = ENV_STAMP_INIT;

	ck_assert(!envstamp_same(&s));
	envstamp_take(&s);
	ck_assert(envstamp_same(&s));
	ck_assert_int_eq(setenv("CARSH_TEST_ENVSTAMP", "1", 1), 0); /* added */
	ck_assert(!envstamp_same(&s));
	envstamp_take(&s);
	ck_assert(envstamp_same(&s));
	ck_assert_int_eq(setenv("CARSH_TEST_ENVSTAMP", "2", 1), 0); /* another value */
	ck_assert(!envstamp_same(&s));
	envstamp_take(&s);
	ck_assert_int_eq(unsetenv("CARSH_TEST_ENVSTAMP"), 0); /* removed */
	ck_assert(!envstamp_same(&s));
	envstamp_take(&s);
	ck_assert(envstamp_same(&s));
	envstamp_free(&s);
	ck_assert(!envstamp_same(&s));
}
END_TEST

Suite *suite_envstamp(void)
{
	Suite *s = suite_create("envstamp");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_every_change_is_seen);
	suite_add_tcase(s, tc);
	return s;
}
