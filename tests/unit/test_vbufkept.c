/* data/vbuf's helpers for what a session keeps beside the table: a kept plan's binding
 * resolved again (vbuf_rebind) and a value the table of homes kept written into a segment
 * (vbuf_fill_pattern). The table unlinks what it made when it is freed. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "data/vbuf.h"
#include "util/alloc.h"
#include "suites.h"

static struct cs_type type_of(enum scalar s)
{
	return (struct cs_type){.scalar = s, .width = 1};
}

START_TEST(test_rebind_follows_a_swap_and_refuses_another_type)
{
	struct vbuf_limits lim = {0, 0};
	struct vbuf_table *t = vbuf_table_new(&lim);
	struct vbuf a, b;
	struct cs_err e;
	char *shm, *kept;

	ck_assert_int_eq(vbuf_create(t, "a", type_of(SC_FLOAT), 8, &e), 0);
	ck_assert_int_eq(vbuf_create(t, "b", type_of(SC_FLOAT), 8, &e), 0);
	ck_assert_int_eq(vbuf_lookup(t, "a", &a, &e), 0);
	ck_assert_int_eq(vbuf_lookup(t, "b", &b, &e), 0);
	shm = xstrdup(a.shm);
	kept = shm;
	ck_assert(vbuf_rebind(t, "a", type_of(SC_FLOAT), 8, &shm));
	ck_assert_ptr_eq(shm, kept); /* the same object: the string is kept */
	ck_assert_int_eq(vbuf_swap(t, "a", "b", &e), 0);
	ck_assert(vbuf_rebind(t, "a", type_of(SC_FLOAT), 8, &shm));
	ck_assert_str_eq(shm, b.shm);
	ck_assert(!vbuf_rebind(t, "a", type_of(SC_INT), 8, &shm));
	ck_assert(!vbuf_rebind(t, "a", type_of(SC_FLOAT), 16, &shm));
	ck_assert(!vbuf_rebind(t, "c", type_of(SC_FLOAT), 8, &shm));
	ck_assert_str_eq(shm, b.shm);
	free(shm);
	vbuf_entry_free(&a);
	vbuf_entry_free(&b);
	vbuf_table_free(t);
}
END_TEST

START_TEST(test_fill_pattern_repeats_the_value_over_the_segment)
{
	struct vbuf_limits lim = {0, 0};
	struct vbuf_table *t = vbuf_table_new(&lim);
	const unsigned char v[4] = {1, 2, 3, 4};
	const unsigned char wide[3] = {9, 9, 9};
	unsigned char *map;
	struct vbuf a;
	struct cs_err e;
	bool all = true;

	ck_assert_int_eq(vbuf_create(t, "a", type_of(SC_INT), 1001, &e), 0);
	ck_assert_int_eq(vbuf_lookup(t, "a", &a, &e), 0);
	ck_assert_int_eq(vbuf_fill_pattern(a.shm, v, sizeof(v), &e), 0);
	map = vbuf_map(a.shm, a.bytes, false, &e);
	ck_assert_ptr_nonnull(map);
	for (size_t i = 0; i < a.bytes; i++)
		all = all && map[i] == v[i % 4];
	vbuf_unmap(map, a.bytes);
	ck_assert(all);
	ck_assert_int_ne(vbuf_fill_pattern(a.shm, wide, sizeof(wide), &e), 0);
	vbuf_entry_free(&a);
	vbuf_table_free(t);
}
END_TEST

Suite *suite_vbufkept(void)
{
	Suite *s = suite_create("vbufkept");
	TCase *tc = tcase_create("kept");

	tcase_add_test(tc, test_rebind_follows_a_swap_and_refuses_another_type);
	tcase_add_test(tc, test_fill_pattern_repeats_the_value_over_the_segment);
	suite_add_tcase(s, tc);
	return s;
}
