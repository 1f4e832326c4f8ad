/* exec/hazard: claims in issue order, and the groups of a window of jobs in flight
 * (exec/jobwin.h), whose claims never wait for each other but still for anyone else's. */
#include <check.h>

#include "exec/hazard.h"
#include "suites.h"

static struct claim *claim(struct hazards *hz, const char *shm, bool writes, uint64_t group)
{
	struct claim *c = claim_new(shm);

	claim_use(c, shm, shm, writes);
	claim_set_group(c, group);
	hazard_register(hz, c);
	return c;
}

START_TEST(test_a_writer_waits_for_an_earlier_reader)
{
	struct hazards *hz = hazards_new();
	struct claim *r = claim(hz, "/a", false, 0), *w = claim(hz, "/a", true, 0);
	struct claim *other = claim(hz, "/b", true, 0);

	ck_assert(hazard_ready(hz, r));
	ck_assert(!hazard_ready(hz, w));
	ck_assert(hazard_ready(hz, other));
	hazard_release(hz, r);
	ck_assert(hazard_ready(hz, w));
	hazard_release(hz, w);
	hazard_release(hz, other);
	hazards_free(hz);
}
END_TEST

START_TEST(test_one_group_does_not_wait_for_itself)
{
	struct hazards *hz = hazards_new();
	struct claim *j1 = claim(hz, "/a", true, 5), *j2 = claim(hz, "/a", true, 5);
	struct claim *bg = claim(hz, "/a", false, 0), *j3 = claim(hz, "/a", true, 5);
	struct claim *other = claim(hz, "/a", true, 6);

	ck_assert(hazard_ready(hz, j2));
	/* Someone else's claim between two of the group's still orders them. */
	ck_assert(!hazard_ready(hz, bg));
	ck_assert(!hazard_ready(hz, j3));
	ck_assert(!hazard_ready(hz, other));
	hazard_release(hz, j1);
	hazard_release(hz, j2);
	ck_assert(hazard_ready(hz, bg));
	hazard_release(hz, bg);
	ck_assert(hazard_ready(hz, j3));
	ck_assert(!hazard_ready(hz, other));
	hazard_release(hz, j3);
	ck_assert(hazard_ready(hz, other));
	hazard_release(hz, other);
	hazards_free(hz);
}
END_TEST

/* A window's claim borrows its plan's strings (plan_claim_borrowed): it conflicts, names its
 * user and is relabelled as an owned one, and the caller's strings outlive it untouched. */
START_TEST(test_a_borrowed_claim_orders_as_an_owned_one)
{
	struct hazards *hz = hazards_new();
	char label[] = "fft_step.exe.xml", shm[] = "/a", name[] = "re";
	struct claim *b = claim_new_borrowed(label, 2), *later;
	char who[64];

	claim_use(b, shm, name, true);
	claim_use(b, shm, name, false);
	hazard_register(hz, b);
	later = claim(hz, "/a", false, 0);
	ck_assert(!hazard_ready(hz, later));
	ck_assert(hazard_user(hz, "/a", who, sizeof(who)));
	ck_assert_str_eq(who, "fft_step.exe.xml");
	hazard_relabel(hz, b, "job [1] fft_step.exe.xml");
	ck_assert(hazard_user(hz, "/a", who, sizeof(who)));
	ck_assert_str_eq(who, "job [1] fft_step.exe.xml");
	hazard_release(hz, b);
	ck_assert(hazard_ready(hz, later));
	hazard_release(hz, later);
	ck_assert_str_eq(label, "fft_step.exe.xml");
	ck_assert_str_eq(shm, "/a");
	hazards_free(hz);
}
END_TEST

Suite *suite_hazard(void)
{
	Suite *s = suite_create("hazard");
	TCase *tc = tcase_create("claims");

	tcase_add_test(tc, test_a_writer_waits_for_an_earlier_reader);
	tcase_add_test(tc, test_one_group_does_not_wait_for_itself);
	tcase_add_test(tc, test_a_borrowed_claim_orders_as_an_owned_one);
	suite_add_tcase(s, tc);
	return s;
}
