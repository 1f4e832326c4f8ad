/* The vendors directory a job of one device type is given (runtime/icdtypes.h). */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/icdtypes.h"
#include "suites.h"
#include "util/alloc.h"
#include "util/strvec.h"

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

struct icdfix {
	char tmp[40];
	char *fake, *vendors, *cache, *carsh;
	char lib[1024]; /* the library pocl.icd names */
};

/* A vendors directory, its own cache, PoCL and the stand-in vendor of tests/shell/icd.sh
 * (no device); false (SKIP printed) where either is missing. */
static bool icdfix_setup(struct icdfix *f)
{
	const char *build = getenv("TOP_BUILDDIR");
	FILE *pocl = fopen("/etc/OpenCL/vendors/pocl.icd", "r");

	memset(f, 0, sizeof(*f));
	f->fake = build ? xasprintf("%s/tests/tools/.libs/fakeicd.so", build) : NULL;
	if (!f->fake || !exists(f->fake) || !pocl || !fgets(f->lib, sizeof(f->lib), pocl)) {
		if (pocl)
			fclose(pocl);
		free(f->fake);
		printf("SKIP: icdtypes: needs /etc/OpenCL/vendors/pocl.icd and the stand-in "
		       "vendor\n");
		return false;
	}
	fclose(pocl);
	f->lib[strcspn(f->lib, "\r\n")] = '\0';
	snprintf(f->tmp, sizeof(f->tmp), "/tmp/carsh-icdtypes-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(f->tmp));
	f->vendors = xasprintf("%s/vendors", f->tmp);
	f->cache = xasprintf("%s/xdg", f->tmp);
	f->carsh = xasprintf("%s/carsh", f->cache);
	ck_assert_int_eq(mkdir(f->vendors, 0700), 0);
	ck_assert_int_eq(mkdir(f->cache, 0700), 0);
	ck_assert_int_eq(mkdir(f->carsh, 0700), 0);
	setenv("OCL_ICD_VENDORS", f->vendors, 1);
	setenv("XDG_CACHE_HOME", f->cache, 1);
	unsetenv("OCL_ICD_FILENAMES");
	unsetenv("CARSH_ICD_BY_TYPE");
	unsetenv("CARSH_NO_CACHE");
	return true;
}

static void icdfix_teardown(struct icdfix *f)
{
	unsetenv("OCL_ICD_VENDORS");
	unsetenv("OCL_ICD_FILENAMES");
	unsetenv("XDG_CACHE_HOME");
	ck_assert_int_eq(nftw(f->tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(f->carsh);
	free(f->cache);
	free(f->vendors);
	free(f->fake);
}

/* The value of NAME in env's "NAME=VALUE" entries, or NULL. */
static const char *value_of(const struct strvec *env, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, len) == 0 && env->v[i][len] == '=')
			return env->v[i] + len + 1;
	return NULL;
}

/* The narrowed directory: ends in a slash, which CUDA's libOpenCL (the Khronos loader before
 * 2020) needs, as it reads DIR + "pocl.icd" with nothing between; holds want (or nothing)
 * and never fake.icd. */
static void check_dir(const struct strvec *env, const char *want)
{
	const char *dir = value_of(env, "OCL_ICD_VENDORS");
	char *joined;

	ck_assert_ptr_nonnull(dir);
	ck_assert_uint_gt(strlen(dir), 1);
	ck_assert_int_eq(dir[strlen(dir) - 1], '/');
	if (want) {
		joined = xasprintf("%s%s", dir, want);
		ck_assert_msg(exists(joined), "%s is missing", joined);
		free(joined);
	}
	joined = xasprintf("%sfake.icd", dir);
	ck_assert_msg(!exists(joined), "%s is there", joined);
	free(joined);
}

/* PoCL (the CPU) beside the stand-in vendor in the vendors directory: a CPU job's directory
 * holds pocl.icd alone; no vendor gives a GPU, so nothing narrows to one. */
START_TEST(test_cpu_directory_ends_in_a_slash)
{
	struct strvec env = STRVEC_INIT;
	struct icdfix f;

	if (!icdfix_setup(&f))
		return;
	write_line(f.vendors, "pocl.icd", f.lib);
	write_line(f.vendors, "fake.icd", f.fake);
	ck_assert(rt_icd_env_for(CL_DEVICE_TYPE_CPU, &env));
	ck_assert_uint_eq(env.n, 1);
	check_dir(&env, "pocl.icd");
	sv_free(&env);
	ck_assert(!rt_icd_env_for(CL_DEVICE_TYPE_GPU, &env));
	ck_assert_uint_eq(env.n, 0);
	icdfix_teardown(&f);
}
END_TEST

/* Vendors named by OCL_ICD_FILENAMES too (the loaders read them besides the directory): the
 * list keeps the libraries that give the type, and goes where none does. */
START_TEST(test_filenames_narrowed)
{
	struct strvec env = STRVEC_INIT;
	struct icdfix f;
	char *both;

	if (!icdfix_setup(&f))
		return;
	write_line(f.vendors, "pocl.icd", f.lib);
	both = xasprintf("%s:%s", f.fake, f.lib);
	setenv("OCL_ICD_FILENAMES", both, 1);
	ck_assert(rt_icd_env_for(CL_DEVICE_TYPE_CPU, &env));
	check_dir(&env, "pocl.icd");
	ck_assert_str_eq(value_of(&env, "OCL_ICD_FILENAMES"), f.lib);
	sv_free(&env);

	setenv("OCL_ICD_FILENAMES", f.fake, 1);
	ck_assert(rt_icd_env_for(CL_DEVICE_TYPE_CPU, &env));
	check_dir(&env, "pocl.icd");
	ck_assert_ptr_null(value_of(&env, "OCL_ICD_FILENAMES"));
	sv_free(&env);
	free(both);
	icdfix_teardown(&f);
}
END_TEST

/* PoCL only in OCL_ICD_FILENAMES, the stand-in only in the directory: an empty directory,
 * and the list with PoCL alone. */
START_TEST(test_filenames_only_giver)
{
	struct strvec env = STRVEC_INIT;
	struct icdfix f;

	if (!icdfix_setup(&f))
		return;
	write_line(f.vendors, "fake.icd", f.fake);
	setenv("OCL_ICD_FILENAMES", f.lib, 1);
	ck_assert(rt_icd_env_for(CL_DEVICE_TYPE_CPU, &env));
	check_dir(&env, NULL);
	ck_assert_str_eq(value_of(&env, "OCL_ICD_FILENAMES"), f.lib);
	ck_assert(rt_icd_loader_var("OCL_ICD_FILENAMES=x"));
	ck_assert(rt_icd_loader_var("OCL_ICD_VENDORS=/v/"));
	ck_assert(!rt_icd_loader_var("OCL_ICD_VENDORSX=/v/"));
	sv_free(&env);
	icdfix_teardown(&f);
}
END_TEST

/* pocl.icd's library under another name, its file's real path (found where Debian puts it),
 * or NULL. */
static char *pocl_real_path(const char *lib)
{
	static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
	                                   "/usr/lib64", "/usr/lib"};
	char real[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *path = xasprintf("%s/%s", dirs[i], lib);
		bool found = realpath(path, real) != NULL;

		free(path);
		if (found && strcmp(real, lib) != 0)
			return xstrdup(real);
	}
	return NULL;
}

/* pocl.icd in the directory and PoCL's library by its file's path in OCL_ICD_FILENAMES: one
 * vendor, which gives the CPU; the stand-in is left out. */
START_TEST(test_two_names_one_vendor)
{
	struct strvec env = STRVEC_INIT;
	struct icdfix f;
	char *real, *list;

	if (!icdfix_setup(&f))
		return;
	real = pocl_real_path(f.lib);
	if (!real) {
		printf("SKIP: icdtypes: %s not found by its path\n", f.lib);
		icdfix_teardown(&f);
		return;
	}
	write_line(f.vendors, "pocl.icd", f.lib);
	list = xasprintf("%s:%s", real, f.fake);
	setenv("OCL_ICD_FILENAMES", list, 1);
	ck_assert(rt_icd_env_for(CL_DEVICE_TYPE_CPU, &env));
	check_dir(&env, "pocl.icd");
	ck_assert_str_eq(value_of(&env, "OCL_ICD_FILENAMES"), real);
	sv_free(&env);
	free(list);
	free(real);
	icdfix_teardown(&f);
}
END_TEST

/* The answer for the CPU, asked three times: worked out, then found unchanged by stat calls
 * (and watched from then on), then unchanged as the kernel tells (runtime/icdkept.h). Each
 * answer the same; true when narrowed, the entries in env. */
static bool cpu_thrice(struct strvec *env)
{
	struct strvec first = STRVEC_INIT, again = STRVEC_INIT;
	bool narrowed = rt_icd_env_for(CL_DEVICE_TYPE_CPU, &first);

	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(rt_icd_env_for(CL_DEVICE_TYPE_CPU, &again), narrowed);
		ck_assert_uint_eq(again.n, first.n);
		for (size_t j = 0; j < first.n; j++)
			ck_assert_str_eq(again.v[j], first.v[j]);
		sv_free(&again);
	}
	sv_copy(env, &first);
	sv_free(&first);
	return narrowed;
}

/* An answer kept from one call to the next is given again only while what it was worked out
 * from holds: a vendor's ICD file removed and put back, an ICD file rewritten to name another
 * library, the narrowed directory removed, each change the answer of the very next call,
 * whether the kept answer was checked by stat calls or watched. */
START_TEST(test_kept_while_unchanged)
{
	struct strvec env = STRVEC_INIT;
	struct icdfix f;
	char *fake_icd, *dir;

	if (!icdfix_setup(&f))
		return;
	fake_icd = xasprintf("%s/fake.icd", f.vendors);
	write_line(f.vendors, "pocl.icd", f.lib);
	write_line(f.vendors, "fake.icd", f.fake);
	ck_assert(cpu_thrice(&env));
	check_dir(&env, "pocl.icd");
	sv_free(&env);

	/* PoCL alone: nothing to leave out. */
	ck_assert_int_eq(unlink(fake_icd), 0);
	ck_assert(!cpu_thrice(&env));
	ck_assert_uint_eq(env.n, 0);
	write_line(f.vendors, "fake.icd", f.fake);
	ck_assert(cpu_thrice(&env));
	check_dir(&env, "pocl.icd");

	/* The narrowed directory gone (a cleared cache): made again. */
	dir = xstrdup(value_of(&env, "OCL_ICD_VENDORS"));
	ck_assert_int_eq(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	sv_free(&env);
	ck_assert(cpu_thrice(&env));
	check_dir(&env, "pocl.icd");
	ck_assert_str_eq(value_of(&env, "OCL_ICD_VENDORS"), dir);
	sv_free(&env);

	/* pocl.icd now names the stand-in: no vendor gives the CPU. */
	write_line(f.vendors, "pocl.icd", f.fake);
	ck_assert(!rt_icd_env_for(CL_DEVICE_TYPE_CPU, &env));
	ck_assert_uint_eq(env.n, 0);
	free(dir);
	free(fake_icd);
	icdfix_teardown(&f);
}
END_TEST

Suite *suite_icdtypes(void)
{
	Suite *s = suite_create("icdtypes");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cpu_directory_ends_in_a_slash);
	tcase_add_test(tc, test_filenames_narrowed);
	tcase_add_test(tc, test_filenames_only_giver);
	tcase_add_test(tc, test_two_names_one_vendor);
	tcase_add_test(tc, test_kept_while_unchanged);
	suite_add_tcase(s, tc);
	return s;
}
