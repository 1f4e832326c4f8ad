/* util/filewatch and the file cache's use of it: every way of changing a watched file counts,
 * what cannot be watched is refused, a fork keeps parent and child apart; the file cache
 * reads an edited file at the next command whether told by stat or by the watch. The files
 * live in a directory under /dev/shm (tmpfs, which the watch trusts) where there is one, so
 * that the watched case runs on any build machine. */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/filecache.h"
#include "suites.h"
#include "util/filewatch.h"

/* The suite's directory, made and removed by the runner process (an unchecked fixture), so
 * that a test that fails in its forked process leaves nothing behind; each test works in a
 * directory of its own inside it. */
static char base[64], dir[96];

static void make_base(void)
{
	struct stat st;
	const char *top = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";

	snprintf(base, sizeof(base), "%s/carsh-fw-XXXXXX", top);
	if (!mkdtemp(base))
		base[0] = '\0';
}

static void remove_base(void)
{
	char cmd[128];

	if (base[0] == '\0')
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", base);
}

static void make_dir(void)
{
	ck_assert_msg(base[0] != '\0', "no directory for the tests");
	snprintf(dir, sizeof(dir), "%s/t-XXXXXX", base);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chdir(dir), 0);
}

static void remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* Same size, same mtime afterwards: only a watch can tell. */
static void overwrite_keeping_mtime(const char *path, const char *text)
{
	struct stat st;
	struct timespec times[2];
	int fd;

	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq((size_t)st.st_size, strlen(text));
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	times[0] = st.st_atim;
	times[1] = st.st_mtim;
	ck_assert_int_eq(futimens(fd, times), 0);
	ck_assert_int_eq(close(fd), 0);
}

START_TEST(test_each_kind_of_change_counts)
{
	unsigned long c;

	make_dir();
	ck_assert_int_eq(mkdir("d", 0700), 0);
	write_file("d/f.xml", "<A/>");
	ck_assert(filewatch_add("d/f.xml"));
	c = filewatch_changes();
	ck_assert_uint_eq(filewatch_changes(), c); /* nothing happened */

	write_file("d/f.xml", "<B/>"); /* rewritten in place */
	ck_assert_uint_gt(filewatch_changes(), c);
	c = filewatch_changes();

	write_file("d/new.xml", "<C/>"); /* a file renamed over it */
	ck_assert_int_eq(rename("d/new.xml", "d/f.xml"), 0);
	ck_assert_uint_gt(filewatch_changes(), c);
	ck_assert(filewatch_add("d/f.xml"));
	c = filewatch_changes();

	ck_assert_int_eq(rename("d", "d.old"), 0); /* a directory on the way moved away */
	ck_assert_uint_gt(filewatch_changes(), c);
	remove_dir();
}
END_TEST

START_TEST(test_links_and_untrusted_file_systems_are_refused)
{
	make_dir();
	ck_assert_int_eq(mkdir("real", 0700), 0);
	write_file("real/f.xml", "<A/>");
	ck_assert_int_eq(symlink("real", "link"), 0);
	ck_assert_int_eq(symlink("real/f.xml", "flink.xml"), 0);
	ck_assert(!filewatch_add("link/f.xml"));
	ck_assert(!filewatch_add("flink.xml"));
	ck_assert(!filewatch_add("real/absent.xml"));
	ck_assert(!filewatch_add("link/"));
	ck_assert(!filewatch_add("real/f.xml/"));
	ck_assert(!filewatch_add("/proc/version")); /* procfs: changes without notices */
	ck_assert(filewatch_add("real/f.xml"));
	remove_dir();
}
END_TEST

/* A path ending in "/" watches the directory's entries: one created, renamed or removed
 * there counts. */
START_TEST(test_a_directory_s_entries_count)
{
	unsigned long c;

	make_dir();
	ck_assert_int_eq(mkdir("v", 0700), 0);
	ck_assert(filewatch_add("v/"));
	c = filewatch_changes();
	write_file("v/a.icd", "x");
	ck_assert_uint_gt(filewatch_changes(), c);
	c = filewatch_changes();
	ck_assert_int_eq(rename("v/a.icd", "v/b.icd"), 0);
	ck_assert_uint_gt(filewatch_changes(), c);
	c = filewatch_changes();
	ck_assert_int_eq(unlink("v/b.icd"), 0);
	ck_assert_uint_gt(filewatch_changes(), c);
	remove_dir();
}
END_TEST

START_TEST(test_a_child_does_not_take_its_parents_notices)
{
	unsigned long c, epoch = filewatch_epoch();
	pid_t pid;
	int status;

	make_dir();
	write_file("f.xml", "<A/>");
	ck_assert(filewatch_add("f.xml"));
	c = filewatch_changes();
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		bool ok;

		(void)filewatch_changes();
		/* The child's epoch moves on: its parent's watches are not its own. */
		ok = filewatch_epoch() != epoch;
		write_file("f.xml", "<B/>");
		(void)filewatch_changes();
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_gt(filewatch_changes(), c);
	ck_assert_uint_eq(filewatch_epoch(), epoch);
	remove_dir();
}
END_TEST

static const char *root_of(const char *path)
{
	struct cs_err e;
	const char *r;

	filecache_new_generation();
	r = filecache_root(path, &e);
	ck_assert_msg(r != NULL, "%s", e.msg);
	return r;
}

/* Three commands see the file unchanged (the third through the watch made at the second),
 * then each edit is seen by the next command. */
START_TEST(test_the_cache_reads_an_edited_file_at_the_next_command)
{
	make_dir();
	ck_assert_int_eq(mkdir("d", 0700), 0);
	write_file("d/f.xml", "<Aaa/>");
	ck_assert_str_eq(root_of("d/f.xml"), "Aaa");
	ck_assert_str_eq(root_of("d/f.xml"), "Aaa");
	ck_assert_str_eq(root_of("d/f.xml"), "Aaa");

	overwrite_keeping_mtime("d/f.xml", "<Bbb/>");
	ck_assert_str_eq(root_of("d/f.xml"), "Bbb");
	ck_assert_str_eq(root_of("d/f.xml"), "Bbb");

	write_file("d/n.xml", "<Ccc/>");
	ck_assert_int_eq(rename("d/n.xml", "d/f.xml"), 0);
	ck_assert_str_eq(root_of("d/f.xml"), "Ccc");
	ck_assert_str_eq(root_of("d/f.xml"), "Ccc");

	ck_assert_int_eq(rename("d", "old"), 0);
	ck_assert_int_eq(mkdir("d", 0700), 0);
	write_file("d/f.xml", "<Ddd/>");
	ck_assert_str_eq(root_of("d/f.xml"), "Ddd");
	filecache_clear();
	remove_dir();
}
END_TEST

/* A path through a link is not watched, and stat still catches an edit behind it. */
START_TEST(test_the_cache_checks_a_linked_path_by_stat)
{
	make_dir();
	ck_assert_int_eq(mkdir("real", 0700), 0);
	ck_assert_int_eq(symlink("real", "link"), 0);
	write_file("real/f.xml", "<Aaa/>");
	ck_assert_str_eq(root_of("link/f.xml"), "Aaa");
	ck_assert_str_eq(root_of("link/f.xml"), "Aaa");
	write_file("real/f.xml", "<Bbbb/>");
	ck_assert_str_eq(root_of("link/f.xml"), "Bbbb");
	filecache_clear();
	remove_dir();
}
END_TEST

Suite *suite_filewatch(void)
{
	Suite *s = suite_create("filewatch");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, make_base, remove_base);

	tcase_add_test(tc, test_each_kind_of_change_counts);
	tcase_add_test(tc, test_links_and_untrusted_file_systems_are_refused);
	tcase_add_test(tc, test_a_directory_s_entries_count);
	tcase_add_test(tc, test_a_child_does_not_take_its_parents_notices);
	tcase_add_test(tc, test_the_cache_reads_an_edited_file_at_the_next_command);
	tcase_add_test(tc, test_the_cache_checks_a_linked_path_by_stat);
	suite_add_tcase(s, tc);
	return s;
}
