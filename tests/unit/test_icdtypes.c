/* The vendors directory a job of one device type is given (runtime/icdtypes.h). */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/icdtypes.h"
#include "suites.h"
#include "util/alloc.h"

static void write_line(const char *dir, const char *name, const char *line)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(line, f);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* PoCL (the CPU) beside the stand-in vendor of tests/shell/icd.sh (no device): a CPU job's
 * directory holds pocl.icd alone, and its path ends in a slash, which CUDA's libOpenCL (the
 * Khronos loader before 2020) needs: it reads DIR + "pocl.icd" with nothing between. */
START_TEST(test_cpu_directory_ends_in_a_slash)
{
	const char *build = getenv("TOP_BUILDDIR");
	char *fake = build ? xasprintf("%s/tests/tools/.libs/fakeicd.so", build) : NULL;
	char tmp[] = "/tmp/carsh-icdtypes-XXXXXX";
	char *vendors, *cache, *carsh, *dir, *joined;
	FILE *pocl = fopen("/etc/OpenCL/vendors/pocl.icd", "r");
	char lib[1024] = "";

	if (!fake || !exists(fake) || !pocl || !fgets(lib, sizeof(lib), pocl)) {
		if (pocl)
			fclose(pocl);
		free(fake);
		printf("SKIP: icdtypes: needs /etc/OpenCL/vendors/pocl.icd and the stand-in "
		       "vendor\n");
		return;
	}
	fclose(pocl);
	ck_assert_ptr_nonnull(mkdtemp(tmp));
	vendors = xasprintf("%s/vendors", tmp);
	cache = xasprintf("%s/xdg", tmp);
	carsh = xasprintf("%s/carsh", cache);
	ck_assert_int_eq(mkdir(vendors, 0700), 0);
	ck_assert_int_eq(mkdir(cache, 0700), 0);
	ck_assert_int_eq(mkdir(carsh, 0700), 0);
	write_line(vendors, "pocl.icd", lib);
	write_line(vendors, "fake.icd", fake);
	setenv("OCL_ICD_VENDORS", vendors, 1);
	setenv("XDG_CACHE_HOME", cache, 1);
	unsetenv("OCL_ICD_FILENAMES");
	unsetenv("CARSH_ICD_BY_TYPE");
	unsetenv("CARSH_NO_CACHE");

	dir = rt_icd_vendors_for(CL_DEVICE_TYPE_CPU);
	ck_assert_ptr_nonnull(dir);
	ck_assert_uint_gt(strlen(dir), 1);
	ck_assert_int_eq(dir[strlen(dir) - 1], '/');
	joined = xasprintf("%spocl.icd", dir);
	ck_assert_msg(exists(joined), "%s is missing", joined);
	free(joined);
	joined = xasprintf("%sfake.icd", dir);
	ck_assert_msg(!exists(joined), "%s is there", joined);
	free(joined);
	/* No vendor gives a GPU here: nothing to narrow to. */
	ck_assert_ptr_null(rt_icd_vendors_for(CL_DEVICE_TYPE_GPU));

	unsetenv("OCL_ICD_VENDORS");
	unsetenv("XDG_CACHE_HOME");
	ck_assert_int_eq(nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(dir);
	free(carsh);
	free(cache);
	free(vendors);
	free(fake);
}
END_TEST

Suite *suite_icdtypes(void)
{
	Suite *s = suite_create("icdtypes");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cpu_directory_ends_in_a_slash);
	suite_add_tcase(s, tc);
	return s;
}
