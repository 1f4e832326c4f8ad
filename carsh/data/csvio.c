/*
 * Numeric CSV through libcsv. Input is read in fixed-size chunks and fed to libcsv in pieces
 * that end at newlines, so that an error in a field can name its line; memory stays bounded
 * whatever the input (a NUL byte or an endless field is refused where it starts, a stream
 * with a value too many is read no further). Output goes to a temporary file renamed over
 * the target.
 */
#include "data/csvio.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/path.h"

/* Bytes per read. */
#define READ_CHUNK 65536
/* Far longer than any number: a longer field is refused before libcsv has to hold it. */
#define FIELD_MAX 4096

/* Strict: a stray quote is an error, not a value. Fields always end in NUL for strtod. */
#define CSV_OPTIONS (CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL)

struct csv_reader {
	const char *name;
	enum scalar scalar;
	size_t size; /* bytes of one scalar */
	char *dst;
	size_t cap; /* values dst can hold */
	bool grow;  /* csvio_read_all: dst grows, else a value past cap is only counted */
	size_t count;
	size_t line; /* from 1 */
	size_t field;
	bool failed;
	bool bounded;     /* a regular file: a value too many is counted to its end */
	bool stop;        /* a stream has a value too many: read no further */
	bool line_ended;  /* the last piece fed ended its line */
	size_t field_len; /* bytes of the field being read, as feed_piece saw them */
	struct cs_err *e;
};

static int reader_grow(struct csv_reader *r)
{
	size_t cap = r->cap ? r->cap * 2 : 4096;
	size_t bytes;
	char *p;

	if (cap < r->cap || size_mul(cap, r->size, &bytes))
		return err_set(r->e, "%s: too many values", r->name);
	p = realloc(r->dst, bytes);
	if (!p)
		return err_set(r->e, "%s: cannot allocate %zu bytes for %zu values", r->name, bytes,
		               cap);
	r->dst = p;
	r->cap = cap;
	return 0;
}

static int reader_store(struct csv_reader *r, const char *text)
{
	if (number_parse(r->scalar, text ? text : "", r->dst + r->count * r->size, r->e) == 0)
		return 0;
	return err_prefix(r->e, "%s:%zu:%zu: ", r->name, r->line, r->field);
}

static void on_field(void *text, size_t len, void *data)
{
	struct csv_reader *r = data;

	(void)len; /* feed_piece let no NUL through, so strlen(text) == len */
	r->field++;
	if (r->failed)
		return;
	if (r->count >= r->cap && !r->grow) {
		/* Too many values: count the rest of a file for the message, store nothing; a
		 * stream (a pipe, /dev/zero) may never end, so it is read no further. ('>=': with
		 * '==' the second value too many was stored past the end of dst.) */
		r->count++;
		r->stop = !r->bounded;
		return;
	}
	if (r->count == r->cap && reader_grow(r)) {
		r->failed = true;
		return;
	}
	if (reader_store(r, text))
		r->failed = true;
	else
		r->count++;
}

static void on_record(int terminator, void *data)
{
	struct csv_reader *r = data;

	(void)terminator;
	r->field = 0;
}

/* The length of the piece before its first byte that no number can hold: a NUL, or the
 * byte that makes a field longer than FIELD_MAX. */
static size_t scan_piece(struct csv_reader *r, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\0')
			return i;
		if (s[i] == ',' || s[i] == '\n')
			r->field_len = 0;
		else if (++r->field_len > FIELD_MAX)
			return i;
	}
	return len;
}

/* The fields before the bad byte are parsed (one of them may be the error); the bad byte is
 * in field r->field + 1 of the line. */
static int bad_byte(struct csv_reader *r, char c)
{
	if (c == '\0')
		return err_set(r->e, "%s:%zu:%zu: field holds a NUL byte: not a number", r->name,
		               r->line, r->field + 1);
	return err_set(r->e, "%s:%zu:%zu: field longer than %d bytes: not a number", r->name,
	               r->line, r->field + 1, FIELD_MAX);
}

/* One line, or the part of it in this chunk, with its newline if it has one. */
static int feed_piece(struct csv_reader *r, struct csv_parser *p, const char *s, size_t len)
{
	size_t good = scan_piece(r, s, len);

	if (csv_parse(p, s, good, on_field, on_record, r) != good)
		return err_set(r->e, "%s:%zu: %s", r->name, r->line, csv_strerror(csv_error(p)));
	if (r->failed)
		return -1;
	return good < len && !r->stop ? bad_byte(r, s[good]) : 0;
}

/* Pieces that end at newlines, so that the line number holds for every field parsed. */
static int feed_chunk(struct csv_reader *r, struct csv_parser *p, const char *s, size_t len)
{
	int rc = 0;

	while (len > 0 && rc == 0 && !r->stop) {
		const char *nl = memchr(s, '\n', len);
		size_t piece = nl ? (size_t)(nl - s) + 1 : len;

		if (r->line_ended) {
			r->line++;
			r->line_ended = false;
		}
		rc = feed_piece(r, p, s, piece);
		r->line_ended = nl != NULL;
		s += piece;
		len -= piece;
	}
	return rc;
}

/* Fixed-size reads: a line of any length (a stream with no newline at all) costs no more
 * memory than its longest field. The end is read once: glibc's fread reads again after an
 * end of file, and at a terminal that asked for Ctrl-D twice. */
static int reader_feed(struct csv_reader *r, struct csv_parser *p, FILE *f)
{
	char *buf = xmalloc(READ_CHUNK);
	size_t n;
	int rc = 0;

	r->line_ended = true;
	clearerr(f);
	while (rc == 0 && !r->stop && !feof(f) && (n = fread(buf, 1, READ_CHUNK, f)) > 0)
		rc = feed_chunk(r, p, buf, n);
	if (rc == 0 && !r->stop && ferror(f))
		rc = err_errno(r->e, "%s", r->name);
	free(buf);
	return rc;
}

/* A regular file, or a stream in memory (no descriptor): it ends, so reading on costs no
 * more than its size. */
static bool is_finite(FILE *f)
{
	struct stat st;
	int fd = fileno(f);

	return fd < 0 || (fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
}

static int reader_run(struct csv_reader *r, FILE *f)
{
	struct csv_parser p;
	int rc;

	r->bounded = is_finite(f);
	if (csv_init(&p, CSV_OPTIONS) != 0)
		return err_set(r->e, "%s: cannot start the CSV parser: out of memory", r->name);
	rc = reader_feed(r, &p, f);
	if (rc == 0 && !r->stop && csv_fini(&p, on_field, on_record, r) != 0)
		rc = err_set(r->e, "%s:%zu: %s", r->name, r->line, csv_strerror(csv_error(&p)));
	csv_free(&p);
	return rc == 0 && r->failed ? -1 : rc;
}

int csvio_read_stream(FILE *f, const char *name, enum scalar s, void *dst, size_t n,
                      struct cs_err *e)
{
	struct csv_reader r = {
	        .name = name,
	        .scalar = s,
	        .size = scalar_size(s),
	        .dst = dst,
	        .cap = n,
	        .e = e,
	};

	if (reader_run(&r, f))
		return -1;
	if (r.stop)
		return err_set(e, "%s: more than %zu value%s, expected %zu", name, n,
		               n == 1 ? "" : "s", n);
	if (r.count != n)
		return err_set(e, "%s: %zu value%s, expected %zu", name, r.count,
		               r.count == 1 ? "" : "s", n);
	return 0;
}

/* Runs fn on the opened file; "-" is standard input. */
static int with_input(const char *path, int (*fn)(FILE *f, const char *name, void *arg), void *arg,
                      struct cs_err *e)
{
	FILE *f;
	int rc;

	if (path_is_stdio(path))
		return fn(stdin, "<stdin>", arg);
	f = fopen(path, "re");
	if (!f)
		return err_errno(e, "%s", path);
	rc = fn(f, path, arg);
	fclose(f);
	return rc;
}

struct read_args {
	enum scalar scalar;
	void *dst;
	size_t n;
	struct cs_err *e;
};

static int read_fixed(FILE *f, const char *name, void *arg)
{
	struct read_args *a = arg;

	return csvio_read_stream(f, name, a->scalar, a->dst, a->n, a->e);
}

int csvio_read(const char *path, enum scalar s, void *dst, size_t n, struct cs_err *e)
{
	struct read_args a = {s, dst, n, e};

	return with_input(path, read_fixed, &a, e);
}

static int read_growing(FILE *f, const char *name, void *arg)
{
	struct read_args *a = arg;
	struct csv_reader r = {
	        .name = name,
	        .scalar = a->scalar,
	        .size = scalar_size(a->scalar),
	        .grow = true,
	        .e = a->e,
	};
	char *shrunk;

	if (reader_run(&r, f)) {
		free(r.dst);
		return -1;
	}
	/* Give back the unused half of the last doubling; keep the array if that fails. */
	shrunk = realloc(r.dst, r.count ? r.count * r.size : 1);
	a->dst = shrunk ? shrunk : r.dst;
	a->n = r.count;
	return 0;
}

int csvio_read_all(const char *path, enum scalar s, void **dst, size_t *n, struct cs_err *e)
{
	struct read_args a = {s, NULL, 0, e};

	if (with_input(path, read_growing, &a, e))
		return -1;
	*dst = a.dst;
	*n = a.n;
	return 0;
}

int csvio_write_stream(FILE *f, const char *name, enum scalar s, const void *src, size_t n,
                       size_t columns, struct cs_err *e)
{
	const char *p = src;
	size_t size = scalar_size(s);
	char buf[NUMBER_BUF + 1];

	if (columns == 0)
		columns = 1;
	for (size_t i = 0; i < n; i++) {
		size_t len = (size_t)number_format(s, p + i * size, buf, NUMBER_BUF);

		buf[len++] = (i + 1) % columns == 0 || i + 1 == n ? '\n' : ',';
		if (fwrite(buf, 1, len, f) != len)
			return err_errno(e, "%s", name);
	}
	return file_flush(f, name, e);
}

struct csv_out {
	enum scalar s;
	const void *src;
	size_t n;
	size_t columns;
};

static int write_values(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct csv_out *o = arg;

	return csvio_write_stream(f, name, o->s, o->src, o->n, o->columns, e);
}

int csvio_write(const char *path, enum scalar s, const void *src, size_t n, size_t columns,
                struct cs_err *e)
{
	struct csv_out o = {s, src, n, columns};

	return atomic_write(path, write_values, &o, e);
}
