/* Streams of any length (runner/datachunk.h). */
#include "runner/datachunk.h"

#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/csvfast.h"
#include "data/csvio.h"
#include "data/datafile.h"
#include "runner/datalen.h"
#include "util/alloc.h"
#include "util/path.h"

/* How long standard input may pause, in ms, before the whole lines read so far are run as a
 * chunk: a `tail -f` feed is processed as it comes, a fast pipe still in full chunks. */
enum { QUIET_MS = 100 };

static const struct exe_bind *bind_of(const struct exe *exe, const char *stream)
{
	for (size_t i = 0; i < exe->nbinds; i++)
		if (strcmp(exe->binds[i].stream, stream) == 0)
			return &exe->binds[i];
	return NULL;
}

/* A stream other than the one cut: read whole each chunk, or written over each time. */
static int other_stream(const struct fm_arg *a, const struct exe_bind *b, char *why, size_t len)
{
	if (!b || b->how == BIND_FILL || b->how == BIND_DISCARD)
		return 0;
	if (arg_is_read(a->kind))
		snprintf(why, len,
		         "stream '%s' is read from %s, which is not cut with standard input",
		         a->name, b->how == BIND_BUFFER ? "a virtual buffer" : b->path);
	else if (b->how == BIND_FILE && path_is_stdio(b->path))
		return 0;
	else
		snprintf(why, len, "stream '%s' is written to %s, which each chunk would replace",
		         a->name, b->how == BIND_BUFFER ? "a virtual buffer" : b->path);
	return -1;
}

static int arg_why_not(const struct exe *exe, const struct fm_arg *a, const struct fm_arg *endless,
                       char *why, size_t len)
{
	const char *g = exe->fm->global[0];

	if (a->kind == ARG_LOCAL) {
		snprintf(why, len, "it has Local memory ('%s')", a->name);
		return -1;
	}
	if (!arg_is_stream(a->kind))
		return 0;
	if (a->struct_name) {
		snprintf(why, len, "stream '%s' is of struct %s", a->name, a->struct_name);
		return -1;
	}
	if (strcmp(a->count, g) != 0) {
		snprintf(why, len, "stream '%s' has count '%s', not the work size '%s'", a->name,
		         a->count, g);
		return -1;
	}
	return a == endless ? 0 : other_stream(a, bind_of(exe, a->name), why, len);
}

/* Whether text names the parameter as a word of an expression. */
static bool names(const char *text, const char *param)
{
	size_t len = strlen(param);

	for (const char *p = text; text && (p = strstr(p, param)) != NULL; p += len) {
		bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[len]) || p[len] == '_';

		if (!before && !after)
			return true;
	}
	return false;
}

/* Each chunk sets the count parameter to its own length: a value computed from it (a
 * Constant's, the build options', another parameter's) would differ from chunk to chunk. */
static int uses_count(const struct exe *exe, const char *count, char *why, size_t len)
{
	const struct flowmodel *fm = exe->fm;
	const struct params *ps[2] = {&fm->params, &exe->params};
	char ref[300];

	for (size_t i = 0; i < fm->nargs; i++)
		if (fm->args[i].kind == ARG_CONSTANT && names(fm->args[i].value, count)) {
			snprintf(why, len, "Constant '%s' is computed from %s ('%s')",
			         fm->args[i].name, count, fm->args[i].value);
			return -1;
		}
	snprintf(ref, sizeof(ref), "${%s}", count);
	if (strstr(fm->build_options, ref)) {
		snprintf(why, len, "its build options use %s", ref);
		return -1;
	}
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < ps[k]->n; i++)
			if (strcmp(ps[k]->v[i].name, count) != 0 &&
			    names(ps[k]->v[i].value, count)) {
				snprintf(why, len, "parameter %s is computed from %s ('%s')",
				         ps[k]->v[i].name, count, ps[k]->v[i].value);
				return -1;
			}
	return 0;
}

int datachunk_why_not(const struct exe *exe, const struct fm_arg *endless, char *why, size_t len)
{
	const struct flowmodel *fm = exe->fm;
	const struct exe_bind *b = bind_of(exe, endless->name);
	enum data_format f;
	struct cs_err ignored;

	if (fm->dims != 1)
		snprintf(why, len, "its work size has %u dimensions", fm->dims);
	else if (fm->local_dims)
		snprintf(why, len, "it sets a local work size");
	else if (exe->has_swap)
		snprintf(why, len, "it swaps streams");
	else if (!b || datafile_format(b->path, &f, &ignored) || f != DF_CSV)
		snprintf(why, len, "standard input is not CSV");
	else {
		for (size_t i = 0; i < fm->nargs; i++)
			if (arg_why_not(exe, &fm->args[i], endless, why, len))
				return -1;
		return uses_count(exe, endless->count, why, len);
	}
	return -1;
}

/* CARSH_CHUNK_BYTES, or 16 MiB when unset or not a positive number. */
static size_t chunk_bytes(void)
{
	const char *v = getenv("CARSH_CHUNK_BYTES");
	unsigned long long n;
	char *end;

	if (!v || !*v || v[0] == '-')
		return (size_t)16 << 20;
	errno = 0;
	n = strtoull(v, &end, 10);
	return errno || *end || n == 0 || n > SIZE_MAX / 2 ? (size_t)16 << 20 : (size_t)n;
}

unsigned long long datachunk_start_bytes(void)
{
	return 4ULL * chunk_bytes();
}

/* A chunk's values, raw, in a temporary file: while the job runs over one, the reader
 * thread reads and parses the next into the other. */
enum slot_state { SLOT_FREE, SLOT_READY, SLOT_END, SLOT_FAILED };

struct slot {
	FILE *t;
	size_t n; /* scalars */
	enum slot_state state;
};

struct feed {
	const char *stream;
	struct cs_type type;
	FILE *head, *rest;
	volatile sig_atomic_t *interrupted;
	char *buf;
	size_t cap, have;
	size_t lines; /* whole lines before the buffer's, for a bad value's message */
	bool ended;
	struct slot slot[2];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;
	struct cs_err e; /* the reader's, with SLOT_FAILED */
};

static bool stopped(struct feed *f)
{
	bool s;

	pthread_mutex_lock(&f->mu);
	s = f->stop;
	pthread_mutex_unlock(&f->mu);
	return s;
}

/* Nothing to read now: wait for more. 1 when the input stayed quiet QUIET_MS ms, 0 when
 * there is more, -1 when the run stops (e set on Ctrl-C). */
static int wait_input(struct feed *f, struct cs_err *e)
{
	struct pollfd p = {fileno(f->rest), POLLIN, 0};

	if (f->interrupted && *f->interrupted)
		return err_set(e, "<stdin>: interrupted");
	if (stopped(f))
		return -1;
	return poll(&p, 1, QUIET_MS) == 0 ? 1 : 0;
}

/* Read into the buffer until it is full, the input ends, or it pauses with whole lines read. */
static int fill(struct feed *f, struct cs_err *e)
{
	while (f->have < f->cap && !f->ended) {
		ssize_t n;
		int quiet;

		if (!feof(f->head)) {
			f->have += fread(f->buf + f->have, 1, f->cap - f->have, f->head);
			if (ferror(f->head))
				return err_errno(e, "<stdin>");
			continue;
		}
		n = datalen_read_ready(f->rest, f->buf + f->have, f->cap - f->have);
		if (n > 0)
			f->have += (size_t)n;
		else if (n == 0)
			f->ended = true;
		else if (n == -2)
			return err_errno(e, "<stdin>");
		else if ((quiet = wait_input(f, e)) < 0)
			return -1;
		else if (quiet && memchr(f->buf, '\n', f->have))
			break;
	}
	return 0;
}

/* The chunk's values, parsed over the cores where every line is plain, else by the stream
 * reader, whose errors name the line counted from the input's start: 0, or -1 with e. */
static int chunk_values(struct feed *f, size_t len, void **values, size_t *n, struct cs_err *e)
{
	FILE *m;
	size_t lines;
	int rc;

	if (csvfast_all(f->type.scalar, f->buf, len, values, n, &lines) == 0) {
		f->lines += lines;
		return 0;
	}
	m = fmemopen(f->buf, len, "r");
	if (!m)
		return err_errno(e, "<stdin>: while reading a chunk");
	rc = csvio_read_all_after(m, "<stdin>", f->lines, f->type.scalar, values, n, e);
	fclose(m);
	for (const char *p = f->buf; (p = memchr(p, '\n', (size_t)(f->buf + len - p))); p++)
		f->lines++;
	return rc;
}

/* The first len bytes of the buffer (whole lines) parsed into s: 0, or -1 with e. */
static int parse_chunk(struct feed *f, struct slot *s, size_t len, struct cs_err *e)
{
	void *values = NULL;
	int rc = chunk_values(f, len, &values, &s->n, e);

	if (rc)
		rc = err_prefix(e, "stream '%s': ", f->stream);
	else if (s->n % f->type.width)
		rc = err_set(e,
		             "stream '%s': <stdin>: a chunk of %zu values, not a whole number of "
		             "%u-wide elements (keep an element on one line)",
		             f->stream, s->n, f->type.width);
	else if (s->n && datalen_put_values(s->t, values, s->n * scalar_size(f->type.scalar)))
		rc = err_errno(e, "<stdin>: while keeping a chunk's values");
	free(values);
	return rc;
}

/* The next chunk with values into s: 1, 0 at the input's end, -1 with e. */
static int next_chunk(struct feed *f, struct slot *s, struct cs_err *e)
{
	s->n = 0;
	while (s->n == 0) {
		const char *nl;
		size_t cut;

		if (fill(f, e))
			return -1;
		if (f->ended && f->have == 0)
			return 0;
		nl = f->ended ? NULL : memrchr(f->buf, '\n', f->have);
		if (!f->ended && !nl)
			return err_set(e,
			               "stream '%s': <stdin>: a line longer than %zu bytes "
			               "(CARSH_CHUNK_BYTES)",
			               f->stream, f->cap);
		cut = nl ? (size_t)(nl - f->buf) + 1 : f->have;
		if (parse_chunk(f, s, cut, e))
			return -1;
		memmove(f->buf, f->buf + cut, f->have - cut);
		f->have -= cut;
	}
	return 1;
}

static void post(struct feed *f, struct slot *s, enum slot_state st)
{
	pthread_mutex_lock(&f->mu);
	s->state = st;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

/* The slot the job is done with, or false when the run stops. */
static bool wait_free(struct feed *f, struct slot *s)
{
	bool ok;

	pthread_mutex_lock(&f->mu);
	while (s->state != SLOT_FREE && !f->stop)
		pthread_cond_wait(&f->cv, &f->mu);
	ok = !f->stop;
	pthread_mutex_unlock(&f->mu);
	return ok;
}

static void *reader(void *arg)
{
	struct feed *f = arg;

	for (unsigned k = 0;; k++) {
		struct slot *s = &f->slot[k % 2];
		struct cs_err e;
		int rc;

		if (!wait_free(f, s))
			break;
		rc = next_chunk(f, s, &e);
		if (rc < 0 && stopped(f))
			break;
		if (rc < 0)
			f->e = e; /* read by the main thread after the post below */
		post(f, s, rc > 0 ? SLOT_READY : rc == 0 ? SLOT_END : SLOT_FAILED);
		if (rc <= 0)
			break;
	}
	return NULL;
}

static enum slot_state wait_posted(struct feed *f, struct slot *s)
{
	enum slot_state st;

	pthread_mutex_lock(&f->mu);
	while (s->state == SLOT_FREE)
		pthread_cond_wait(&f->cv, &f->mu);
	st = s->state;
	pthread_mutex_unlock(&f->mu);
	return st;
}

/* Each chunk as it is posted, run while the reader prepares the next. */
static int run_all(struct feed *f, const char *count, struct params *args, chunk_fn run, void *arg,
                   struct cs_err *e)
{
	for (unsigned k = 0;; k++) {
		struct slot *s = &f->slot[k % 2];
		enum slot_state st = wait_posted(f, s);
		char num[32];
		int rc;

		if (st == SLOT_END)
			return 0;
		if (f->interrupted && *f->interrupted)
			return err_set(e, "<stdin>: interrupted");
		if (st == SLOT_FAILED) {
			*e = f->e;
			return -1;
		}
		snprintf(num, sizeof(num), "%zu", s->n / f->type.width);
		params_set(args, count, num, "the length of a chunk of standard input");
		rc = run(arg, s->t, e);
		post(f, s, SLOT_FREE);
		if (rc)
			return rc;
	}
}

static int feed_open(struct feed *f, struct cs_err *e)
{
	for (int i = 0; i < 2; i++) {
		f->slot[i].t = datalen_temp(e);
		if (!f->slot[i].t)
			return -1;
	}
	f->buf = xmalloc(f->cap);
	return 0;
}

static void feed_close(struct feed *f)
{
	for (int i = 0; i < 2; i++)
		if (f->slot[i].t)
			fclose(f->slot[i].t);
	free(f->buf);
}

int datachunk_run(const struct fm_arg *endless, const struct cs_type *type, FILE *head, FILE *rest,
                  struct params *args, volatile sig_atomic_t *interrupted, chunk_fn run, void *arg,
                  struct cs_err *e)
{
	struct feed f = {.stream = endless->name,
	                 .type = *type,
	                 .head = head,
	                 .rest = rest,
	                 .interrupted = interrupted,
	                 .cap = chunk_bytes()};
	pthread_t th;
	int rc;

	/* Each chunk allocates and frees buffers of megabytes (its text's values, the job's
	 * buffers). glibc raises its mmap threshold to the largest block freed, after which such
	 * blocks come from the heaps of several threads' arenas, where they fragment: an endless
	 * stream's memory crept up chunk after chunk (137 MiB after 3 M values, 240 MiB after
	 * 100 M). A fixed threshold gives every such block back when it is freed; job processes
	 * forked from here inherit it. */
	(void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
	pthread_mutex_init(&f.mu, NULL);
	pthread_cond_init(&f.cv, NULL);
	rc = feed_open(&f, e);
	if (rc == 0 && (errno = pthread_create(&th, NULL, reader, &f)) != 0)
		rc = err_errno(e, "<stdin>: cannot start the thread that reads it");
	else if (rc == 0) {
		rc = run_all(&f, endless->count, args, run, arg, e);
		pthread_mutex_lock(&f.mu);
		f.stop = true;
		pthread_cond_broadcast(&f.cv);
		pthread_mutex_unlock(&f.mu);
		pthread_join(th, NULL);
	}
	feed_close(&f);
	pthread_cond_destroy(&f.cv);
	pthread_mutex_destroy(&f.mu);
	return rc;
}
