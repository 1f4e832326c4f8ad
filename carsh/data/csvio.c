/*
 * Numeric CSV through libcsv. Input is fed to libcsv one line at a time, so that an error in a
 * field can name its line; output goes to a temporary file renamed over the target.
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

static int reader_store(struct csv_reader *r, const char *text, size_t len)
{
	if (!text)
		text = "";
	/* number_parse() stops at a NUL, which would hide what follows it. */
	if (strlen(text) != len)
		err_set(r->e, "field holds a NUL byte: not a number");
	else if (number_parse(r->scalar, text, r->dst + r->count * r->size, r->e) == 0)
		return 0;
	return err_prefix(r->e, "%s:%zu:%zu: ", r->name, r->line, r->field);
}

static void on_field(void *text, size_t len, void *data)
{
	struct csv_reader *r = data;

	r->field++;
	if (r->failed)
		return;
	if (r->count >= r->cap && !r->grow) {
		/* Too many values: count the rest for the message, store nothing. ('>=': with '=='
		 * the second value too many was stored past the end of dst.) */
		r->count++;
		return;
	}
	if (r->count == r->cap && reader_grow(r)) {
		r->failed = true;
		return;
	}
	if (reader_store(r, text, len))
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

static int reader_feed(struct csv_reader *r, struct csv_parser *p, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;

	while (!r->failed && (len = getline(&line, &cap, f)) > 0) {
		r->line++;
		if (csv_parse(p, line, (size_t)len, on_field, on_record, r) != (size_t)len) {
			rc = err_set(r->e, "%s:%zu: %s", r->name, r->line,
			             csv_strerror(csv_error(p)));
			break;
		}
	}
	if (rc == 0 && !r->failed && ferror(f))
		rc = err_errno(r->e, "%s", r->name);
	free(line);
	return r->failed ? -1 : rc;
}

static int reader_run(struct csv_reader *r, FILE *f)
{
	struct csv_parser p;
	int rc;

	if (csv_init(&p, CSV_OPTIONS) != 0)
		return err_set(r->e, "%s: cannot start the CSV parser: out of memory", r->name);
	rc = reader_feed(r, &p, f);
	if (rc == 0 && csv_fini(&p, on_field, on_record, r) != 0)
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
