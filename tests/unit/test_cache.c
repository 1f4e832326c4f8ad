/* The program binary cache (DESIGN §5, runtime/cache.h): key, location, file layout, and
 * that anything but an exact, intact entry is a miss. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nftw */
#endif
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cache.h"
#include "suites.h"

static char tmpdir[] = "/tmp/carsh-cache-test-XXXXXX";

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Every test gets an empty XDG_CACHE_HOME of its own and no CARSH_NO_CACHE. */
static void setup(void)
{
	strcpy(tmpdir, "/tmp/carsh-cache-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_int_eq(setenv("XDG_CACHE_HOME", tmpdir, 1), 0);
	ck_assert_int_eq(unsetenv("CARSH_NO_CACHE"), 0);
}

static void teardown(void)
{
	nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* A binary with every byte value, NULs included. */
static void test_binary(unsigned char *bin, size_t len)
{
	for (size_t i = 0; i < len; i++)
		bin[i] = (unsigned char)(i * 37 + 11);
}

/* The key must be a hit exactly for the same build: byte-identical inputs. */
static void assert_load_equals(const char *dir, const char *key, const unsigned char *want,
                               size_t wlen)
{
	unsigned char *bin = NULL;
	size_t len = 0;

	ck_assert_int_eq(cache_load(dir, key, &bin, &len), 0);
	ck_assert_uint_eq(len, wlen);
	ck_assert_mem_eq(bin, want, wlen);
	free(bin);
}

static void assert_miss(const char *dir, const char *key)
{
	unsigned char *bin = (unsigned char *)"untouched";
	size_t len = 7;

	ck_assert_int_eq(cache_load(dir, key, &bin, &len), 1);
}

START_TEST(test_key_changes_with_each_input)
{
	const char *base[7] = {"OpenCL 3.0 PoCL",
	                       "cpu-x",
	                       "OpenCL 3.0",
	                       "6.0",
	                       "-O2",
	                       "__kernel void k(){}",
	                       "12 00000000000000ab /k/v.h\n"};
	char *k0 = cache_key(base[0], base[1], base[2], base[3], base[4], base[5], base[6]);
	char *same = cache_key(base[0], base[1], base[2], base[3], base[4], base[5], base[6]);

	ck_assert_str_eq(k0, same);
	for (int f = 0; f < 7; f++) {
		const char *v[7];
		char *k;

		memcpy(v, base, sizeof(v));
		v[f] = "changed";
		k = cache_key(v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
		ck_assert_msg(strcmp(k, k0) != 0, "key ignores input %d", f);
		free(k);
	}
	free(k0);
	free(same);
}
END_TEST

/* Moving text from one field to the next is a different build ("-DA" "B" vs "-D" "AB"). */
START_TEST(test_key_keeps_field_boundaries)
{
	char *a = cache_key("p", "d", "v", "r", "-DA", "B", "");
	char *b = cache_key("p", "d", "v", "r", "-D", "AB", "");
	char *c = cache_key("p", "d", "v", "r", "-DA\nsource 1:B", "", "");

	ck_assert_str_ne(a, b);
	ck_assert_str_ne(a, c);
	free(a);
	free(b);
	free(c);
}
END_TEST

START_TEST(test_dir_is_xdg_cache_home_carsh_mode_0700)
{
	char *dir = cache_dir();
	char want[128];
	struct stat st;

	snprintf(want, sizeof(want), "%s/carsh", tmpdir);
	ck_assert_ptr_nonnull(dir);
	ck_assert_str_eq(dir, want);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	free(dir);
}
END_TEST

START_TEST(test_dir_falls_back_to_home_dot_cache)
{
	const char *old = getenv("HOME");
	char *home = old ? strdup(old) : NULL;
	char want[128];
	char *dir;

	ck_assert_int_eq(unsetenv("XDG_CACHE_HOME"), 0);
	ck_assert_int_eq(setenv("HOME", tmpdir, 1), 0);
	dir = cache_dir();
	/* Put HOME back before asserting: without fork, later suites see it. */
	if (home)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	free(home);
	snprintf(want, sizeof(want), "%s/.cache/carsh", tmpdir);
	ck_assert_ptr_nonnull(dir);
	ck_assert_str_eq(dir, want);
	free(dir);
}
END_TEST

START_TEST(test_no_cache_env_disables_the_cache)
{
	ck_assert_int_eq(setenv("CARSH_NO_CACHE", "1", 1), 0);
	ck_assert_ptr_null(cache_dir());
}
END_TEST

/* FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector). */
START_TEST(test_file_name_is_fnv1a_hex_of_key)
{
	char *path = cache_file_for("/d", "a");

	ck_assert_str_eq(path, "/d/af63dc4c8601ec8c.bin");
	free(path);
}
END_TEST

START_TEST(test_store_then_load_returns_the_binary)
{
	char *dir = cache_dir();
	unsigned char bin[1000];
	struct cs_err e;

	test_binary(bin, sizeof(bin));
	ck_assert_int_eq(cache_store(dir, "key one", bin, sizeof(bin), &e), 0);
	assert_load_equals(dir, "key one", bin, sizeof(bin));
	free(dir);
}
END_TEST

/* Layout: magic, key length, key, binary length, binary, FNV-1a of the binary; integers as
 * 8-byte little-endian values. Computed here byte by byte. */
START_TEST(test_file_layout)
{
	static const unsigned char bin[3] = {1, 2, 3};
	char *dir = cache_dir();
	char *path = cache_file_for(dir, "k");
	struct cs_err e;
	size_t len;
	char *f;
	uint64_t sum = 0xcbf29ce484222325ULL;

	ck_assert_int_eq(cache_store(dir, "k", bin, 3, &e), 0);
	f = read_file(path, &len);
	ck_assert_uint_eq(len, 10 + 8 + 1 + 8 + 3 + 8);
	ck_assert_mem_eq(f, "CARSHBIN1\n\1\0\0\0\0\0\0\0k\3\0\0\0\0\0\0\0\1\2\3", 30);
	for (int i = 0; i < 3; i++)
		sum = (sum ^ bin[i]) * 0x100000001b3ULL;
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq((unsigned char)f[30 + i], (sum >> (8 * i)) & 0xff);
	free(f);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_absent_entry_is_a_miss)
{
	char *dir = cache_dir();

	assert_miss(dir, "never stored");
	free(dir);
}
END_TEST

START_TEST(test_second_store_replaces_the_first)
{
	char *dir = cache_dir();
	unsigned char a[10] = "aaaaaaaaa", b[20] = "bbbbbbbbbbbbbbbbbbb";
	struct cs_err e;

	ck_assert_int_eq(cache_store(dir, "k", a, sizeof(a), &e), 0);
	ck_assert_int_eq(cache_store(dir, "k", b, sizeof(b), &e), 0);
	assert_load_equals(dir, "k", b, sizeof(b));
	free(dir);
}
END_TEST

/* Any single flipped byte (magic, lengths, key, binary, checksum) makes the entry a miss. */
START_TEST(test_every_flipped_byte_is_a_miss)
{
	char *dir = cache_dir();
	char *path = cache_file_for(dir, "the key");
	unsigned char bin[64];
	struct cs_err e;
	size_t len;
	char *f;

	test_binary(bin, sizeof(bin));
	ck_assert_int_eq(cache_store(dir, "the key", bin, sizeof(bin), &e), 0);
	f = read_file(path, &len);
	for (size_t i = 0; i < len; i++) {
		f[i] ^= 0x10;
		write_file(path, f, len);
		assert_miss(dir, "the key");
		f[i] ^= 0x10;
	}
	write_file(path, f, len);
	assert_load_equals(dir, "the key", bin, sizeof(bin));
	free(f);
	free(path);
	free(dir);
}
END_TEST

START_TEST(test_truncated_or_extended_file_is_a_miss)
{
	char *dir = cache_dir();
	char *path = cache_file_for(dir, "k");
	unsigned char bin[32];
	struct cs_err e;
	size_t len;
	char *f;

	test_binary(bin, sizeof(bin));
	ck_assert_int_eq(cache_store(dir, "k", bin, sizeof(bin), &e), 0);
	f = read_file(path, &len);
	for (size_t n = 0; n < len; n++) {
		write_file(path, f, n);
		assert_miss(dir, "k");
	}
	f = realloc(f, len + 1);
	f[len] = 0;
	write_file(path, f, len + 1);
	assert_miss(dir, "k");
	free(f);
	free(path);
	free(dir);
}
END_TEST

/* Two keys whose file names collide: the file of one is never taken for the other. */
START_TEST(test_other_key_in_the_file_is_a_miss)
{
	char *dir = cache_dir();
	char *pa = cache_file_for(dir, "key A");
	char *pb = cache_file_for(dir, "key B");
	unsigned char bin[16] = "binary of key A";
	struct cs_err e;

	ck_assert_int_eq(cache_store(dir, "key A", bin, sizeof(bin), &e), 0);
	ck_assert_int_eq(rename(pa, pb), 0);
	assert_miss(dir, "key B");
	free(pa);
	free(pb);
	free(dir);
}
END_TEST

START_TEST(test_store_into_missing_dir_fails_with_message)
{
	struct cs_err e;
	unsigned char bin[1] = {0};

	ck_assert_int_eq(cache_store("/nonexistent/carsh", "k", bin, 1, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/carsh"));
}
END_TEST

/* The temporary file is renamed into place: a store leaves exactly one file. */
START_TEST(test_store_leaves_only_the_entry)
{
	char *dir = cache_dir();
	unsigned char bin[4] = {1, 2, 3, 4};
	struct cs_err e;
	char cmd[256];

	ck_assert_int_eq(cache_store(dir, "k", bin, 4, &e), 0);
	snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s | wc -l)\" -eq 1", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(dir);
}
END_TEST

Suite *suite_cache(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("cache");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_key_changes_with_each_input);
	tcase_add_test(tc, test_key_keeps_field_boundaries);
	tcase_add_test(tc, test_dir_is_xdg_cache_home_carsh_mode_0700);
	tcase_add_test(tc, test_dir_falls_back_to_home_dot_cache);
	tcase_add_test(tc, test_no_cache_env_disables_the_cache);
	tcase_add_test(tc, test_file_name_is_fnv1a_hex_of_key);
	tcase_add_test(tc, test_store_then_load_returns_the_binary);
	tcase_add_test(tc, test_file_layout);
	tcase_add_test(tc, test_absent_entry_is_a_miss);
	tcase_add_test(tc, test_second_store_replaces_the_first);
	tcase_add_test(tc, test_every_flipped_byte_is_a_miss);
	tcase_add_test(tc, test_truncated_or_extended_file_is_a_miss);
	tcase_add_test(tc, test_other_key_in_the_file_is_a_miss);
	tcase_add_test(tc, test_store_into_missing_dir_fails_with_message);
	tcase_add_test(tc, test_store_leaves_only_the_entry);
	suite_add_tcase(s, tc);
	return s;
}
