/*
 * PGM images after netpbm's pgm(5): "P2" (plain: pixels as decimal text) or "P5" (raw: one
 * byte per pixel, or two big-endian bytes when maxval > 255), then width, height and maxval
 * as decimal numbers separated by whitespace (blank, TAB, CR, LF, VT, FF). A '#' starts a
 * comment that runs to the end of the line and counts as whitespace; as in libnetpbm, a
 * comment may also end the maxval, in which case the raster starts after the comment's
 * newline. Otherwise exactly one whitespace character separates the maxval from a P5
 * raster. Plain rasters are numbers separated by whitespace (and comments, which netpbm
 * tolerates there too). Anything after the last pixel is ignored, as netpbm's programs do
 * with files that hold several images.
 *
 * Writing makes an 8-bit P5 file through a temporary file and a rename, like csvio_write.
 */
#include "data/pgm.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "data/pixels.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/parcopy.h"
#include "util/path.h"

/* Larger dimensions than this are refused before anything is allocated or multiplied. */
#define PGM_DIM_MAX 1000000000L
#define PGM_MAXVAL  65535L

bool pgm_path(const char *path)
{
	size_t len = strlen(path);

	return len >= 4 && strcasecmp(path + len - 4, ".pgm") == 0;
}

/* ---- reading ---- */

struct pgm_reader {
	FILE *f;
	const char *name;
	enum scalar scalar;
	unsigned char *dst;
	size_t size; /* bytes of one scalar */
	long maxval;
	long width, height;
	struct cs_err *e;
};

static bool pgm_space(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Skip to the end of a comment line (the newline is consumed); returns the newline or EOF. */
static int skip_comment(FILE *f)
{
	int ch;

	while ((ch = getc(f)) != EOF && ch != '\n' && ch != '\r')
		;
	return ch;
}

/* A character for a message: printable as itself, anything else as \xNN. */
static const char *shown(int ch, char buf[8])
{
	if (ch >= 0x20 && ch < 0x7f)
		snprintf(buf, 8, "%c", ch);
	else
		snprintf(buf, 8, "\\x%02x", (unsigned)ch & 0xffu);
	return buf;
}

static int read_error(struct pgm_reader *r, const char *what)
{
	if (ferror(r->f))
		return err_errno(r->e, "%s", r->name);
	return err_set(r->e, "%s: truncated: the file ends %s", r->name, what);
}

/*
 * The next decimal number of the header or of a plain raster, after whitespace and
 * comments, into *v; it must not exceed max. The character that ends the number is
 * consumed, and must be whitespace, a comment (skipped through its newline), or the end of
 * the file when eof_ok. `what` names the number for messages ("the width", "pixel 7").
 */
static int read_number(struct pgm_reader *r, const char *what, long max, bool eof_ok, long *v)
{
	char buf[8];
	int ch;

	do {
		ch = getc(r->f);
		if (ch == '#')
			ch = skip_comment(r->f) == EOF ? EOF : ' ';
	} while (pgm_space(ch));
	if (ch == EOF) {
		char where[80];

		snprintf(where, sizeof(where), "before %s", what);
		return read_error(r, where);
	}
	if (ch < '0' || ch > '9')
		return err_set(r->e, "%s: %s: '%s' where a number was expected", r->name, what,
		               shown(ch, buf));
	*v = 0;
	for (; ch >= '0' && ch <= '9'; ch = getc(r->f)) {
		*v = *v * 10 + (ch - '0');
		if (*v > max)
			return err_set(r->e, "%s: %s is larger than %ld", r->name, what, max);
	}
	if (ch == '#')
		ch = skip_comment(r->f) == EOF ? EOF : ' ';
	if (ch == EOF && (!eof_ok || ferror(r->f)))
		return read_error(r, "in the header");
	if (ch != EOF && !pgm_space(ch))
		return err_set(r->e, "%s: %s: '%s' after the number %ld", r->name, what,
		               shown(ch, buf), *v);
	return 0;
}

static int read_magic(struct pgm_reader *r, bool *raw)
{
	int a = getc(r->f), b = a == EOF ? EOF : getc(r->f);
	char sa[8], sb[8];

	if (a == EOF && ferror(r->f))
		return err_errno(r->e, "%s", r->name);
	if (a == EOF)
		return err_set(r->e, "%s: empty file: not a PGM image", r->name);
	if (b == EOF)
		return read_error(r, "after one byte");
	if (a != 'P' || (b != '2' && b != '5'))
		return err_set(r->e, "%s: not a PGM image (magic '%s%s'; expected P2 or P5)",
		               r->name, shown(a, sa), shown(b, sb));
	*raw = b == '5';
	return 0;
}

/* The largest pixel value each scalar kind can hold (PGM values are never negative). */
static long scalar_pixel_max(enum scalar s)
{
	switch (s) {
	case SC_CHAR:
		return INT8_MAX;
	case SC_UCHAR:
		return UINT8_MAX;
	case SC_SHORT:
		return INT16_MAX;
	default:
		return PGM_MAXVAL;
	}
}

/* Pixel i may be stored as one scalar of the reader's kind. */
static int check_pixel(struct pgm_reader *r, size_t i, long v)
{
	if (v > r->maxval)
		return err_set(
		        r->e, "%s: pixel %zu (row %zu, column %zu) is %ld, above the maxval %ld",
		        r->name, i, i / (size_t)r->width, i % (size_t)r->width, v, r->maxval);
	if (v > scalar_pixel_max(r->scalar))
		return err_set(r->e, "%s: pixel %zu is %ld, which does not fit in %s", r->name, i,
		               v, scalar_name(r->scalar));
	return 0;
}

/* Plain values are checked and kept as 16-bit samples; dst is written once all are good. */
static int read_plain(struct pgm_reader *r, size_t n)
{
	unsigned char *buf = data_alloc(n, 2, r->name, r->e);
	char what[64];
	long v;
	int rc = buf ? 0 : -1;

	for (size_t i = 0; i < n && rc == 0; i++) {
		snprintf(what, sizeof(what), "pixel %zu of %zu", i, n);
		rc = read_number(r, what, PGM_MAXVAL, true, &v) || check_pixel(r, i, v) ? -1 : 0;
		if (rc == 0) {
			buf[2 * i] = (unsigned char)(v >> 8);
			buf[2 * i + 1] = (unsigned char)(v & 0xff);
		}
	}
	if (rc == 0)
		pixels_from_samples(r->scalar, buf, 2, n, r->dst);
	free(buf);
	return rc;
}

/* The raster of a regular file in place: the file mapped read-only and populated (the page
 * cache as it is, no copy and no fault a page), when it holds all `want` bytes after the
 * header; NULL otherwise, and the raster is read instead (which also words a truncation). */
static const unsigned char *map_raster(struct pgm_reader *r, size_t want, void **base, size_t *len)
{
	struct stat st;
	off_t at = ftello(r->f);
	void *p;

	if (at < 0 || fstat(fileno(r->f), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (size_t)(st.st_size - at) < want)
		return NULL;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(r->f), 0);
	if (p == MAP_FAILED)
		return NULL;
	*base = p;
	*len = (size_t)st.st_size;
	return (const unsigned char *)p + at;
}

/* got samples checked over the cores, then converted into dst: a sample out of range is
 * reported as check_pixel() words it, before a truncation after it, and dst is written only
 * when the whole raster is good. */
static int check_convert(struct pgm_reader *r, const unsigned char *buf, size_t bps, size_t got,
                         size_t n, bool convert)
{
	long limit =
	        r->maxval < scalar_pixel_max(r->scalar) ? r->maxval : scalar_pixel_max(r->scalar);
	size_t bad = pixels_first_above(buf, bps, got, limit);

	if (bad < got)
		return check_pixel(
		        r, bad, bps == 2 ? (long)buf[2 * bad] << 8 | buf[2 * bad + 1] : buf[bad]);
	if (got < n && ferror(r->f))
		return err_errno(r->e, "%s", r->name);
	if (got < n)
		return err_set(r->e, "%s: truncated: %zu of %zu pixels", r->name, got, n);
	if (convert)
		pixels_from_samples(r->scalar, buf, bps, n, r->dst);
	return 0;
}

static int read_raw(struct pgm_reader *r, size_t n)
{
	size_t bps = r->maxval > 255 ? 2 : 1; /* bytes per sample */
	void *base = NULL;
	size_t len = 0;
	const unsigned char *mapped = map_raster(r, n * bps, &base, &len);
	unsigned char *buf;
	int rc;

	if (mapped) {
		rc = check_convert(r, mapped, bps, n, n, true);
		munmap(base, len);
		return rc;
	}
	buf = data_alloc(n, bps, r->name, r->e);
	if (!buf)
		return -1;
	rc = check_convert(r, buf, bps, fread(buf, bps, n, r->f), n, true);
	free(buf);
	return rc;
}

/* The header up to the raster: *raw for P5; the image must have n pixels. */
static int read_header(struct pgm_reader *r, size_t n, bool *raw, size_t *width, size_t *height)
{
	size_t pixels;

	if (read_magic(r, raw))
		return -1;
	if (read_number(r, "the width", PGM_DIM_MAX, false, &r->width) ||
	    read_number(r, "the height", PGM_DIM_MAX, false, &r->height) ||
	    read_number(r, "the maxval", PGM_MAXVAL, !*raw, &r->maxval))
		return -1;
	if (width)
		*width = (size_t)r->width;
	if (height)
		*height = (size_t)r->height;
	if (r->width == 0 || r->height == 0)
		return err_set(r->e, "%s: the image is %ldx%ld: it has no pixels", r->name,
		               r->width, r->height);
	if (r->maxval == 0)
		return err_set(r->e, "%s: maxval 0 is out of range (1..%ld)", r->name, PGM_MAXVAL);
	if (size_mul((size_t)r->width, (size_t)r->height, &pixels) || pixels != n)
		return err_set(r->e, "%s: %ldx%ld = %.0f pixels, expected %zu", r->name, r->width,
		               r->height, (double)r->width * (double)r->height, n);
	return 0;
}

static int read_image(struct pgm_reader *r, size_t n, size_t *width, size_t *height)
{
	bool raw = false;

	if (read_header(r, n, &raw, width, height))
		return -1;
	return raw ? read_raw(r, n) : read_plain(r, n);
}

/* The checked 8-bit raster copied as it is: mapped when the file holds it all, else read. */
static int copy_samples(struct pgm_reader *r, size_t n,
                        unsigned char *(*dst)(void *, struct cs_err *), void *arg)
{
	void *base = NULL;
	size_t len = 0;
	const unsigned char *mapped = map_raster(r, n, &base, &len);
	unsigned char *buf = mapped ? NULL : data_alloc(n, 1, r->name, r->e);
	size_t got = n;
	int rc = -1;

	if (!mapped && buf)
		got = fread(buf, 1, n, r->f);
	if ((mapped || buf) && check_convert(r, mapped ? mapped : buf, 1, got, n, false) == 0) {
		unsigned char *to = dst(arg, r->e);

		if (to) {
			par_memcpy(to, mapped ? mapped : buf, n, 0);
			rc = 0;
		}
	}
	if (mapped)
		munmap(base, len);
	free(buf);
	return rc;
}

int pgm_read_samples(const char *path, enum scalar s, size_t n,
                     unsigned char *(*dst)(void *arg, struct cs_err *e), void *arg,
                     struct cs_err *e)
{
	struct pgm_reader r = {.name = path, .scalar = s, .size = scalar_size(s), .e = e};
	bool raw = false;
	int rc;

	r.f = fopen(path, "rbe");
	if (!r.f)
		return err_errno(e, "%s", path);
	rc = read_header(&r, n, &raw, NULL, NULL);
	if (rc == 0 && (!raw || r.maxval > 255))
		rc = 1;
	else if (rc == 0)
		rc = copy_samples(&r, n, dst, arg);
	fclose(r.f);
	return rc;
}

int pgm_read_stream(FILE *f, const char *name, enum scalar s, void *dst, size_t n, size_t *width,
                    size_t *height, struct cs_err *e)
{
	struct pgm_reader r = {
	        .f = f,
	        .name = name,
	        .scalar = s,
	        .dst = dst,
	        .size = scalar_size(s),
	        .e = e,
	};

	return read_image(&r, n, width, height);
}

int pgm_read(const char *path, enum scalar s, void *dst, size_t n, size_t *width, size_t *height,
             struct cs_err *e)
{
	struct pgm_reader r = {
	        .name = path,
	        .scalar = s,
	        .dst = dst,
	        .size = scalar_size(s),
	        .e = e,
	};
	int rc;

	if (path_is_stdio(path))
		return pgm_read_stream(stdin, "<stdin>", s, dst, n, width, height, e);
	r.f = fopen(path, "rbe");
	if (!r.f)
		return err_errno(e, "%s", path);
	rc = read_image(&r, n, width, height);
	fclose(r.f);
	return rc;
}

int pgm_size(const char *path, size_t *width, size_t *height, struct cs_err *e)
{
	struct pgm_reader r = {.name = path, .e = e};
	bool raw = false;
	int rc;

	r.f = fopen(path, "rbe");
	if (!r.f)
		return err_errno(e, "%s", path);
	rc = read_magic(&r, &raw) || read_number(&r, "the width", PGM_DIM_MAX, false, &r.width) ||
	     read_number(&r, "the height", PGM_DIM_MAX, false, &r.height);
	fclose(r.f);
	if (rc)
		return -1;
	if (r.width == 0 || r.height == 0)
		return err_set(e, "%s: the image is %ldx%ld: it has no pixels", path, r.width,
		               r.height);
	*width = (size_t)r.width;
	*height = (size_t)r.height;
	return 0;
}

/* ---- writing ---- */

static int write_bytes(FILE *f, const char *name, const unsigned char *bytes, size_t n,
                       size_t width, struct cs_err *e)
{
	if (fprintf(f, "P5\n%zu %zu\n255\n", width, n / width) < 0 || fwrite(bytes, 1, n, f) != n)
		return err_errno(e, "%s", name);
	return file_flush(f, name, e);
}

/* The pixels are converted over the cores, then written at once. */
static int write_stream(FILE *f, const char *name, enum scalar s, const void *src, size_t n,
                        size_t width, struct cs_err *e)
{
	unsigned char *buf = data_alloc(n, 1, name, e);
	int rc;

	if (!buf)
		return -1;
	pixels_to_bytes(s, src, n, buf);
	rc = write_bytes(f, name, buf, n, width, e);
	free(buf);
	return rc;
}

struct pgm_out {
	enum scalar s;
	const void *src;
	size_t n;
	size_t width;
	bool bytes; /* src holds the pixels already */
};

static int write_image(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct pgm_out *o = arg;

	if (o->bytes)
		return write_bytes(f, name, o->src, o->n, o->width, e);
	return write_stream(f, name, o->s, o->src, o->n, o->width, e);
}

static int check_width(const char *name, size_t n, size_t width, struct cs_err *e)
{
	if (width == 0 || n == 0 || n % width != 0)
		return err_set(e, "%s: %zu values do not make an image %zu pixels wide", name, n,
		               width);
	return 0;
}

int pgm_write(const char *path, enum scalar s, const void *src, size_t n, size_t width,
              struct cs_err *e)
{
	struct pgm_out o = {s, src, n, width, false};

	if (check_width(path, n, width, e))
		return -1;
	return atomic_write(path, write_image, &o, e);
}

int pgm_write_pixels(const char *path, const unsigned char *pixels, size_t n, size_t width,
                     struct cs_err *e)
{
	struct pgm_out o = {SC_UCHAR, pixels, n, width, true};

	if (check_width(path, n, width, e))
		return -1;
	return atomic_write(path, write_image, &o, e);
}

int pgm_write_stream(FILE *f, const char *name, enum scalar s, const void *src, size_t n,
                     size_t width, struct cs_err *e)
{
	if (check_width(name, n, width, e))
		return -1;
	return write_stream(f, name, s, src, n, width, e);
}
