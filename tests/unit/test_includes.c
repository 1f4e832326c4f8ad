/* The include files of a kernel (runtime/includes.h) and the build options' folders
 * (model/buildopts.h): what is followed, where it is looked for, what the digest says. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/buildopts.h"
#include "runtime/includes.h"
#include "suites.h"
#include "util/alloc.h"

static char dir[] = "/tmp/carsh-includes-test-XXXXXX";
static char cwd[4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A folder of its own, which is also the working directory. */
static void setup(void)
{
	strcpy(dir, "/tmp/carsh-includes-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(dir), 0);
}

static void teardown(void)
{
	ck_assert_int_eq(chdir(cwd), 0);
	nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel);
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	free(path);
}

static bool has_path(const struct rt_includes *inc, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);
	bool found = false;

	for (size_t i = 0; i < inc->npaths; i++)
		found = found || strcmp(inc->paths[i], path) == 0;
	free(path);
	return found;
}

START_TEST(test_source_without_includes_has_an_empty_digest)
{
	struct rt_includes inc;

	rt_includes_scan("__kernel void k() {}", "", &inc);
	ck_assert_str_eq(inc.digest, "");
	ck_assert_uint_eq(inc.npaths, 0);
	ck_assert(rt_includes_known(inc.digest));
	ck_assert(rt_includes_unchanged(inc.digest));
	rt_includes_free(&inc);
}
END_TEST

/* "a.h" in the working directory, which includes "b.h" from the -I folder sub; every place
 * looked at is listed, the files found are in the digest with size and path. */
START_TEST(test_nested_includes_through_an_I_folder)
{
	struct rt_includes inc;
	char *opts;

	ck_assert_int_eq(mkdir("sub", 0700), 0);
	write_file("a.h", "#include \"b.h\"\n");
	write_file("sub/b.h", "#define B 1\n");
	opts = xasprintf("-cl-mad-enable -I %s/sub", dir);
	rt_includes_scan("  #  include \"a.h\" // comment\nkernel", opts, &inc);
	ck_assert_msg(strstr(inc.digest, "/a.h\n") && strstr(inc.digest, "/sub/b.h\n"), "%s",
	              inc.digest);
	ck_assert(strncmp(inc.digest, "15 ", 3) == 0); /* a.h's size first */
	ck_assert(has_path(&inc, "a.h"));
	ck_assert(has_path(&inc, "sub/a.h")); /* looked for, absent */
	ck_assert(has_path(&inc, "b.h"));     /* the includer's folder and the working one */
	ck_assert(has_path(&inc, "sub/b.h"));
	ck_assert(rt_includes_unchanged(inc.digest));
	write_file("sub/b.h", "#define B 2\n"); /* the same size, other contents */
	ck_assert(!rt_includes_unchanged(inc.digest));
	rt_includes_free(&inc);
	free(opts);
}
END_TEST

START_TEST(test_a_header_in_two_folders_counts_twice)
{
	struct rt_includes inc;
	char *opts;

	ck_assert_int_eq(mkdir("sub", 0700), 0);
	write_file("v.h", "#define V 1\n");
	write_file("sub/v.h", "#define V 2\n");
	opts = xasprintf("-I%s/sub", dir);
	rt_includes_scan("#include <v.h>\n", opts, &inc);
	ck_assert_msg(strstr(inc.digest, "/sub/v.h\n") && strstr(inc.digest, "/v.h\n") &&
	                      strchr(inc.digest, '\n') != strrchr(inc.digest, '\n'),
	              "%s", inc.digest);
	rt_includes_free(&inc);
	free(opts);
}
END_TEST

START_TEST(test_macro_include_is_unknown)
{
	struct rt_includes inc;

	rt_includes_scan("#define H \"v.h\"\n#include H\n", "", &inc);
	ck_assert_msg(strncmp(inc.digest, "unknown (#include H)", 20) == 0, "%s", inc.digest);
	ck_assert(!rt_includes_known(inc.digest));
	ck_assert(!rt_includes_unchanged(inc.digest));
	rt_includes_free(&inc);
}
END_TEST

START_TEST(test_a_header_including_itself_ends)
{
	struct rt_includes inc;

	write_file("self.h", "#include \"self.h\"\n");
	rt_includes_scan("#include \"self.h\"\n", "", &inc);
	ck_assert(rt_includes_known(inc.digest));
	ck_assert_msg(strstr(inc.digest, "/self.h\n") &&
	                      strchr(inc.digest, '\n') == inc.digest + strlen(inc.digest) - 1,
	              "one line: %s", inc.digest);
	rt_includes_free(&inc);
}
END_TEST

START_TEST(test_options_take_folders_from_the_kernel)
{
	struct cs_err e = {0};
	char *out, *want;

	ck_assert_int_eq(buildopts_resolve("-DA=1  -I inc -Ilib -I/abs", "/k", "kernel", &out, &e),
	                 0);
	ck_assert_str_eq(out, "-DA=1 -I/k/inc -I/k/lib -I/abs");
	free(out);
	ck_assert_int_eq(buildopts_resolve("", "/k", "#include \"x.h\"\n", &out, &e), 0);
	ck_assert_str_eq(out, "-I/k");
	free(out);
	/* <x.h> does not look in the includer's folder: no -I for it. */
	ck_assert_int_eq(buildopts_resolve("", "/k", "#include <x.h>\n", &out, &e), 0);
	ck_assert_str_eq(out, "");
	free(out);
	/* A relative kernel folder is taken from the working directory. */
	ck_assert_int_eq(buildopts_resolve("-I.", "rel", "#include \"x.h\"", &out, &e), 0);
	want = xasprintf("-I%s/rel -I%s/rel/.", dir, dir);
	ck_assert_str_eq(out, want);
	free(want);
	free(out);
}
END_TEST

START_TEST(test_folder_with_white_space_is_refused)
{
	struct cs_err e = {0};
	char *out = (char *)"untouched";

	ck_assert_int_eq(buildopts_resolve("", "/my k", "#include \"x.h\"\n", &out, &e), -1);
	ck_assert_ptr_null(out);
	ck_assert_str_eq(e.msg, "#include \"...\": the folder '/my k' holds white space, which "
	                        "OpenCL build options cannot carry; move the kernel's files to a "
	                        "folder without it");
	ck_assert_int_eq(buildopts_resolve("-I a", "/my k", "kernel", &out, &e), -1);
	ck_assert_str_eq(e.msg, "-Ia: the folder '/my k/a' holds white space, which OpenCL "
	                        "build options cannot carry; move the kernel's files to a folder "
	                        "without it");
	/* Nothing to name: the folder does not matter. */
	ck_assert_int_eq(buildopts_resolve("-O2", "/my k", "kernel", &out, &e), 0);
	ck_assert_str_eq(out, "-O2");
	free(out);
}
END_TEST

Suite *suite_includes(void)
{
	Suite *s = suite_create("includes");
	TCase *tc = tcase_create("includes");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_source_without_includes_has_an_empty_digest);
	tcase_add_test(tc, test_nested_includes_through_an_I_folder);
	tcase_add_test(tc, test_a_header_in_two_folders_counts_twice);
	tcase_add_test(tc, test_macro_include_is_unknown);
	tcase_add_test(tc, test_a_header_including_itself_ends);
	tcase_add_test(tc, test_options_take_folders_from_the_kernel);
	tcase_add_test(tc, test_folder_with_white_space_is_refused);
	suite_add_tcase(s, tc);
	return s;
}
