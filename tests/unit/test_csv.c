/* Numeric CSV files: reading, writing, errors, atomic replacement. */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/csvio.h"
#include "scratch.h"
#include "suites.h"

static void write_text(const char *path, const char *text)
{
	write_bytes(path, text, strlen(text));
}

/* The whole file as a string; free() it. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 1 << 20);
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(s, 1, (1 << 20) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

static void assert_file_is(const char *path, const char *want)
{
	char *got = slurp(path);

	ck_assert_str_eq(got, want);
	free(got);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* n random values of s, with all-ones, zero, the sign bit alone and the largest signed
 * value first; NaNs (which have no single text) replaced. */
static unsigned char *random_values(enum scalar s, size_t n)
{
	size_t size = scalar_size(s);
	unsigned char *v = malloc(n * size);

	for (size_t i = 0; i < n * size; i++)
		v[i] = (unsigned char)rng_next();
	memset(v, 0xff, size);
	memset(v + size, 0, size);
	memset(v + 2 * size, 0, size);
	v[3 * size - 1] = 0x80;
	memset(v + 3 * size, 0xff, size);
	v[4 * size - 1] = 0x7f;
	for (size_t i = 0; i < n && s == SC_FLOAT; i++) {
		float f;

		memcpy(&f, v + i * size, sizeof(f));
		f = isnan(f) ? (float)i / 7 : f;
		memcpy(v + i * size, &f, sizeof(f));
	}
	for (size_t i = 0; i < n && s == SC_DOUBLE; i++) {
		double d;

		memcpy(&d, v + i * size, sizeof(d));
		d = isnan(d) ? (double)i / 7 : d;
		memcpy(v + i * size, &d, sizeof(d));
	}
	return v;
}

START_TEST(test_csv_round_trip_every_type)
{
	enum scalar s = (enum scalar)_i;
	size_t n = 1000, size = scalar_size(s);
	unsigned char *v = random_values(s, n);
	unsigned char *back = malloc(n * size);
	struct cs_err e = {""};
	void *all;
	size_t count;

	ck_assert_msg(csvio_write(at("x.csv"), s, v, n, 7, &e) == 0, "%s", e.msg);
	ck_assert_msg(csvio_read(at("x.csv"), s, back, n, &e) == 0, "%s", e.msg);
	ck_assert_mem_eq(back, v, n * size);
	ck_assert_int_eq(csvio_read_all(at("x.csv"), s, &all, &count, &e), 0);
	ck_assert_uint_eq(count, n);
	ck_assert_mem_eq(all, v, n * size);
	free(all);
	free(back);
	free(v);
}
END_TEST

START_TEST(test_csv_reads_rows_of_any_length)
{
	int v[8];
	struct cs_err e = {""};

	write_text(at("x.csv"), "1,2,3\n4\n\n5, 6\r\n\"7\"\n  \n8");
	ck_assert_msg(csvio_read(at("x.csv"), SC_INT, v, 8, &e) == 0, "%s", e.msg);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(v[i], i + 1);
}
END_TEST

START_TEST(test_csv_read_all_grows_its_array)
{
	FILE *f = fopen(at("big.csv"), "w");
	struct cs_err e = {""};
	void *all;
	double *d;
	size_t n;

	/* 10000 values as 2500 rows of 1, 2, 3 and 4 values. */
	for (int i = 0, row = 0; i < 10000; row++) {
		for (int k = 0; k <= row % 4 && i < 10000; k++, i++)
			fprintf(f, k ? ",%d.5" : "%d.5", i);
		fputc('\n', f);
	}
	fclose(f);
	ck_assert_msg(csvio_read_all(at("big.csv"), SC_DOUBLE, &all, &n, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(n, 10000);
	d = all;
	for (int i = 0; i < 10000; i++)
		ck_assert_double_eq(d[i], i + 0.5);
	free(all);

	write_text(at("empty.csv"), "\n\n");
	ck_assert_int_eq(csvio_read_all(at("empty.csv"), SC_DOUBLE, &all, &n, &e), 0);
	ck_assert_uint_eq(n, 0);
	free(all);
}
END_TEST

START_TEST(test_csv_write_puts_columns_values_per_row)
{
	const int ints[7] = {1, 2, 3, 4, 5, -6, 7};
	const float floats[5] = {0.1f, 0.5f, 1e10f, -0.0f, 1.0f / 3.0f};
	const unsigned char bytes[2] = {255, 0};
	struct cs_err e;

	ck_assert_int_eq(csvio_write(at("a.csv"), SC_INT, ints, 7, 3, &e), 0);
	assert_file_is(at("a.csv"), "1,2,3\n4,5,-6\n7\n");
	ck_assert_int_eq(csvio_write(at("a.csv"), SC_INT, ints, 3, 0, &e), 0);
	assert_file_is(at("a.csv"), "1\n2\n3\n");
	ck_assert_int_eq(csvio_write(at("a.csv"), SC_INT, ints, 6, 3, &e), 0);
	assert_file_is(at("a.csv"), "1,2,3\n4,5,-6\n");
	ck_assert_int_eq(csvio_write(at("b.csv"), SC_FLOAT, floats, 5, 5, &e), 0);
	assert_file_is(at("b.csv"), "0.1,0.5,10000000000,-0,0.33333334\n");
	ck_assert_int_eq(csvio_write(at("c.csv"), SC_UCHAR, bytes, 2, 16, &e), 0);
	assert_file_is(at("c.csv"), "255,0\n");
	ck_assert_int_eq(csvio_write(at("d.csv"), SC_UCHAR, bytes, 0, 16, &e), 0);
	assert_file_is(at("d.csv"), "");
	ck_assert_int_eq(entries_in(scratch), 4);
}
END_TEST

/* The message for reading content as n values of s. */
static const char *read_error(const char *content, enum scalar s, size_t n, struct cs_err *e)
{
	unsigned char buf[1024];

	write_text(at("x.csv"), content);
	ck_assert_int_eq(csvio_read(at("x.csv"), s, buf, n, e), -1);
	return e->msg;
}

static void assert_error(const char *got, const char *path, const char *rest)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s%s", path, rest);
	ck_assert_str_eq(got, want);
}

START_TEST(test_csv_bad_value_names_line_and_field)
{
	struct cs_err e;

	assert_error(read_error("1,2,3\n\n1,2,3,4,5,6,abc\n", SC_FLOAT, 10, &e), at("x.csv"),
	             ":3:7: 'abc' is not a number");
	assert_error(read_error("1\n2.5\n", SC_INT, 2, &e), at("x.csv"),
	             ":2:1: '2.5' is not an integer");
	assert_error(read_error("0,256\n", SC_UCHAR, 2, &e), at("x.csv"),
	             ":1:2: '256' is out of range for uchar");
	assert_error(read_error("1\n\n\n4,x", SC_INT, 3, &e), at("x.csv"),
	             ":4:2: 'x' is not a number");
}
END_TEST

START_TEST(test_csv_empty_field_is_an_error)
{
	struct cs_err e;

	assert_error(read_error("1,2\n1,,2\n", SC_INT, 4, &e), at("x.csv"),
	             ":2:2: empty value: values are separated by one ',' or blanks");
	assert_error(read_error("1,2,\n", SC_INT, 3, &e), at("x.csv"),
	             ":1:3: empty value: values are separated by one ',' or blanks");
	assert_error(read_error("1\n\"\"\n", SC_INT, 2, &e), at("x.csv"),
	             ":2:1: empty value: values are separated by one ',' or blanks");
	assert_error(read_error(",\n", SC_INT, 2, &e), at("x.csv"),
	             ":1:1: empty value: values are separated by one ',' or blanks");
	/* a ',' at the end of a full line is said so, not counted as one value too many */
	assert_error(read_error("1,2,3,\n", SC_INT, 3, &e), at("x.csv"),
	             ":1:4: empty value: values are separated by one ',' or blanks");
}
END_TEST

START_TEST(test_csv_wrong_count_says_found_and_expected)
{
	struct cs_err e;

	assert_error(read_error("1,2,3\n4,5\n", SC_INT, 8, &e), at("x.csv"),
	             ": 5 values, expected 8");
	assert_error(read_error("1,2,3,4,5\n6,7,8,9,10\n", SC_INT, 8, &e), at("x.csv"),
	             ": 10 values, expected 8");
	assert_error(read_error("1\n", SC_INT, 2, &e), at("x.csv"), ": 1 value, expected 2");
	assert_error(read_error("", SC_INT, 1, &e), at("x.csv"), ": 0 values, expected 1");
}
END_TEST

START_TEST(test_csv_malformed_quotes_are_reported)
{
	struct cs_err e;

	assert_error(read_error("1\"2\n", SC_INT, 1, &e), at("x.csv"),
	             ":1: error parsing data while strict checking enabled");
	assert_error(read_error("1\n2,\"3\n4\n", SC_INT, 3, &e), at("x.csv"),
	             ":3: error parsing data while strict checking enabled");
}
END_TEST

START_TEST(test_csv_nul_byte_is_not_hidden)
{
	int v[3];
	struct cs_err e;

	write_bytes(at("x.csv"), "1,2\0x,3\n", 8);
	ck_assert_int_eq(csvio_read(at("x.csv"), SC_INT, v, 3, &e), -1);
	assert_error(e.msg, at("x.csv"), ":1:2: field holds a NUL byte: not a number");
}
END_TEST

START_TEST(test_csv_missing_file_and_directory)
{
	int v[1];
	struct cs_err e;

	ck_assert_int_eq(csvio_read(at("none.csv"), SC_INT, v, 1, &e), -1);
	assert_error(e.msg, at("none.csv"), ": No such file or directory");
	ck_assert_int_eq(csvio_read(scratch, SC_INT, v, 1, &e), -1);
	assert_error(e.msg, scratch, ": Is a directory");
}
END_TEST

START_TEST(test_csv_read_stream_uses_the_given_name)
{
	char text[] = "1,2\nq\n";
	FILE *f = fmemopen(text, strlen(text), "r");
	short v[3];
	struct cs_err e;

	ck_assert_int_eq(csvio_read_stream(f, "mem", SC_SHORT, v, 3, &e), -1);
	ck_assert_str_eq(e.msg, "mem:2:1: 'q' is not a number");
	fclose(f);
}
END_TEST

/* Runs with fd (0 or 1) redirected to path, then puts it back. */
static int redirect(int fd, const char *path, int flags)
{
	int saved = dup(fd);
	int to = open(path, flags, 0666);

	ck_assert_int_ge(to, 0);
	ck_assert_int_eq(dup2(to, fd), fd);
	close(to);
	return saved;
}

static void restore(int fd, int saved)
{
	ck_assert_int_eq(dup2(saved, fd), fd);
	close(saved);
}

START_TEST(test_csv_dash_is_standard_input_and_output)
{
	const long long out[3] = {-1, 0, 9000000000LL};
	long long in[2];
	struct cs_err e;
	int saved;

	write_text(at("in.csv"), "4,5\n");
	saved = redirect(0, at("in.csv"), O_RDONLY);
	ck_assert_int_eq(csvio_read("-", SC_LONG, in, 2, &e), 0);
	restore(0, saved);
	clearerr(stdin);
	ck_assert_int_eq(in[0], 4);
	ck_assert_int_eq(in[1], 5);

	write_text(at("in.csv"), "x\n");
	saved = redirect(0, at("in.csv"), O_RDONLY);
	ck_assert_int_eq(csvio_read("-", SC_LONG, in, 2, &e), -1);
	restore(0, saved);
	clearerr(stdin);
	ck_assert_str_eq(e.msg, "<stdin>:1:1: 'x' is not a number");

	fflush(stdout);
	saved = redirect(1, at("out.csv"), O_WRONLY | O_CREAT | O_TRUNC);
	ck_assert_int_eq(csvio_write("-", SC_LONG, out, 3, 2, &e), 0);
	restore(1, saved);
	assert_file_is(at("out.csv"), "-1,0\n9000000000\n");
}
END_TEST

START_TEST(test_csv_write_failure_leaves_the_old_file)
{
	struct rlimit old, small;
	double *v = calloc(100000, sizeof(*v));
	struct cs_err e;

	for (int i = 0; i < 100000; i++)
		v[i] = i / 3.0;
	write_text(at("x.csv"), "old\n");
	/* Writes past 4 KiB fail with EFBIG instead of killing the process. */
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = (struct rlimit){4096, old.rlim_max};
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	ck_assert_int_eq(csvio_write(at("x.csv"), SC_DOUBLE, v, 100000, 4, &e), -1);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_error(e.msg, at("x.csv"), ": File too large");
	assert_file_is(at("x.csv"), "old\n");
	ck_assert_int_eq(entries_in(scratch), 1);
	free(v);
}
END_TEST

START_TEST(test_csv_write_into_unwritable_directory_fails_cleanly)
{
	const int v[2] = {1, 2};
	struct cs_err e;

	ck_assert_int_eq(csvio_write(at("nodir/x.csv"), SC_INT, v, 2, 2, &e), -1);
	assert_error(e.msg, at("nodir/x.csv"),
	             ": cannot create a temporary file: No such file or directory");
	/* root writes into read-only directories: only an ordinary user can check this. */
	if (geteuid() == 0)
		return;
	ck_assert_int_eq(mkdir(at("ro"), 0700), 0);
	write_text(at("ro/x.csv"), "old\n");
	ck_assert_int_eq(chmod(at("ro"), 0500), 0);
	ck_assert_int_eq(csvio_write(at("ro/x.csv"), SC_INT, v, 2, 2, &e), -1);
	assert_error(e.msg, at("ro/x.csv"), ": cannot create a temporary file: Permission denied");
	assert_file_is(at("ro/x.csv"), "old\n");
}
END_TEST

START_TEST(test_csv_write_sets_permissions)
{
	const int v[1] = {1};
	struct cs_err e;
	struct stat st;
	mode_t mask = umask(027);

	ck_assert_int_eq(csvio_write(at("new.csv"), SC_INT, v, 1, 1, &e), 0);
	ck_assert_int_eq(stat(at("new.csv"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	write_text(at("old.csv"), "old\n");
	ck_assert_int_eq(chmod(at("old.csv"), 0604), 0);
	ck_assert_int_eq(csvio_write(at("old.csv"), SC_INT, v, 1, 1, &e), 0);
	ck_assert_int_eq(stat(at("old.csv"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0604);
	umask(mask);
}
END_TEST

START_TEST(test_csv_write_through_a_link_replaces_its_target)
{
	const int v[2] = {3, 4};
	struct cs_err e;
	struct stat st;

	write_text(at("target.csv"), "old\n");
	ck_assert_int_eq(symlink("target.csv", at("link.csv")), 0);
	ck_assert_int_eq(csvio_write(at("link.csv"), SC_INT, v, 2, 2, &e), 0);
	ck_assert_int_eq(lstat(at("link.csv"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	assert_file_is(at("target.csv"), "3,4\n");
	ck_assert_int_eq(entries_in(scratch), 2);
}
END_TEST

START_TEST(test_csv_write_to_devices_in_place)
{
	const int v[2] = {3, 4};
	struct cs_err e;

	ck_assert_int_eq(csvio_write("/dev/null", SC_INT, v, 2, 2, &e), 0);
	if (access("/dev/full", W_OK) != 0)
		return;
	ck_assert_int_eq(csvio_write("/dev/full", SC_INT, v, 2, 2, &e), -1);
	ck_assert_str_eq(e.msg, "/dev/full: No space left on device");
}
END_TEST

/* numpy.savetxt writes a 2-D array as rows of blank-separated values. */
START_TEST(test_csv_blank_separated_values)
{
	const char *text = "1 2 3\n4\t5,6\n  7  8 \n";
	float v[8];
	struct cs_err e;
	FILE *f;

	write_text(at("w.csv"), text);
	ck_assert_int_eq(csvio_read(at("w.csv"), SC_FLOAT, v, 8, &e), 0);
	for (int i = 0; i < 8; i++)
		ck_assert_float_eq(v[i], (float)(i + 1));
	memset(v, 0, sizeof(v));
	f = fmemopen((void *)text, strlen(text), "r");
	ck_assert_int_eq(csvio_read_stream(f, "<w>", SC_FLOAT, v, 8, &e), 0);
	fclose(f);
	ck_assert_float_eq(v[7], 8.0f);
	write_text(at("x.csv"), "1 2\n3 4 x 5\n");
	ck_assert_int_eq(csvio_read(at("x.csv"), SC_FLOAT, v, 6, &e), -1);
	ck_assert_str_eq(e.msg + strlen(scratch), "/x.csv:2:3: 'x' is not a number");
}
END_TEST

/* A quoted field may hold commas and newlines: one long value, refused in words (it once
 * overran a buffer of FIELD_MAX bytes). */
START_TEST(test_csv_long_quoted_field_is_refused)
{
	char *text = malloc(8000);
	float v[2];
	struct cs_err e;
	FILE *f;

	text[0] = '"';
	memset(text + 1, '7', 7000);
	for (int i = 1000; i < 7000; i += 1000)
		text[i] = ',';
	strcpy(text + 7001, "\"\n");
	f = fmemopen(text, strlen(text), "r");
	ck_assert_int_eq(csvio_read_stream(f, "<q>", SC_FLOAT, v, 1, &e), -1);
	fclose(f);
	ck_assert_str_eq(
	        e.msg,
	        "<q>:1:1: '7777777777777777777777777777777777777777777777777777777777777777...' "
	        "is not a number");
	free(text);
}
END_TEST

/* The fast path reads what the general one (libcsv, forced by quotes) reads, or declines to
 * the same error. */
START_TEST(test_csv_fast_and_general_paths_agree)
{
	static const char *const values[] = {
	        "1",     "+1",     "-0",    ".5",   "5.",    "1e-50", "1e400", "0x10",
	        "nan",   "-inf",   "1e",    "--1",  "1.2.3", "e5",    "0.1",   "3.4028235e38",
	        "1e-46", "-.5e-3", "00012", "1ee2", "-",     ".",     "1,5",   "16777217",
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		for (int sc = 0; sc < SC_COUNT; sc++) {
			char plain[64], quoted[64];
			unsigned char a[16] = {0}, b[16] = {0};
			struct cs_err ea = {0}, eb = {0};
			int ra, rb;

			snprintf(plain, sizeof(plain), "%s\n", values[i]);
			snprintf(quoted, sizeof(quoted), "\"%s\"\n", values[i]);
			write_text(at("p.csv"), plain);
			write_text(at("q.csv"), quoted);
			ra = csvio_read(at("p.csv"), (enum scalar)sc, a,
			                strchr(values[i], ',') ? 2 : 1, &ea);
			rb = csvio_read(at("q.csv"), (enum scalar)sc, b, 1, &eb);
			if (strchr(values[i], ','))
				continue; /* "1,5" is two values unquoted, one bad one quoted */
			ck_assert_msg(ra == rb, "%s as %d: %d vs %d", values[i], sc, ra, rb);
			if (ra == 0)
				ck_assert_msg(memcmp(a, b, sizeof(a)) == 0, "%s as %d", values[i],
				              sc);
			else
				ck_assert_str_eq(strstr(ea.msg, ".csv:"), strstr(eb.msg, ".csv:"));
		}
	}
}
END_TEST

/* A file of several megabytes is parsed over the cores: values in order and exact, and a
 * file that needs the general parser at its end still gives every value or the right line. */
START_TEST(test_csv_large_file_over_cores)
{
	enum { N = 600000 };
	float *want = malloc(N * sizeof(float)), *got = malloc((N + 4) * sizeof(float));
	FILE *f = fopen(at("big.csv"), "w");
	struct cs_err e;
	void *all;
	size_t n;

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < N; i++) {
		char text[32];

		want[i] = (float)((i * 2654435761u) % 1000003u) / 7.0f - 50000.0f;
		snprintf(text, sizeof(text), "%.9g", (double)want[i]);
		want[i] = strtof(text, NULL);
		fprintf(f, "%s%s", text, i % 5 == 4 ? "\n" : i % 2 ? " " : ",");
	}
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(csvio_read(at("big.csv"), SC_FLOAT, got, N, &e), 0);
	ck_assert_int_eq(memcmp(got, want, N * sizeof(float)), 0);
	memset(got, 0, N * sizeof(float));
	f = fopen(at("big.csv"), "r"); /* as a stream: whole chunks over the cores */
	ck_assert_int_eq(csvio_read_stream(f, "<big>", SC_FLOAT, got, N, &e), 0);
	fclose(f);
	ck_assert_int_eq(memcmp(got, want, N * sizeof(float)), 0);
	ck_assert_int_eq(csvio_read_all(at("big.csv"), SC_FLOAT, &all, &n, &e), 0);
	ck_assert_uint_eq(n, N);
	ck_assert_int_eq(memcmp(all, want, N * sizeof(float)), 0);
	free(all);
	ck_assert_int_eq(csvio_read(at("big.csv"), SC_FLOAT, got, N - 1, &e), -1);
	ck_assert_str_eq(e.msg + strlen(scratch), "/big.csv: 600000 values, expected 599999");

	f = fopen(at("big.csv"), "a");
	fputs("\"7\"\n", f);
	fclose(f);
	ck_assert_int_eq(csvio_read_all(at("big.csv"), SC_FLOAT, &all, &n, &e), 0);
	ck_assert_uint_eq(n, N + 1);
	ck_assert_int_eq(memcmp(all, want, N * sizeof(float)), 0);
	ck_assert_float_eq(((float *)all)[N], 7.0f);
	free(all);
	f = fopen(at("big.csv"), "a");
	fputs("1 2 zz\n", f);
	fclose(f);
	ck_assert_int_eq(csvio_read(at("big.csv"), SC_FLOAT, got, N + 4, &e), -1);
	ck_assert_str_eq(e.msg + strlen(scratch), "/big.csv:120002:3: 'zz' is not a number");
	f = fopen(at("big.csv"), "r");
	ck_assert_int_eq(csvio_read_stream(f, "<big>", SC_FLOAT, got, N + 4, &e), -1);
	fclose(f);
	ck_assert_str_eq(e.msg, "<big>:120002:3: 'zz' is not a number");

	/* Past the first chunk of a stream read over the cores, lines are still counted. */
	f = fopen(at("big2.csv"), "w");
	for (int copy = 0; copy < 2; copy++)
		for (int i = 0; i < N; i++)
			fprintf(f, "%.9g%s", (double)want[i], i % 5 == 4 ? "\n" : ",");
	fputs("1 2 zz\n", f);
	ck_assert_int_eq(fclose(f), 0);
	free(got);
	got = malloc((2 * N + 3) * sizeof(float));
	for (int piped = 0; piped < 2; piped++) { /* a file is mapped, a pipe read in chunks */
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "cat '%s'", at("big2.csv"));
		f = piped ? popen(cmd, "r") : fopen(at("big2.csv"), "r");
		ck_assert_int_eq(csvio_read_stream(f, "<big2>", SC_FLOAT, got, 2 * N + 3, &e), -1);
		if (piped)
			pclose(f);
		else
			fclose(f);
		ck_assert_str_eq(e.msg, "<big2>:240001:3: 'zz' is not a number");
	}
	ck_assert_int_eq(memcmp(got + N, want, N * sizeof(float)), 0);
	free(want);
	free(got);
}
END_TEST

/* A stream that is a regular file is parsed from where it stands (what stdio has read ahead
 * included), and left at its end as reading it would. */
START_TEST(test_csv_stream_from_its_position)
{
	enum { N = 400000 };
	float *got = malloc(N * sizeof(float));
	FILE *f = fopen(at("rest.csv"), "w");
	char head[16];
	struct cs_err e;
	void *all;
	size_t n;

	ck_assert_ptr_nonnull(f);
	fputs("99\n", f);
	for (int i = 0; i < N; i++)
		fprintf(f, "%d\n", i - 7);
	ck_assert_int_eq(fclose(f), 0);
	f = fopen(at("rest.csv"), "r");
	ck_assert_ptr_nonnull(fgets(head, sizeof(head), f));
	ck_assert_int_eq(csvio_read_stream(f, "<rest>", SC_FLOAT, got, N, &e), 0);
	for (int i = 0; i < N; i++)
		ck_assert_float_eq(got[i], (float)(i - 7));
	ck_assert_int_eq(fgetc(f), EOF);
	rewind(f);
	ck_assert_ptr_nonnull(fgets(head, sizeof(head), f));
	ck_assert_int_eq(csvio_read_all_stream(f, "<rest>", SC_FLOAT, &all, &n, &e), 0);
	ck_assert_uint_eq(n, N);
	ck_assert_float_eq(((float *)all)[0], -7.0f);
	ck_assert_int_eq(fgetc(f), EOF);
	free(all);
	rewind(f);
	ck_assert_ptr_nonnull(fgets(head, sizeof(head), f));
	ck_assert_int_eq(csvio_read_stream(f, "<rest>", SC_FLOAT, got, N - 1, &e), -1);
	ck_assert_str_eq(e.msg, "<rest>: 400000 values, expected 399999");
	rewind(f);
	ck_assert_int_eq(csvio_read_stream(f, "<rest>", SC_FLOAT, got, N, &e), -1);
	ck_assert_str_eq(e.msg, "<rest>: 400001 values, expected 400000");
	fclose(f);
	free(got);
}
END_TEST

/* A large output's write error is reported (its rounds are written on a thread of their own). */
START_TEST(test_csv_large_write_error)
{
	enum { N = 700000 };
	int32_t *v = calloc(N, sizeof(int32_t));
	struct cs_err e;
	FILE *f;

	if (access("/dev/full", W_OK) != 0) {
		free(v);
		return;
	}
	f = fopen("/dev/full", "w");
	ck_assert_int_eq(csvio_write_stream(f, "full", SC_INT, v, N, 1, &e), -1);
	ck_assert_str_eq(e.msg, "full: No space left on device");
	fclose(f);
	free(v);
}
END_TEST

/* Output of many values is formatted over the cores, in order. */
START_TEST(test_csv_large_write_in_order)
{
	enum { N = 700000 };
	int32_t *v = malloc(N * sizeof(int32_t)), *back = malloc(N * sizeof(int32_t));
	struct cs_err e;

	for (int i = 0; i < N; i++)
		v[i] = i * 3 - 1000;
	ck_assert_int_eq(csvio_write(at("w.csv"), SC_INT, v, N, 7, &e), 0);
	ck_assert_int_eq(csvio_read(at("w.csv"), SC_INT, back, N, &e), 0);
	ck_assert_int_eq(memcmp(v, back, N * sizeof(int32_t)), 0);
	free(v);
	free(back);
}
END_TEST

Suite *suite_csv(void)
{
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("csv");

	tcase_add_checked_fixture(tc, scratch_create, scratch_remove);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_csv_round_trip_every_type, 0, SC_COUNT);
	tcase_add_test(tc, test_csv_reads_rows_of_any_length);
	tcase_add_test(tc, test_csv_blank_separated_values);
	tcase_add_test(tc, test_csv_long_quoted_field_is_refused);
	tcase_add_test(tc, test_csv_fast_and_general_paths_agree);
	tcase_add_test(tc, test_csv_large_file_over_cores);
	tcase_add_test(tc, test_csv_large_write_in_order);
	tcase_add_test(tc, test_csv_stream_from_its_position);
	tcase_add_test(tc, test_csv_large_write_error);
	tcase_add_test(tc, test_csv_read_all_grows_its_array);
	tcase_add_test(tc, test_csv_write_puts_columns_values_per_row);
	tcase_add_test(tc, test_csv_bad_value_names_line_and_field);
	tcase_add_test(tc, test_csv_empty_field_is_an_error);
	tcase_add_test(tc, test_csv_wrong_count_says_found_and_expected);
	tcase_add_test(tc, test_csv_malformed_quotes_are_reported);
	tcase_add_test(tc, test_csv_nul_byte_is_not_hidden);
	tcase_add_test(tc, test_csv_missing_file_and_directory);
	tcase_add_test(tc, test_csv_read_stream_uses_the_given_name);
	tcase_add_test(tc, test_csv_dash_is_standard_input_and_output);
	tcase_add_test(tc, test_csv_write_failure_leaves_the_old_file);
	tcase_add_test(tc, test_csv_write_into_unwritable_directory_fails_cleanly);
	tcase_add_test(tc, test_csv_write_sets_permissions);
	tcase_add_test(tc, test_csv_write_through_a_link_replaces_its_target);
	tcase_add_test(tc, test_csv_write_to_devices_in_place);
	suite_add_tcase(s, tc);
	return s;
}
