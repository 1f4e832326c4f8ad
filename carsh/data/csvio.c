/*
 * Numeric CSV. A regular file (standard input too) is mapped from where its stream stands
 * and parsed over the cores by the fast path (data/csvfast.c), straight into the values'
 * array; where it declines (a quote, an empty field, a bad value, another count), the file is
 * read again as a stream. A stream is read in fixed-size chunks cut at newlines:
 * each plain line goes through the fast path, any other through libcsv, so that an error in
 * a field names its line; memory stays bounded whatever the input (a NUL byte or an endless
 * field is refused where it starts, a stream with a value too many is read no further).
 * Values within a field may be separated by blanks (numpy.savetxt). Output is formatted
 * over the cores, one round of blocks while a thread writes the round before, to a
 * temporary file renamed over the target.
 */
#include "data/csvio.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "data/csvfast.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/parcopy.h"
#include "util/parrun.h"
#include "util/path.h"

/* Bytes per read: lines longer than this go to libcsv in pieces. */
#define READ_CHUNK ((size_t)8 << 20)
/* The first read: most files are small. */
#define READ_FIRST ((size_t)64 << 10)
/* Values formatted per buffer on output, and the fewest worth a thread. */
#define WRITE_BLOCK  4096
#define WRITE_THREAD ((size_t)1 << 18)
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
	bool quoted;      /* a quote was seen: libcsv reads the rest (a field may span lines) */
	bool mid_record;  /* libcsv holds part of a line */
	bool general;     /* csvio_read_general: libcsv reads every line */
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

static void store_one(struct csv_reader *r, const char *text)
{
	r->field++;
	if (r->failed)
		return;
	/* Before the count: "1,2,3," is three values and a stray ',', not four values. */
	if (text && !text[0]) {
		err_set(r->e, "%s:%zu:%zu: empty value: values are separated by one ',' or blanks",
		        r->name, r->line, r->field);
		r->failed = true;
		return;
	}
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

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* One blank-separated value as a string: on the stack, or copied to the heap when longer
 * (a quoted field may hold commas and newlines, which scan_piece() does not count past). */
static void store_token(struct csv_reader *r, const char *tok, size_t len)
{
	char one[FIELD_MAX + 1];
	char *text = len <= FIELD_MAX ? one : xstrndup(tok, len);

	memcpy(text, tok, len);
	text[len] = '\0';
	store_one(r, text);
	if (text != one)
		free(text);
}

/* A field holds one value, or several separated by blanks; an empty field is stored as ""
 * for number_parse() to refuse. */
static void on_field(void *text, size_t len, void *data)
{
	struct csv_reader *r = data;
	const char *p = text, *end = p + len; /* feed_piece let no NUL through */
	bool any = false;

	for (;;) {
		const char *tok;

		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			break;
		tok = p;
		while (p < end && !is_blank(*p))
			p++;
		store_token(r, tok, (size_t)(p - tok));
		any = true;
	}
	if (!any)
		store_one(r, "");
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
		if (s[i] == ',' || s[i] == '\n' || is_blank(s[i]))
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

/* Room for the values of a line of len bytes past r->count: grown when r->grow. */
static size_t line_room(struct csv_reader *r, size_t len)
{
	size_t want = r->count + csvfast_room(len);

	while (r->grow && r->cap < want) {
		if (reader_grow(r))
			return 0;
	}
	return r->count < r->cap ? r->cap - r->count : 0;
}

/* A whole plain line through the fast path: true when done. */
static bool fast_piece(struct csv_reader *r, const char *s, size_t len, bool whole)
{
	size_t room;
	long got;

	if (!whole || r->quoted || r->mid_record || r->general)
		return false;
	room = line_room(r, len);
	got = room ? csvfast_line(r->scalar, s, len, r->dst + r->count * r->size, room) : -1;
	if (got < 0)
		return false;
	r->count += (size_t)got;
	r->field_len = 0;
	return true;
}

/* Whole lines of a stream parsed over the cores (csvfast_into) when they are all plain and
 * fit: true when done, with the line count moved on as feed_chunk would. */
static bool fast_chunk(struct csv_reader *r, const char *s, size_t len)
{
	size_t lines, got, room;

	if (r->quoted || r->mid_record || r->general || !r->line_ended || len < READ_CHUNK / 4)
		return false;
	room = line_room(r, len);
	/* Too many values: the line-by-line reader counts them and says so. */
	if (csvfast_into(r->scalar, s, len, r->dst + r->count * r->size, room, &got, &lines) != 0)
		return false;
	r->count += got;
	r->line += lines + (s[len - 1] != '\n');
	r->line_ended = s[len - 1] == '\n';
	r->field_len = 0;
	return true;
}

/* Pieces that end at newlines, so that the line number holds for every field parsed; the
 * last piece is a whole line when the input ends there. */
static int feed_chunk(struct csv_reader *r, struct csv_parser *p, const char *s, size_t len,
                      bool at_end)
{
	int rc = 0;

	if (len > 0 && fast_chunk(r, s, len))
		return 0;
	while (len > 0 && rc == 0 && !r->stop) {
		const char *nl = memchr(s, '\n', len);
		size_t piece = nl ? (size_t)(nl - s) + 1 : len;

		if (r->line_ended) {
			r->line++;
			r->line_ended = false;
		}
		if (!fast_piece(r, s, nl ? piece - 1 : piece, nl || at_end)) {
			r->quoted = r->quoted || memchr(s, '"', piece);
			rc = feed_piece(r, p, s, piece);
			r->mid_record = !nl;
		}
		r->line_ended = nl != NULL;
		s += piece;
		len -= piece;
	}
	return rc;
}

/* Fixed-size reads cut after their last newline (the rest is kept for the next): a line of
 * any length (a stream with no newline at all) costs no more memory than READ_CHUNK and its
 * longest field. The end is read once (a short read ends the loop): glibc's fread reads
 * again after an end of file, and at a terminal that asked for Ctrl-D twice. */
static int reader_feed(struct csv_reader *r, struct csv_parser *p, FILE *f)
{
	size_t cap = READ_FIRST, have = 0;
	char *buf = xmalloc(cap);
	int rc = 0;

	r->line_ended = true;
	clearerr(f);
	while (rc == 0 && !r->stop) {
		size_t n = fread(buf + have, 1, cap - have, f);
		bool at_end = n < cap - have;
		const char *nl;
		size_t cut;

		have += n;
		if (have == 0)
			break;
		nl = memrchr(buf, '\n', have);
		cut = nl && !at_end ? (size_t)(nl - buf) + 1 : have;
		rc = feed_chunk(r, p, buf, cut, at_end);
		memmove(buf, buf + cut, have - cut);
		have -= cut;
		if (at_end)
			break;
		if (cap < READ_CHUNK) /* a long stream: larger reads, up to READ_CHUNK */
			buf = xrealloc(buf, cap *= 2);
	}
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

static int read_stream(FILE *f, const char *name, enum scalar s, void *dst, size_t n, bool general,
                       struct cs_err *e)
{
	struct csv_reader r = {
	        .name = name,
	        .scalar = s,
	        .size = scalar_size(s),
	        .dst = dst,
	        .cap = n,
	        .general = general,
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

int csvio_read_general(FILE *f, const char *name, enum scalar s, void *dst, size_t n,
                       struct cs_err *e)
{
	return read_stream(f, name, s, dst, n, true, e);
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

/* The rest of a regular file from the stream's position, mapped. */
struct file_rest {
	void *map;
	size_t map_len;
	const char *text;
	size_t len;
	off_t end; /* the file's size */
};

/* 0 with r mapped, or -1 when f is not a regular file with bytes left, or cannot be mapped. */
static int map_rest(FILE *f, struct file_rest *r)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = fileno(f);
	struct stat st;
	off_t at, base;

	if (fd < 0 || page <= 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	at = ftello(f); /* where the stream is, whatever its buffer holds */
	if (at < 0 || st.st_size <= at || (uintmax_t)(st.st_size - at) > SIZE_MAX / 2)
		return -1;
	base = at - at % page;
	r->map_len = (size_t)(st.st_size - base);
	r->map = mmap(NULL, r->map_len, PROT_READ, MAP_PRIVATE, fd, base);
	if (r->map == MAP_FAILED)
		return -1;
	r->text = (const char *)r->map + (at - base);
	r->len = (size_t)(st.st_size - at);
	r->end = st.st_size;
	return 0;
}

/* The stream moved past what was parsed from its mapping, as reading it would have. */
static void unmap_rest(FILE *f, struct file_rest *r, bool consumed)
{
	munmap(r->map, r->map_len);
	if (consumed)
		fseeko(f, r->end, SEEK_SET);
}

/* The rest of a regular file (standard input too) mapped and parsed over the cores: 0 with
 * *vals allocated, or -1 when the general reader must read it (it is not a regular file,
 * cannot be mapped, or some line is not plain); then the stream's position is left alone. */
static int read_mapped(FILE *f, enum scalar s, void **vals, size_t *n)
{
	struct file_rest r;
	int rc;

	if (map_rest(f, &r))
		return -1;
	rc = csvfast_all(s, r.text, r.len, vals, n, NULL);
	unmap_rest(f, &r, rc == 0);
	return rc;
}

/* The same straight into dst when the rest holds exactly n values: 0 when done. */
static int read_mapped_exact(FILE *f, enum scalar s, void *dst, size_t n)
{
	struct file_rest r;
	size_t got, lines;
	int rc;

	if (map_rest(f, &r))
		return -1;
	rc = csvfast_into(s, r.text, r.len, dst, n, &got, &lines) == 0 && got == n ? 0 : -1;
	unmap_rest(f, &r, rc == 0);
	return rc;
}

struct read_args {
	enum scalar scalar;
	void *dst;
	size_t n;
	struct cs_err *e;
	size_t lines_before; /* read_growing: lines of the input before this text */
};

/* Another count falls to the stream reader, which says how many in its own words. */
static int read_fixed(FILE *f, const char *name, void *arg)
{
	struct read_args *a = arg;

	if (read_mapped_exact(f, a->scalar, a->dst, a->n) == 0)
		return 0;
	return read_stream(f, name, a->scalar, a->dst, a->n, false, a->e);
}

int csvio_read_stream(FILE *f, const char *name, enum scalar s, void *dst, size_t n,
                      struct cs_err *e)
{
	struct read_args a = {s, dst, n, e, 0};

	return read_fixed(f, name, &a);
}

int csvio_read(const char *path, enum scalar s, void *dst, size_t n, struct cs_err *e)
{
	struct read_args a = {s, dst, n, e, 0};

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
	        .line = a->lines_before,
	        .e = a->e,
	};
	char *shrunk;

	if (read_mapped(f, a->scalar, &a->dst, &a->n) == 0)
		return 0;
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
	struct read_args a = {s, NULL, 0, e, 0};

	if (with_input(path, read_growing, &a, e))
		return -1;
	*dst = a.dst;
	*n = a.n;
	return 0;
}

int csvio_read_all_stream(FILE *f, const char *name, enum scalar s, void **dst, size_t *n,
                          struct cs_err *e)
{
	return csvio_read_all_after(f, name, 0, s, dst, n, e);
}

int csvio_read_all_after(FILE *f, const char *name, size_t lines_before, enum scalar s, void **dst,
                         size_t *n, struct cs_err *e)
{
	struct read_args a = {s, NULL, 0, e, lines_before};

	if (read_growing(f, name, &a))
		return -1;
	*dst = a.dst;
	*n = a.n;
	return 0;
}

/* Values [from, to) of n as text: each followed by ',' or, at the end of a row, '\n'. */
struct write_part {
	enum scalar s;
	const char *src;
	size_t from, to, n, columns;
	char *buf; /* (to - from) * (NUMBER_BUF + 1) bytes */
	size_t len;
};

static void *format_part(void *arg)
{
	struct write_part *w = arg;
	size_t size = scalar_size(w->s);
	char *o = w->buf;

	for (size_t i = w->from; i < w->to; i++) {
		o += number_format(w->s, w->src + i * size, o, NUMBER_BUF);
		*o++ = (i + 1) % w->columns == 0 || i + 1 == w->n ? '\n' : ',';
	}
	w->len = (size_t)(o - w->buf);
	return NULL;
}

/* One round's texts written in order, on a thread of its own while the next round is
 * formatted; errno of a failed write kept for the caller's message. */
struct write_round {
	FILE *f;
	struct write_part *parts;
	size_t used;
	int err; /* 0, or the failed write's errno */
	pthread_t th;
	bool started;
};

static void *write_round(void *arg)
{
	struct write_round *w = arg;

	for (size_t i = 0; i < w->used && !w->err; i++)
		if (fwrite(w->parts[i].buf, 1, w->parts[i].len, w->f) != w->parts[i].len)
			w->err = errno ? errno : EIO;
	return NULL;
}

/* The round written (waited for where its thread runs): 0, or -1 with e. */
static int round_done(struct write_round *w, const char *name, struct cs_err *e)
{
	if (w->started)
		pthread_join(w->th, NULL);
	w->started = false;
	if (!w->err)
		return 0;
	errno = w->err;
	return err_errno(e, "%s", name);
}

/* Rounds of one block a thread, formatted together; a round is written while the next is
 * formatted (into the other half of parts: 2 * k of them). */
static int write_rounds(FILE *f, const char *name, struct write_part *parts, size_t k, size_t block,
                        struct cs_err *e)
{
	size_t n = parts[0].n, half = 0;
	struct write_round w = {.f = f};
	int rc = 0;

	for (size_t at = 0; at < n && rc == 0; at += k * block, half ^= 1) {
		struct write_part *p = parts + half * k;
		size_t used = 0;

		for (size_t i = 0; i < k && at + i * block < n; i++, used++) {
			p[i].from = at + i * block;
			p[i].to = p[i].from + block < n ? p[i].from + block : n;
		}
		par_run(format_part, p, sizeof(p[0]), used);
		rc = round_done(&w, name, e);
		w.parts = p;
		w.used = used;
		/* one thread formats a small output: it writes too, as a thread costs more */
		w.started = rc == 0 && k > 1 && pthread_create(&w.th, NULL, write_round, &w) == 0;
		if (rc == 0 && !w.started)
			write_round(&w);
	}
	return round_done(&w, name, e) ? -1 : rc;
}

int csvio_write_stream(FILE *f, const char *name, enum scalar s, const void *src, size_t n,
                       size_t columns, struct cs_err *e)
{
	struct write_part parts[2 * PARRUN_MAX];
	size_t k = n >= 2 * WRITE_THREAD ? par_parts(n, WRITE_THREAD) : 1;
	size_t block = k > 1 ? WRITE_THREAD / 4 : WRITE_BLOCK;
	int rc;

	/* A small output's buffers hold it, not a block: two of 168 KiB for one value cost a
	 * dump of a flag more than its writing (their pages taken and given back each time). */
	if (n && n < block)
		block = n;

	for (size_t i = 0; i < 2 * k; i++)
		parts[i] = (struct write_part){.s = s,
		                               .src = src,
		                               .n = n,
		                               .columns = columns ? columns : 1,
		                               .buf = xmalloc(block * (NUMBER_BUF + 1))};
	rc = n ? write_rounds(f, name, parts, k, block, e) : 0;
	for (size_t i = 0; i < 2 * k; i++)
		free(parts[i].buf);
	return rc ? rc : file_flush(f, name, e);
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
