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

Suite *suite_hazard(void)
{
	Suite *s = suite_create("hazard");
	TCase *tc = tcase_create("claims");

	tcase_add_test(tc, test_a_writer_waits_for_an_earlier_reader);
	tcase_add_test(tc, test_one_group_does_not_wait_for_itself);
	suite_add_tcase(s, tc);
	return s;
}
