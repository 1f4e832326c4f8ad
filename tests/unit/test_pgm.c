/* PGM images (data/pgm.c): netpbm's header rules, both rasters, errors, atomic writing. */
#include <check.h>
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

#include "data/pgm.h"
#include "scratch.h"

/* A file from a string literal, which may hold NUL bytes (hence the explicit length). */
#define WRITE_LITERAL(path, lit) write_bytes(path, lit, sizeof(lit) - 1)

/* The whole file; *len set. free() it. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *s = calloc(1, 1 << 22);

	ck_assert_ptr_nonnull(f);
	*len = fread(s, 1, 1 << 22, f);
	fclose(f);
	return s;
}

/* msg is "<scratch>/<name><rest>". */
static void assert_error(const char *msg, const char *name, const char *rest)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s%s", at(name), rest);
	ck_assert_str_eq(msg, want);
}

START_TEST(test_pgm_path_is_the_extension_in_any_case)
{
	ck_assert(pgm_path("lena.pgm"));
	ck_assert(pgm_path("dir/LENA.PGM"));
	ck_assert(pgm_path("x.Pgm"));
	ck_assert(!pgm_path("x.pgm.csv"));
	ck_assert(!pgm_path("pgm"));
	ck_assert(!pgm_path("x.pg"));
	ck_assert(!pgm_path("-"));
}
END_TEST

START_TEST(test_pgm_reads_raw_8_bit_with_comments_in_the_header)
{
	float v[6];
	size_t w = 0, h = 0;
	struct cs_err e;

	WRITE_LITERAL(at("a.pgm"),
	              "P5\n# made by hand\n3 # width\n\t2\r\n255\n\x00\x01\x7f\x80\xfe\xff");
	ck_assert_int_eq(pgm_read(at("a.pgm"), SC_FLOAT, v, 6, &w, &h, &e), 0);
	ck_assert_uint_eq(w, 3);
	ck_assert_uint_eq(h, 2);
	ck_assert(v[0] == 0 && v[1] == 1 && v[2] == 127 && v[3] == 128 && v[4] == 254 &&
	          v[5] == 255);
}
END_TEST

START_TEST(test_pgm_reads_raw_16_bit_big_endian)
{
	unsigned short v[3];
	struct cs_err e;

	WRITE_LITERAL(at("b.pgm"), "P5 3 1 65535 \x01\x02\xff\xff\x00\x07");
	ck_assert_int_eq(pgm_read(at("b.pgm"), SC_USHORT, v, 3, NULL, NULL, &e), 0);
	ck_assert_uint_eq(v[0], 258);
	ck_assert_uint_eq(v[1], 65535);
	ck_assert_uint_eq(v[2], 7);
	/* maxval 256 already needs two bytes per pixel */
	WRITE_LITERAL(at("c.pgm"), "P5 1 1 256\n\x01\x00");
	ck_assert_int_eq(pgm_read(at("c.pgm"), SC_USHORT, v, 1, NULL, NULL, &e), 0);
	ck_assert_uint_eq(v[0], 256);
}
END_TEST

START_TEST(test_pgm_comment_may_end_the_maxval)
{
	unsigned char v[2];
	struct cs_err e;

	/* libnetpbm: the comment ends the number and the raster starts after its newline */
	WRITE_LITERAL(at("c.pgm"), "P5 2 1 255# note\n\x41\x0a");
	ck_assert_int_eq(pgm_read(at("c.pgm"), SC_UCHAR, v, 2, NULL, NULL, &e), 0);
	ck_assert_uint_eq(v[0], 0x41);
	ck_assert_uint_eq(v[1], 0x0a);
	/* exactly one whitespace character after maxval: a raster may begin with a blank */
	WRITE_LITERAL(at("d.pgm"), "P5 2 1 255\n\n ");
	ck_assert_int_eq(pgm_read(at("d.pgm"), SC_UCHAR, v, 2, NULL, NULL, &e), 0);
	ck_assert_uint_eq(v[0], '\n');
	ck_assert_uint_eq(v[1], ' ');
}
END_TEST

START_TEST(test_pgm_reads_plain_with_any_whitespace_and_comments)
{
	double v[4];
	int iv[4];
	struct cs_err e;

	WRITE_LITERAL(at("p.pgm"), "P2\n2 2\n1000\n0 1000# a comment\r\n  17\t\n\n999");
	ck_assert_int_eq(pgm_read(at("p.pgm"), SC_DOUBLE, v, 4, NULL, NULL, &e), 0);
	ck_assert(v[0] == 0 && v[1] == 1000 && v[2] == 17 && v[3] == 999);
	ck_assert_int_eq(pgm_read(at("p.pgm"), SC_INT, iv, 4, NULL, NULL, &e), 0);
	ck_assert(iv[0] == 0 && iv[1] == 1000 && iv[2] == 17 && iv[3] == 999);
}
END_TEST

START_TEST(test_pgm_every_scalar_kind_gets_the_pixel_values)
{
	unsigned char buf[4 * 8];
	struct cs_err e;

	WRITE_LITERAL(at("k.pgm"), "P2 4 1 100 0 1 99 100");
	for (int s = 0; s < SC_COUNT; s++) {
		size_t size = scalar_size((enum scalar)s);

		ck_assert_int_eq(pgm_read(at("k.pgm"), (enum scalar)s, buf, 4, NULL, NULL, &e), 0);
		for (int i = 0; i < 4; i++) {
			const unsigned char *p = buf + (size_t)i * size;
			double want = i == 0 ? 0 : i == 1 ? 1 : i == 2 ? 99 : 100, got;

			if (s == SC_FLOAT) {
				float f;
				memcpy(&f, p, 4);
				got = f;
			} else if (s == SC_DOUBLE) {
				memcpy(&got, p, 8);
			} else {
				/* little or big endian, a non-negative integer below 256 sits in
				 * one byte: add them all */
				got = 0;
				for (size_t b = 0; b < size; b++)
					got += p[b];
			}
			ck_assert_msg(got == want, "%s pixel %d: got %g, want %g",
			              scalar_name((enum scalar)s), i, got, want);
		}
	}
}
END_TEST

START_TEST(test_pgm_size_mismatch_says_both_counts)
{
	float v[16];
	size_t w = 0, h = 0;
	struct cs_err e;

	WRITE_LITERAL(at("s.pgm"), "P2 4 3 255 0 0 0 0 0 0 0 0 0 0 0 0");
	ck_assert_int_eq(pgm_read(at("s.pgm"), SC_FLOAT, v, 16, &w, &h, &e), -1);
	assert_error(e.msg, "s.pgm", ": 4x3 = 12 pixels, expected 16");
	ck_assert_uint_eq(w, 4);
	ck_assert_uint_eq(h, 3);
}
END_TEST

START_TEST(test_pgm_size_reads_only_the_header)
{
	size_t w = 0, h = 0;
	struct cs_err e;

	/* no maxval and no raster: the size is all it reads */
	WRITE_LITERAL(at("s.pgm"), "P5\n# a comment\n640 # width\n\t480\n");
	ck_assert_int_eq(pgm_size(at("s.pgm"), &w, &h, &e), 0);
	ck_assert_uint_eq(w, 640);
	ck_assert_uint_eq(h, 480);
	WRITE_LITERAL(at("p.pgm"), "P2 3 2 9 1 2 3 4 5 6");
	ck_assert_int_eq(pgm_size(at("p.pgm"), &w, &h, &e), 0);
	ck_assert(w == 3 && h == 2);
	WRITE_LITERAL(at("z.pgm"), "P5 0 4 255");
	ck_assert_int_eq(pgm_size(at("z.pgm"), &w, &h, &e), -1);
	assert_error(e.msg, "z.pgm", ": the image is 0x4: it has no pixels");
	WRITE_LITERAL(at("q.pgm"), "P6 1 1 255 abc");
	ck_assert_int_eq(pgm_size(at("q.pgm"), &w, &h, &e), -1);
	assert_error(e.msg, "q.pgm", ": not a PGM image (magic 'P6'; expected P2 or P5)");
	ck_assert_int_eq(pgm_size(at("none.pgm"), &w, &h, &e), -1);
	assert_error(e.msg, "none.pgm", ": No such file or directory");
}
END_TEST

START_TEST(test_pgm_other_magic_is_named)
{
	float v[1];
	struct cs_err e;

	WRITE_LITERAL(at("x.pgm"), "P6 1 1 255 abc");
	ck_assert_int_eq(pgm_read(at("x.pgm"), SC_FLOAT, v, 1, NULL, NULL, &e), -1);
	assert_error(e.msg, "x.pgm", ": not a PGM image (magic 'P6'; expected P2 or P5)");
	WRITE_LITERAL(at("y.pgm"), "\x89PNG\r\n");
	ck_assert_int_eq(pgm_read(at("y.pgm"), SC_FLOAT, v, 1, NULL, NULL, &e), -1);
	assert_error(e.msg, "y.pgm", ": not a PGM image (magic '\\x89P'; expected P2 or P5)");
	WRITE_LITERAL(at("z.pgm"), "");
	ck_assert_int_eq(pgm_read(at("z.pgm"), SC_FLOAT, v, 1, NULL, NULL, &e), -1);
	assert_error(e.msg, "z.pgm", ": empty file: not a PGM image");
}
END_TEST

START_TEST(test_pgm_header_errors)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	        {"P5", ": truncated: the file ends before the width"},
	        {"P5 12", ": truncated: the file ends in the header"},
	        {"P5x 1 1 255\n", ": the width: 'x' where a number was expected"},
	        {"P5 -1 1 255\n", ": the width: '-' where a number was expected"},
	        {"P5 1 1.5 255\n", ": the height: '.' after the number 1"},
	        {"P5 0 4 255\n", ": the image is 0x4: it has no pixels"},
	        {"P5 1 1 0\n", ": maxval 0 is out of range (1..65535)"},
	        {"P5 1 1 65536\n", ": the maxval is larger than 65535"},
	        {"P5 99999999999 1 255\n", ": the width is larger than 1000000000"},
	        {"P5 1000000000 1000000000 255\n", ": 1000000000x1000000000 = 1000000000000000000 "
	                                           "pixels, expected 1"},
	        {"P2 1 1 255", ": truncated: the file ends before pixel 0 of 1"},
	};
	float v[1];
	struct cs_err e;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_bytes(at("h.pgm"), cases[i].text, strlen(cases[i].text));
		ck_assert_int_eq(pgm_read(at("h.pgm"), SC_FLOAT, v, 1, NULL, NULL, &e), -1);
		assert_error(e.msg, "h.pgm", cases[i].msg);
	}
}
END_TEST

START_TEST(test_pgm_truncated_and_bad_rasters)
{
	float v[4];
	unsigned char uc[2];
	signed char sc[1];
	struct cs_err e;

	WRITE_LITERAL(at("t.pgm"), "P5 2 2 255\n\x01\x02\x03");
	ck_assert_int_eq(pgm_read(at("t.pgm"), SC_FLOAT, v, 4, NULL, NULL, &e), -1);
	assert_error(e.msg, "t.pgm", ": truncated: 3 of 4 pixels");
	WRITE_LITERAL(at("t.pgm"), "P5 2 2 300\n\x00\x01\x00\x02\x00\x03\x00");
	ck_assert_int_eq(pgm_read(at("t.pgm"), SC_FLOAT, v, 4, NULL, NULL, &e), -1);
	assert_error(e.msg, "t.pgm", ": truncated: 3 of 4 pixels");
	WRITE_LITERAL(at("m.pgm"), "P5 2 2 300\n\x00\x01\x01\x2d\x00\x03\x00\x00");
	ck_assert_int_eq(pgm_read(at("m.pgm"), SC_FLOAT, v, 4, NULL, NULL, &e), -1);
	assert_error(e.msg, "m.pgm", ": pixel 1 (row 0, column 1) is 301, above the maxval 300");
	WRITE_LITERAL(at("p.pgm"), "P2 2 2 9 1 2 3 10");
	ck_assert_int_eq(pgm_read(at("p.pgm"), SC_FLOAT, v, 4, NULL, NULL, &e), -1);
	assert_error(e.msg, "p.pgm", ": pixel 3 (row 1, column 1) is 10, above the maxval 9");
	WRITE_LITERAL(at("p.pgm"), "P2 2 2 9 1 2 x 3");
	ck_assert_int_eq(pgm_read(at("p.pgm"), SC_FLOAT, v, 4, NULL, NULL, &e), -1);
	assert_error(e.msg, "p.pgm", ": pixel 2 of 4: 'x' where a number was expected");
	WRITE_LITERAL(at("p.pgm"), "P2 2 2 9 1 2 3");
	ck_assert_int_eq(pgm_read(at("p.pgm"), SC_FLOAT, v, 4, NULL, NULL, &e), -1);
	assert_error(e.msg, "p.pgm", ": truncated: the file ends before pixel 3 of 4");
	/* a value the stream's type cannot hold */
	WRITE_LITERAL(at("u.pgm"), "P2 2 1 1000 255 256");
	ck_assert_int_eq(pgm_read(at("u.pgm"), SC_UCHAR, uc, 2, NULL, NULL, &e), -1);
	assert_error(e.msg, "u.pgm", ": pixel 1 is 256, which does not fit in uchar");
	WRITE_LITERAL(at("c.pgm"), "P2 1 1 255 128");
	ck_assert_int_eq(pgm_read(at("c.pgm"), SC_CHAR, sc, 1, NULL, NULL, &e), -1);
	assert_error(e.msg, "c.pgm", ": pixel 0 is 128, which does not fit in char");
}
END_TEST

START_TEST(test_pgm_missing_file_and_directory)
{
	float v[1];
	struct cs_err e;

	ck_assert_int_eq(pgm_read(at("none.pgm"), SC_FLOAT, v, 1, NULL, NULL, &e), -1);
	assert_error(e.msg, "none.pgm", ": No such file or directory");
	ck_assert_int_eq(pgm_read(scratch, SC_FLOAT, v, 1, NULL, NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "Is a directory"));
}
END_TEST

/* Every prefix of a good file and many damaged copies: an error or a success, never a crash
 * or a read outside the destination (run under the sanitizers with --enable-sanitizers). */
START_TEST(test_pgm_damaged_files_never_crash)
{
	static const char good5[] = "P5\n# c\n4 3\n65535\n"
	                            "\x00\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00\x06"
	                            "\x00\x07\x00\x08\x00\x09\x00\x0a\x00\x0b\x00\x0c";
	static const char good2[] = "P2 4 3 15 1 2 3 4 5 6 7 8 9 10 11 12\n";
	const char *goods[] = {good5, good2};
	const size_t lens[] = {sizeof(good5) - 1, sizeof(good2) - 1};
	uint64_t rng = 0x2545F4914F6CDD1Dull;
	float *v = malloc(12 * sizeof(*v));
	struct cs_err e;
	char buf[128];

	for (int g = 0; g < 2; g++) {
		for (size_t len = 0; len < lens[g]; len++) {
			write_bytes(at("f.pgm"), goods[g], len);
			/* a plain raster may end without a newline, and its cut last
			 * number "1" of "12" is a number too */
			if (g == 1 && len >= lens[g] - 2)
				continue;
			ck_assert_int_eq(pgm_read(at("f.pgm"), SC_FLOAT, v, 12, NULL, NULL, &e),
			                 -1);
			ck_assert_ptr_nonnull(strstr(e.msg, at("f.pgm")));
		}
		for (int round = 0; round < 2000; round++) {
			memcpy(buf, goods[g], lens[g]);
			for (int k = 0; k < 3; k++) {
				rng ^= rng >> 12;
				rng ^= rng << 25;
				rng ^= rng >> 27;
				buf[(rng * 2685821657736338717ull >> 33) % lens[g]] =
				        (char)(rng >> 56);
			}
			write_bytes(at("f.pgm"), buf, lens[g]);
			if (pgm_read(at("f.pgm"), SC_FLOAT, v, 12, NULL, NULL, &e) != 0)
				ck_assert_ptr_nonnull(strstr(e.msg, at("f.pgm")));
		}
	}
	free(v);
}
END_TEST

START_TEST(test_pgm_write_rounds_clamps_and_zeroes_nan)
{
	const float v[10] = {-3, 0.49f, 0.5f, 1.5f, 2.5f, 254.49f, 254.5f, 300, NAN, -INFINITY};
	const unsigned char want[] = "P5\n5 2\n255\n\x00\x00\x01\x02\x03\xfe\xff\xff\x00\x00";
	size_t len;
	unsigned char *got;
	struct cs_err e;

	ck_assert_int_eq(pgm_write(at("w.pgm"), SC_FLOAT, v, 10, 5, &e), 0);
	got = slurp(at("w.pgm"), &len);
	ck_assert_uint_eq(len, sizeof(want) - 1);
	ck_assert_mem_eq(got, want, len);
	free(got);
}
END_TEST

/* The byte of a float as docs/formats.md says, computed in double: nearest, halves up, 0..255,
 * NaN 0. */
static unsigned char ref_byte(float f)
{
	double v = f;

	if (isnan(v) || v <= 0)
		return 0;
	return v >= 255 ? 255 : (unsigned char)floor(v + 0.5);
}

/* Floats across the whole range of bit patterns (and those next to every half), enough of
 * them that the conversion's blocked loop runs, not only its remainder. */
START_TEST(test_pgm_write_floats_of_every_kind)
{
	enum { N = 200003 };
	float *v = malloc(N * sizeof(*v));
	unsigned char *want = malloc(N);
	size_t len, head;
	unsigned char *got;
	struct cs_err e;

	for (uint32_t i = 0; i < N; i++) {
		uint32_t bits = i * 21473u + (i >> 3) * 2654435761u;

		if (i % 3 == 0)
			v[i] = nextafterf((float)(i / 3 % 512) / 2, i % 2 ? 1000.0f : -1.0f);
		else
			memcpy(&v[i], &bits, sizeof(bits));
		want[i] = ref_byte(v[i]);
	}
	ck_assert_int_eq(pgm_write(at("f.pgm"), SC_FLOAT, v, N, 1, &e), 0);
	got = slurp(at("f.pgm"), &len);
	head = strlen("P5\n1 200003\n255\n");
	ck_assert_uint_eq(len, head + N);
	for (size_t i = 0; i < N; i++)
		if (got[head + i] != want[i])
			ck_abort_msg("value %zu (%a): byte %u, expected %u", i, (double)v[i],
			             got[head + i], want[i]);
	free(got);
	free(want);
	free(v);
}
END_TEST

START_TEST(test_pgm_write_integer_kinds)
{
	const int iv[3] = {-1, 7, 1000};
	const double dv[3] = {INFINITY, 0.5000001, 99.4999};
	const unsigned short us[3] = {0, 255, 65535};
	size_t len;
	unsigned char *got;
	struct cs_err e;

	ck_assert_int_eq(pgm_write(at("i.pgm"), SC_INT, iv, 3, 3, &e), 0);
	got = slurp(at("i.pgm"), &len);
	ck_assert_mem_eq(got, "P5\n3 1\n255\n\x00\x07\xff", len);
	free(got);
	ck_assert_int_eq(pgm_write(at("d.pgm"), SC_DOUBLE, dv, 3, 1, &e), 0);
	got = slurp(at("d.pgm"), &len);
	ck_assert_mem_eq(got, "P5\n1 3\n255\n\xff\x01\x63", len);
	free(got);
	ck_assert_int_eq(pgm_write(at("u.pgm"), SC_USHORT, us, 3, 3, &e), 0);
	got = slurp(at("u.pgm"), &len);
	ck_assert_mem_eq(got, "P5\n3 1\n255\n\x00\xff\xff", len);
	free(got);
}
END_TEST

START_TEST(test_pgm_write_then_read_round_trip)
{
	enum { W = 300, H = 7 };
	float *v = malloc(W * H * sizeof(*v)), *back = malloc(W * H * sizeof(*back));
	size_t w, h;
	struct cs_err e;

	for (int i = 0; i < W * H; i++)
		v[i] = (float)(i * 7 % 256);
	ck_assert_int_eq(pgm_write(at("r.pgm"), SC_FLOAT, v, W * H, W, &e), 0);
	ck_assert_int_eq(pgm_read(at("r.pgm"), SC_FLOAT, back, W * H, &w, &h, &e), 0);
	ck_assert_uint_eq(w, W);
	ck_assert_uint_eq(h, H);
	ck_assert_mem_eq(v, back, W * H * sizeof(*v));
	free(v);
	free(back);
}
END_TEST

START_TEST(test_pgm_write_needs_whole_rows)
{
	const float v[6] = {0};
	struct cs_err e;

	ck_assert_int_eq(pgm_write(at("n.pgm"), SC_FLOAT, v, 6, 4, &e), -1);
	assert_error(e.msg, "n.pgm", ": 6 values do not make an image 4 pixels wide");
	ck_assert_int_eq(pgm_write(at("n.pgm"), SC_FLOAT, v, 6, 0, &e), -1);
	ck_assert_int_eq(pgm_write(at("n.pgm"), SC_FLOAT, v, 0, 4, &e), -1);
	ck_assert_int_eq(entries_in(scratch), 0);
}
END_TEST

START_TEST(test_pgm_write_failure_leaves_the_old_file)
{
	struct rlimit old, small;
	float *v = calloc(100000, sizeof(*v));
	struct cs_err e;
	unsigned char *got;
	size_t len;

	WRITE_LITERAL(at("x.pgm"), "old\n");
	/* Writes past 4 KiB fail with EFBIG instead of killing the process. */
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = (struct rlimit){4096, old.rlim_max};
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	ck_assert_int_eq(pgm_write(at("x.pgm"), SC_FLOAT, v, 100000, 1000, &e), -1);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_error(e.msg, "x.pgm", ": File too large");
	got = slurp(at("x.pgm"), &len);
	ck_assert_mem_eq(got, "old\n", len);
	ck_assert_uint_eq(len, 4);
	ck_assert_int_eq(entries_in(scratch), 1);
	free(got);

	ck_assert_int_eq(pgm_write(at("nodir/x.pgm"), SC_FLOAT, v, 1, 1, &e), -1);
	assert_error(e.msg, "nodir/x.pgm",
	             ": cannot create a temporary file: No such file or directory");
	free(v);
}
END_TEST

START_TEST(test_pgm_write_keeps_permissions_and_follows_links)
{
	const float v[1] = {9};
	struct cs_err e;
	struct stat st;
	mode_t mask = umask(027);

	ck_assert_int_eq(pgm_write(at("new.pgm"), SC_FLOAT, v, 1, 1, &e), 0);
	ck_assert_int_eq(stat(at("new.pgm"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(chmod(at("new.pgm"), 0604), 0);
	ck_assert_int_eq(pgm_write(at("new.pgm"), SC_FLOAT, v, 1, 1, &e), 0);
	ck_assert_int_eq(stat(at("new.pgm"), &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0604);
	umask(mask);

	ck_assert_int_eq(symlink("new.pgm", at("link.pgm")), 0);
	ck_assert_int_eq(pgm_write(at("link.pgm"), SC_FLOAT, v, 1, 1, &e), 0);
	ck_assert_int_eq(lstat(at("link.pgm"), &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(entries_in(scratch), 2);
}
END_TEST

START_TEST(test_pgm_dash_is_standard_input_and_output)
{
	const float out[2] = {1, 2};
	float in[2];
	struct cs_err e;
	unsigned char *got;
	size_t len;

	WRITE_LITERAL(at("in.pgm"), "P2 2 1 3 3 1");
	ck_assert_ptr_nonnull(freopen(at("in.pgm"), "rb", stdin));
	ck_assert_int_eq(pgm_read("-", SC_FLOAT, in, 2, NULL, NULL, &e), 0);
	ck_assert(in[0] == 3 && in[1] == 1);
	WRITE_LITERAL(at("in.pgm"), "P2 2 1 3 3 4");
	ck_assert_ptr_nonnull(freopen(at("in.pgm"), "rb", stdin));
	ck_assert_int_eq(pgm_read("-", SC_FLOAT, in, 2, NULL, NULL, &e), -1);
	ck_assert_str_eq(e.msg, "<stdin>: pixel 1 (row 0, column 1) is 4, above the maxval 3");

	ck_assert_ptr_nonnull(freopen(at("out.pgm"), "wb", stdout));
	ck_assert_int_eq(pgm_write("-", SC_FLOAT, out, 2, 2, &e), 0);
	got = slurp(at("out.pgm"), &len);
	ck_assert_mem_eq(got, "P5\n2 1\n255\n\x01\x02", len);
	free(got);
}
END_TEST

START_TEST(test_pgm_write_to_devices_in_place)
{
	const float v[2] = {3, 4};
	struct cs_err e;

	ck_assert_int_eq(pgm_write("/dev/null", SC_FLOAT, v, 2, 2, &e), 0);
	if (access("/dev/full", W_OK) != 0)
		return;
	ck_assert_int_eq(pgm_write("/dev/full", SC_FLOAT, v, 2, 2, &e), -1);
	ck_assert_str_eq(e.msg, "/dev/full: No space left on device");
}
END_TEST

/* Large rasters are converted over the cores: every value, and the first bad pixel of all
 * (not of some part) named. */
START_TEST(test_pgm_large_rasters_over_cores)
{
	enum { W = 2048, H = 1024, N = W * H };
	static const char head[] = "P5\n2048 1024\n1000\n";
	unsigned char *file = malloc(sizeof(head) - 1 + 2 * (size_t)N), *got;
	float *v = malloc(N * sizeof(float)), *f = malloc(N * sizeof(float));
	size_t len;
	struct cs_err e;
	int bad = 0;

	memcpy(file, head, sizeof(head) - 1);
	for (int i = 0; i < N; i++) {
		file[sizeof(head) - 1 + 2 * i] = (unsigned char)(i % 1001 >> 8);
		file[sizeof(head) - 1 + 2 * i + 1] = (unsigned char)(i % 1001 & 0xff);
	}
	write_bytes(at("big.pgm"), file, sizeof(head) - 1 + 2 * (size_t)N);
	ck_assert_int_eq(pgm_read(at("big.pgm"), SC_FLOAT, v, N, NULL, NULL, &e), 0);
	for (int i = 0; i < N; i++) /* one assertion: Check's are slow */
		bad += v[i] != (float)(i % 1001);
	ck_assert_int_eq(bad, 0);
	file[sizeof(head) - 1 + 2 * 1900000] = 0x7f;
	file[sizeof(head) - 1 + 2 * 1500001] = 0x04;
	write_bytes(at("bad.pgm"), file, sizeof(head) - 1 + 2 * (size_t)N);
	ck_assert_int_eq(pgm_read(at("bad.pgm"), SC_FLOAT, v, N, NULL, NULL, &e), -1);
	assert_error(e.msg, "bad.pgm",
	             ": pixel 1500001 (row 732, column 865) is 1271, above the maxval 1000");

	for (int i = 0; i < N; i++)
		f[i] = i % 3 ? (float)(i % 600) / 2.0f - 20.0f : 0.49999997f;
	ck_assert_int_eq(pgm_write(at("w.pgm"), SC_FLOAT, f, N, W, &e), 0);
	got = slurp(at("w.pgm"), &len);
	ck_assert_uint_eq(len, 17 + (size_t)N); /* "P5\n2048 1024\n255\n" */
	for (int i = 0; i < N; i++) {
		double r = round((double)f[i]);
		unsigned char want = r <= 0 ? 0 : r >= 255 ? 255 : (unsigned char)r;

		bad += got[17 + i] != want;
	}
	ck_assert_int_eq(bad, 0);
	free(got);
	free(file);
	free(v);
	free(f);
}
END_TEST

/* A bad image leaves the destination as it was: a buffer is filled in place. */
START_TEST(test_pgm_bad_image_leaves_dst_untouched)
{
	float v[6] = {-1, -1, -1, -1, -1, -1};
	struct cs_err e;

	WRITE_LITERAL(at("r.pgm"), "P5 3 2 200\n\x01\x02\x03\xc9\x05\x06");
	ck_assert_int_eq(pgm_read(at("r.pgm"), SC_FLOAT, v, 6, NULL, NULL, &e), -1);
	assert_error(e.msg, "r.pgm", ": pixel 3 (row 1, column 0) is 201, above the maxval 200");
	WRITE_LITERAL(at("t.pgm"), "P5 3 2 255\n\x01\x02\x03");
	ck_assert_int_eq(pgm_read(at("t.pgm"), SC_FLOAT, v, 6, NULL, NULL, &e), -1);
	assert_error(e.msg, "t.pgm", ": truncated: 3 of 6 pixels");
	WRITE_LITERAL(at("p.pgm"), "P2 3 2 9 1 2 3 4 5 x");
	ck_assert_int_eq(pgm_read(at("p.pgm"), SC_FLOAT, v, 6, NULL, NULL, &e), -1);
	for (int i = 0; i < 6; i++)
		ck_assert_float_eq(v[i], -1);
}
END_TEST

struct samples_dst {
	unsigned char bytes[8];
	int calls;
};

static unsigned char *samples_dst(void *arg, struct cs_err *e)
{
	struct samples_dst *d = arg;

	(void)e;
	d->calls++;
	return d->bytes;
}

START_TEST(test_pgm_samples_are_the_raster_as_it_is)
{
	struct samples_dst d = {{0}, 0};
	struct cs_err e;

	WRITE_LITERAL(at("a.pgm"), "P5\n# c\n3 2\n255\n\x00\x01\x7f\x80\xfe\xff");
	ck_assert_int_eq(pgm_read_samples(at("a.pgm"), SC_FLOAT, 6, samples_dst, &d, &e), 0);
	ck_assert_int_eq(d.calls, 1);
	ck_assert_int_eq(memcmp(d.bytes, "\x00\x01\x7f\x80\xfe\xff", 6), 0);
	/* Plain and 16-bit pictures are pgm_read's: nothing is asked for. */
	WRITE_LITERAL(at("p.pgm"), "P2 2 1 255 1 2");
	ck_assert_int_eq(pgm_read_samples(at("p.pgm"), SC_FLOAT, 2, samples_dst, &d, &e), 1);
	WRITE_LITERAL(at("w.pgm"), "P5 1 1 300\n\x01\x00");
	ck_assert_int_eq(pgm_read_samples(at("w.pgm"), SC_FLOAT, 1, samples_dst, &d, &e), 1);
	ck_assert_int_eq(d.calls, 1);
	/* Errors as pgm_read's, before anything is asked for. */
	WRITE_LITERAL(at("t.pgm"), "P5 2 2 255\n\x01\x02\x03");
	ck_assert_int_eq(pgm_read_samples(at("t.pgm"), SC_FLOAT, 4, samples_dst, &d, &e), -1);
	assert_error(e.msg, "t.pgm", ": truncated: 3 of 4 pixels");
	WRITE_LITERAL(at("m.pgm"), "P5 2 1 100\n\x01\x65");
	ck_assert_int_eq(pgm_read_samples(at("m.pgm"), SC_FLOAT, 2, samples_dst, &d, &e), -1);
	assert_error(e.msg, "m.pgm", ": pixel 1 (row 0, column 1) is 101, above the maxval 100");
	WRITE_LITERAL(at("c.pgm"), "P5 1 1 255\n\x80");
	ck_assert_int_eq(pgm_read_samples(at("c.pgm"), SC_CHAR, 1, samples_dst, &d, &e), -1);
	assert_error(e.msg, "c.pgm", ": pixel 0 is 128, which does not fit in char");
	ck_assert_int_eq(pgm_read_samples(at("a.pgm"), SC_FLOAT, 5, samples_dst, &d, &e), -1);
	assert_error(e.msg, "a.pgm", ": 3x2 = 6 pixels, expected 5");
	ck_assert_int_eq(d.calls, 1);
}
END_TEST

START_TEST(test_pgm_write_pixels_as_they_are)
{
	const unsigned char px[4] = {0, 1, 254, 255};
	unsigned char *got;
	size_t len;
	struct cs_err e;

	ck_assert_int_eq(pgm_write_pixels(at("o.pgm"), px, 4, 2, &e), 0);
	got = slurp(at("o.pgm"), &len);
	ck_assert_uint_eq(len, 11 + 4);
	ck_assert_int_eq(memcmp(got, "P5\n2 2\n255\n\x00\x01\xfe\xff", len), 0);
	free(got);
	ck_assert_int_eq(pgm_write_pixels(at("o.pgm"), px, 4, 3, &e), -1);
	assert_error(e.msg, "o.pgm", ": 4 values do not make an image 3 pixels wide");
}
END_TEST

static Suite *suite_pgm(void)
{
	Suite *s = suite_create("pgm");
	TCase *tc = tcase_create("pgm");

	tcase_add_checked_fixture(tc, scratch_create, scratch_remove);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pgm_path_is_the_extension_in_any_case);
	tcase_add_test(tc, test_pgm_reads_raw_8_bit_with_comments_in_the_header);
	tcase_add_test(tc, test_pgm_reads_raw_16_bit_big_endian);
	tcase_add_test(tc, test_pgm_comment_may_end_the_maxval);
	tcase_add_test(tc, test_pgm_reads_plain_with_any_whitespace_and_comments);
	tcase_add_test(tc, test_pgm_every_scalar_kind_gets_the_pixel_values);
	tcase_add_test(tc, test_pgm_size_mismatch_says_both_counts);
	tcase_add_test(tc, test_pgm_other_magic_is_named);
	tcase_add_test(tc, test_pgm_size_reads_only_the_header);
	tcase_add_test(tc, test_pgm_header_errors);
	tcase_add_test(tc, test_pgm_truncated_and_bad_rasters);
	tcase_add_test(tc, test_pgm_missing_file_and_directory);
	tcase_add_test(tc, test_pgm_damaged_files_never_crash);
	tcase_add_test(tc, test_pgm_write_rounds_clamps_and_zeroes_nan);
	tcase_add_test(tc, test_pgm_write_integer_kinds);
	tcase_add_test(tc, test_pgm_write_then_read_round_trip);
	tcase_add_test(tc, test_pgm_large_rasters_over_cores);
	tcase_add_test(tc, test_pgm_bad_image_leaves_dst_untouched);
	tcase_add_test(tc, test_pgm_write_floats_of_every_kind);
	tcase_add_test(tc, test_pgm_write_needs_whole_rows);
	tcase_add_test(tc, test_pgm_write_failure_leaves_the_old_file);
	tcase_add_test(tc, test_pgm_write_keeps_permissions_and_follows_links);
	tcase_add_test(tc, test_pgm_dash_is_standard_input_and_output);
	tcase_add_test(tc, test_pgm_write_to_devices_in_place);
	tcase_add_test(tc, test_pgm_samples_are_the_raster_as_it_is);
	tcase_add_test(tc, test_pgm_write_pixels_as_they_are);
	suite_add_tcase(s, tc);
	return s;
}

/* Its own runner: the PGM module is built and tested apart from check_carsh. */
int main(void)
{
	SRunner *sr = srunner_create(suite_pgm());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
