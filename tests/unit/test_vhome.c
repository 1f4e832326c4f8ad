/* data/vhome: where each virtual buffer's current data is. Every transition the process
 * executor and the host readers and writers make, checked on the state and generation it
 * leaves, and the message a reader of a lost buffer gets. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "data/vhome.h"
#include "suites.h"

static struct vhome_state at(struct vhome *h, const char *shm)
{
	struct vhome_state st;

	vhome_get(h, shm, &st);
	return st;
}

START_TEST(test_unknown_is_in_shared_memory)
{
	struct vhome *h = vhome_new();
	struct cs_err e;

	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert_uint_eq(at(h, "/a").gen, 0);
	ck_assert_uint_eq(at(h, "/a").holder, 0);
	ck_assert_int_eq(vhome_check(h, "/a", "a", &e), 0);
	vhome_free(h);
}
END_TEST

START_TEST(test_a_write_on_a_device_stays_there)
{
	struct vhome *h = vhome_new();

	ck_assert_uint_eq(vhome_device_wrote(h, "/a", 7, "cpu"), 1);
	ck_assert_int_eq(at(h, "/a").where, VHOME_DEVICE);
	ck_assert_uint_eq(at(h, "/a").holder, 7);
	ck_assert_str_eq(at(h, "/a").device, "cpu");
	/* A second write on another worker: a new generation, held there only. */
	ck_assert_uint_eq(vhome_device_wrote(h, "/a", 9, "gpu"), 2);
	ck_assert_uint_eq(at(h, "/a").holder, 9);
	ck_assert_int_eq(at(h, "/a").where, VHOME_DEVICE);
	vhome_free(h);
}
END_TEST

START_TEST(test_write_back_and_reads)
{
	struct vhome *h = vhome_new();

	vhome_device_wrote(h, "/a", 7, "cpu");
	vhome_host_current(h, "/a");
	ck_assert_int_eq(at(h, "/a").where, VHOME_BOTH);
	ck_assert_uint_eq(at(h, "/a").gen, 1);
	/* A read on another worker from shared memory: that worker's copy is the one kept. */
	vhome_device_read(h, "/a", 9, "cpu");
	ck_assert_int_eq(at(h, "/a").where, VHOME_BOTH);
	ck_assert_uint_eq(at(h, "/a").holder, 9);
	ck_assert_uint_eq(at(h, "/a").gen, 1);
	/* A read of a buffer only in shared memory leaves a copy beside it. */
	vhome_device_read(h, "/b", 7, "cpu");
	ck_assert_int_eq(at(h, "/b").where, VHOME_BOTH);
	ck_assert_uint_eq(at(h, "/b").gen, 0);
	/* Write-back of a buffer in shared memory changes nothing. */
	vhome_host_current(h, "/c");
	ck_assert_int_eq(at(h, "/c").where, VHOME_HOST);
	vhome_free(h);
}
END_TEST

START_TEST(test_host_write_makes_device_copies_stale)
{
	struct vhome *h = vhome_new();

	vhome_device_wrote(h, "/a", 7, "cpu");
	vhome_host_wrote(h, "/a");
	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert_uint_eq(at(h, "/a").gen, 2);
	ck_assert_uint_eq(at(h, "/a").holder, 0);
	vhome_free(h);
}
END_TEST

START_TEST(test_a_dead_holder_loses_only_what_only_it_held)
{
	struct vhome *h = vhome_new();
	struct cs_err e;

	vhome_device_wrote(h, "/only", 7, "cpu");
	vhome_device_read(h, "/both", 7, "cpu");
	vhome_device_wrote(h, "/other", 8, "cpu");
	ck_assert_uint_eq(vhome_holder_ended(h, 7, "killed by SIGSEGV (kernel 'k' on cpu)"), 1);
	ck_assert_int_eq(at(h, "/only").where, VHOME_LOST);
	ck_assert_int_eq(at(h, "/both").where, VHOME_HOST);
	ck_assert_int_eq(at(h, "/other").where, VHOME_DEVICE);
	ck_assert_int_eq(vhome_check(h, "/only", "y", &e), -1);
	ck_assert_str_eq(e.msg,
	                 "virtual buffer 'y' was lost: its newest data was on the device of a "
	                 "worker that ended (killed by SIGSEGV (kernel 'k' on cpu)); fill it "
	                 "('virtbuf fill y FILE') or create it again");
	ck_assert_int_eq(vhome_check(h, "/both", "x", &e), 0);
	/* Lost until the host writes it again. */
	vhome_host_wrote(h, "/only");
	ck_assert_int_eq(at(h, "/only").where, VHOME_HOST);
	ck_assert_int_eq(vhome_check(h, "/only", "y", &e), 0);
	vhome_free(h);
}
END_TEST

START_TEST(test_a_failed_job_drops_its_outputs_copy)
{
	struct vhome *h = vhome_new();

	vhome_device_read(h, "/both", 7, "cpu");
	vhome_device_wrote(h, "/only", 7, "cpu");
	vhome_device_failed(h, "/both", 7, "k failed");
	vhome_device_failed(h, "/only", 7, "k failed");
	ck_assert_int_eq(at(h, "/both").where, VHOME_HOST);
	ck_assert_int_eq(at(h, "/only").where, VHOME_LOST);
	ck_assert_str_eq(at(h, "/only").lost,
	                 "a job that failed wrote the only current copy, on a device (k failed)");
	/* Another holder's failure does not touch it. */
	vhome_device_wrote(h, "/x", 7, "cpu");
	vhome_device_failed(h, "/x", 8, "k failed");
	ck_assert_int_eq(at(h, "/x").where, VHOME_DEVICE);
	vhome_free(h);
}
END_TEST

START_TEST(test_on_devices_and_forget)
{
	struct vhome *h = vhome_new();
	char **shms;
	size_t n;

	vhome_device_wrote(h, "/a", 7, "cpu");
	vhome_device_read(h, "/b", 7, "cpu");
	n = vhome_on_devices(h, &shms);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(shms[0], "/a");
	free(shms[0]);
	free(shms);
	vhome_forget(h, "/a");
	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert_uint_eq(at(h, "/a").gen, 0);
	ck_assert_uint_eq(vhome_on_devices(h, &shms), 0);
	vhome_free(h);
}
END_TEST

/* A window (exec/jobwin.h) counts each job as run when it sends it and puts the states back,
 * from the last job sent to the first, when one did not run: the table is as before them,
 * lost buffers counted again (vhome_check's quick path reads that count). */
START_TEST(test_restore_undoes_jobs_counted_as_run)
{
	struct vhome *h = vhome_new();
	struct vhome_state a0, b0, a1, b1;
	struct cs_err e;

	vhome_device_wrote(h, "/a", 7, "cpu");
	vhome_device_wrote(h, "/b", 7, "cpu");
	vhome_holder_ended(h, 7, "killed by SIGKILL");
	vhome_host_wrote(h, "/a");
	ck_assert_int_eq(vhome_check(h, "/b", "b", &e), -1);
	/* Job 1 writes a and reads b? b is lost: job 1 writes a, job 2 writes a and b. */
	a0 = at(h, "/a");
	b0 = at(h, "/b");
	vhome_device_wrote(h, "/a", 8, "");
	a1 = at(h, "/a");
	b1 = at(h, "/b");
	vhome_device_wrote(h, "/a", 8, "");
	vhome_device_wrote(h, "/b", 8, "");
	ck_assert_int_eq(vhome_check(h, "/b", "b", &e), 0);
	ck_assert_uint_eq(at(h, "/a").gen, a0.gen + 2);
	vhome_restore(h, "/b", &b1);
	vhome_restore(h, "/a", &a1);
	vhome_restore(h, "/b", &b0);
	vhome_restore(h, "/a", &a0);
	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert_uint_eq(at(h, "/a").gen, a0.gen);
	ck_assert_int_eq(at(h, "/b").where, VHOME_LOST);
	ck_assert_int_eq(vhome_check(h, "/b", "b", &e), -1);
	ck_assert_str_eq(e.msg,
	                 "virtual buffer 'b' was lost: its newest data was on the device of a "
	                 "worker that ended (killed by SIGKILL); fill it ('virtbuf fill b "
	                 "FILE') or create it again");
	/* A buffer the table did not know is known again as in shared memory. */
	vhome_restore(h, "/new", &(struct vhome_state){.where = VHOME_HOST});
	ck_assert_int_eq(at(h, "/new").where, VHOME_HOST);
	vhome_free(h);
}
END_TEST

/* A value the host filled stays known while shared memory holds it, through reads on devices
 * and a worker's end; any write, on the host or a device, forgets it. */
START_TEST(test_a_filled_value_lasts_until_a_write)
{
	struct vhome *h = vhome_new();
	const float v = 2.5f;
	const unsigned char zeros[4] = {0};

	ck_assert_uint_eq(at(h, "/a").uniform, 0);
	vhome_host_filled(h, "/a", zeros, sizeof(zeros));
	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert_uint_eq(at(h, "/a").gen, 1);
	ck_assert_uint_eq(at(h, "/a").uniform, 4);
	vhome_device_read(h, "/a", 7, "cpu");
	ck_assert_int_eq(at(h, "/a").where, VHOME_BOTH);
	ck_assert_uint_eq(at(h, "/a").uniform, 4);
	vhome_holder_ended(h, 7, "killed by SIGKILL");
	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert_uint_eq(at(h, "/a").uniform, 4);
	vhome_host_filled(h, "/a", &v, sizeof(v));
	ck_assert_uint_eq(at(h, "/a").gen, 2);
	ck_assert_int_eq(memcmp(at(h, "/a").value, &v, sizeof(v)), 0);
	/* A job's write: shared memory is stale, and written back it holds the job's data. */
	vhome_device_wrote(h, "/a", 8, "gpu");
	ck_assert_uint_eq(at(h, "/a").uniform, 0);
	vhome_host_current(h, "/a");
	ck_assert_int_eq(at(h, "/a").where, VHOME_BOTH);
	ck_assert_uint_eq(at(h, "/a").uniform, 0);
	vhome_host_filled(h, "/a", &v, sizeof(v));
	vhome_host_wrote(h, "/a");
	ck_assert_uint_eq(at(h, "/a").uniform, 0);
	ck_assert_uint_eq(at(h, "/a").gen, 5);
	vhome_free(h);
}
END_TEST

/* A value the table alone keeps (a fill between a window's jobs): shared memory counts as
 * not holding it (no fill is skipped for it) and is listed for the host's readers until
 * the value is written there; a job that reads it keeps it so, any write forgets it. */
START_TEST(test_a_value_kept_in_the_table_until_written)
{
	struct vhome *h = vhome_new();
	const int zero = 0, one = 1;
	char **shms;

	vhome_device_wrote(h, "/s", 3, "gpu");
	vhome_host_valued(h, "/s", &zero, sizeof(zero));
	ck_assert_int_eq(at(h, "/s").where, VHOME_HOST);
	ck_assert_uint_eq(at(h, "/s").gen, 2);
	ck_assert(at(h, "/s").value_only);
	ck_assert_uint_eq(at(h, "/s").uniform, sizeof(zero));
	ck_assert(!vhome_holds_value(h, "/s", &zero, sizeof(zero)));
	ck_assert_uint_eq(vhome_on_devices(h, &shms), 1);
	ck_assert_str_eq(shms[0], "/s");
	free(shms[0]);
	free(shms);
	vhome_device_read(h, "/s", 3, "gpu");
	ck_assert_int_eq(at(h, "/s").where, VHOME_BOTH);
	ck_assert(at(h, "/s").value_only);
	vhome_holder_ended(h, 3, "killed by SIGKILL");
	ck_assert_int_eq(at(h, "/s").where, VHOME_HOST);
	ck_assert(at(h, "/s").value_only);
	vhome_host_value_written(h, "/s");
	ck_assert(!at(h, "/s").value_only);
	ck_assert_uint_eq(at(h, "/s").gen, 2);
	ck_assert(vhome_holds_value(h, "/s", &zero, sizeof(zero)));
	ck_assert_uint_eq(vhome_on_devices(h, &shms), 0);
	vhome_host_valued(h, "/s", &one, sizeof(one));
	vhome_device_wrote(h, "/s", 4, "gpu");
	ck_assert(!at(h, "/s").value_only);
	vhome_host_valued(h, "/s", &one, sizeof(one));
	vhome_host_filled(h, "/s", &one, sizeof(one));
	ck_assert(!at(h, "/s").value_only);
	vhome_host_valued(h, "/s", &one, sizeof(one));
	vhome_host_wrote(h, "/s");
	ck_assert(!at(h, "/s").value_only);
	vhome_free(h);
}
END_TEST

START_TEST(test_pictures_bytes_last_until_a_write)
{
	struct vhome *h = vhome_new();
	char **shms;

	vhome_host_pixels(h, "/a", SC_FLOAT);
	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert(at(h, "/a").pixels);
	ck_assert_int_eq(at(h, "/a").scalar, SC_FLOAT);
	ck_assert_uint_eq(at(h, "/a").gen, 1);
	/* Shared memory is stale: the thread executor's start widens it. */
	ck_assert_uint_eq(vhome_on_devices(h, &shms), 1);
	ck_assert_str_eq(shms[0], "/a");
	free(shms[0]);
	free(shms);
	/* A worker widened them on its device; it dies: the bytes are still whole. */
	vhome_device_read(h, "/a", 7, "gpu");
	ck_assert_int_eq(at(h, "/a").where, VHOME_BOTH);
	ck_assert(at(h, "/a").pixels);
	ck_assert_uint_eq(vhome_holder_ended(h, 7, "killed by SIGKILL"), 0);
	ck_assert_int_eq(at(h, "/a").where, VHOME_HOST);
	ck_assert(at(h, "/a").pixels);
	/* The host widened them: the same data, the same generation. */
	vhome_host_widened(h, "/a");
	ck_assert(!at(h, "/a").pixels);
	ck_assert_uint_eq(at(h, "/a").gen, 1);
	ck_assert_uint_eq(vhome_on_devices(h, &shms), 0);
	/* Any write forgets them. */
	vhome_host_pixels(h, "/a", SC_INT);
	vhome_device_wrote(h, "/a", 8, "gpu");
	ck_assert(!at(h, "/a").pixels);
	vhome_host_pixels(h, "/a", SC_INT);
	vhome_host_wrote(h, "/a");
	ck_assert(!at(h, "/a").pixels);
	vhome_host_pixels(h, "/a", SC_INT);
	vhome_host_filled(h, "/a", "\0\0\0\0", 4);
	ck_assert(!at(h, "/a").pixels);
	ck_assert_uint_eq(at(h, "/a").gen, 7);
	vhome_free(h);
}
END_TEST

Suite *suite_vhome(void)
{
	Suite *s = suite_create("vhome");
	TCase *tc = tcase_create("states");

	tcase_add_test(tc, test_unknown_is_in_shared_memory);
	tcase_add_test(tc, test_a_write_on_a_device_stays_there);
	tcase_add_test(tc, test_write_back_and_reads);
	tcase_add_test(tc, test_host_write_makes_device_copies_stale);
	tcase_add_test(tc, test_a_dead_holder_loses_only_what_only_it_held);
	tcase_add_test(tc, test_a_failed_job_drops_its_outputs_copy);
	tcase_add_test(tc, test_on_devices_and_forget);
	tcase_add_test(tc, test_restore_undoes_jobs_counted_as_run);
	tcase_add_test(tc, test_a_filled_value_lasts_until_a_write);
	tcase_add_test(tc, test_pictures_bytes_last_until_a_write);
	tcase_add_test(tc, test_a_value_kept_in_the_table_until_written);
	suite_add_tcase(s, tc);
	return s;
}
