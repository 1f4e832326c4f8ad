/* The unit tests' scratch directory (scratch.h). */
#include "scratch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

char scratch[64];

void scratch_create(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/carsh-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

/* Remove dir and what the tests left in it; a directory a test made unreadable is opened
 * up first. */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	char path[512];
	struct stat st;

	if (!d)
		return;
	while ((ent = readdir(d))) {
		if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			chmod(path, 0700);
			remove_tree(path);
		} else {
			unlink(path);
		}
	}
	closedir(d);
	rmdir(dir);
}

void scratch_remove(void)
{
	remove_tree(scratch);
}

const char *at(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, 512, "%s/%s", scratch, name);
	return p;
}

void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

int entries_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((ent = readdir(d)))
		n += strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0;
	closedir(d);
	return n;
}
