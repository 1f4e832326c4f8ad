/* Lengths from the data (runner/datalen.h). */
#include "runner/datalen.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/datafile.h"
#include "data/pgm.h"
#include "data/recfile.h"
#include "data/types.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The first stream to size a parameter: its value and who gave it, for a second's error. */
struct sized {
	const char *param;
	const char *stream;
	const char *path;
	size_t count;
};

/* A counted input's parsed values, until they are handed to the job (or dropped). */
struct parsed {
	const struct fm_arg *a;
	const struct exe_bind *b;
	void *values;
	size_t n; /* scalars */
	enum scalar s;
};

static const struct exe_bind *bind_of(const struct exe *exe, const char *stream)
{
	for (size_t i = 0; i < exe->nbinds; i++)
		if (strcmp(exe->binds[i].stream, stream) == 0)
			return &exe->binds[i];
	return NULL;
}

/* A parameter nothing sets but the flow-model's own default. */
static bool is_unset(const struct exe *exe, const struct scope *caller, const struct params *args,
                     const char *name)
{
	return !params_get(args, name) && !params_get(&exe->params, name) &&
	       !(caller && scope_get(caller, name));
}

/* Where temporary files go: $TMPDIR, else /tmp (tmpfile() ignores TMPDIR). */
static const char *temp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && dir[0] ? dir : "/tmp";
}

FILE *datalen_temp(struct cs_err *e)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f = NULL;
	int fd;

	sb_addf(&path, "%s/carsh-stdin-XXXXXX", temp_dir());
	fd = mkostemp(path.s, O_CLOEXEC);
	if (fd < 0) {
		err_errno(e, "<stdin>: cannot make a temporary file in %s to count the input",
		          temp_dir());
	} else {
		unlink(path.s);
		f = fdopen(fd, "w+");
		if (!f) {
			err_errno(e, "<stdin>: cannot open the temporary copy of the input");
			close(fd);
		}
	}
	sb_free(&path);
	return f;
}

/* The job reads the spool from its start, by the FILE (thread executor) or by the descriptor
 * (a child's standard input): glibc's rewind() inside a buffer moves only the FILE, so its
 * buffer is dropped (fflush of an input stream) and the descriptor moved too. */
int datalen_rewind(FILE *f, struct cs_err *e)
{
	if (fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0 || lseek(fileno(f), 0, SEEK_SET) != 0)
		return err_errno(e, "<stdin>: cannot rewind the copy of the input");
	return 0;
}

/* An endless pipe (`yes 1 |`) must not fill the disk: the copy stops at CARSH_COUNT_MAX
 * bytes (1 GiB when unset or not a positive number). */
static unsigned long long copy_limit(void)
{
	const char *v = getenv("CARSH_COUNT_MAX");
	unsigned long long n;
	char *end;

	if (!v || !*v)
		return 1ULL << 30;
	errno = 0;
	n = strtoull(v, &end, 10);
	return errno || *end || n == 0 || v[0] == '-' ? 1ULL << 30 : n;
}

/* The descriptor is made non-blocking around the call, so that the FILE's own buffer is read
 * first. */
ssize_t datalen_read_ready(FILE *in, char *buf, size_t len)
{
	int fd = fileno(in), flags = fcntl(fd, F_GETFL);
	size_t n;

	if (flags >= 0 && !(flags & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	n = fread(buf, 1, len, in);
	if (flags >= 0 && !(flags & O_NONBLOCK))
		(void)fcntl(fd, F_SETFL, flags);
	if (n > 0) {
		clearerr(in);
		return (ssize_t)n;
	}
	if (feof(in))
		return 0;
	if (ferror(in) && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		clearerr(in);
		return -1;
	}
	return -2;
}

/* Copies stdin into t until its end, waiting in slices so that Ctrl-C is seen: 0, or -1 with
 * e ("interrupted", a read or a write error), *have the bytes copied (past limit: stops). With
 * cut, a pause after a whole line also stops it (*paused). */
static int copy_input(FILE *in, FILE *t, unsigned long long limit, bool cut,
                      unsigned long long *have, bool *paused, volatile sig_atomic_t *interrupted,
                      struct cs_err *e)
{
	enum { CHUNK = 1 << 20 };
	char *buf = xmalloc(CHUNK);
	bool whole = false; /* the last byte copied ends a line */
	int rc = 0;

	while (*have <= limit) {
		ssize_t n = datalen_read_ready(in, buf, CHUNK);
		struct pollfd p = {fileno(in), POLLIN, 0};

		if (n == 0)
			break;
		if (n > 0 && fwrite(buf, 1, (size_t)n, t) == (size_t)n) {
			*have += (unsigned long long)n;
			whole = buf[n - 1] == '\n';
			continue;
		}
		if (n > 0 || n == -2) {
			rc = n > 0 ? err_errno(e, "<stdin>: while copying the input to count it")
			           : err_errno(e, "<stdin>");
			break;
		}
		if (interrupted && *interrupted) {
			rc = err_set(e, "<stdin>: interrupted while counting its values");
			break;
		}
		if (poll(&p, 1, 100) == 0 && cut && whole) {
			*paused = true;
			break;
		}
	}
	free(buf);
	return rc;
}

/* Standard input, copied whole into an unlinked temporary file, rewound. chunk: where it
 * may give way to chunks (0: never). */
static FILE *spool_input(FILE *in, volatile sig_atomic_t *interrupted, unsigned long long chunk,
                         bool *over, struct cs_err *e)
{
	unsigned long long limit = copy_limit(), have = 0;
	bool paused = false;
	FILE *t = datalen_temp(e);

	if (!t)
		return NULL;
	if (chunk && chunk < limit)
		limit = chunk;
	if (copy_input(in, t, limit, chunk != 0, &have, &paused, interrupted, e)) {
		fclose(t);
		return NULL;
	}
	*over = have > limit || paused;
	if (*over)
		err_set(e,
		        "<stdin>: more than %llu bytes to count (CARSH_COUNT_MAX); give the count "
		        "(N=...) to read it",
		        limit);
	if (fflush(t) != 0)
		err_errno(e, "<stdin>: while copying the input to count it");
	else if (datalen_rewind(t, e) == 0)
		return t;
	fclose(t);
	return NULL;
}

static int disagree(const struct sized *a, const struct sized *b, struct cs_err *e)
{
	return err_set(e, "streams '%s' and '%s' disagree on %s: %s holds %zu, %s holds %zu",
	               a->stream, b->stream, a->param, a->path, a->count, b->path, b->count);
}

/* The count of one stream's data, in elements of its type t (a type="${T}" resolved);
 * 0 for a format not counted. */
static int measure(const struct flowmodel *fm, const struct fm_arg *a, const struct cs_type *t,
                   const char *shown, const char *path, FILE *in, size_t *count, struct parsed *p,
                   struct cs_err *e)
{
	const struct cs_record *r = a->struct_name ? &fm->structs[a->struct_index].rec : NULL;
	size_t n = 0;
	/* a record's values are not kept: the job reads its file */
	int rc = r ? recfile_count(path, in, r, &n, e)
	           : datafile_count_values(path, in, t->scalar, &n, &p->values, e);

	*count = 0;
	p->n = n;
	p->s = t->scalar;
	if (rc < 0)
		return err_prefix(e, "stream '%s': ", a->name);
	if (rc > 0)
		return 0;
	if (n == 0)
		return err_set(e, "stream '%s': %s holds no %s", a->name, shown,
		               r ? "records" : "values");
	if (r) {
		*count = n;
		return 0;
	}
	if (n % t->width)
		return err_set(e,
		               "stream '%s': %s holds %zu values, not a whole number of %u-wide "
		               "elements",
		               a->name, shown, n, t->width);
	*count = n / t->width;
	return 0;
}

/* s sizes its parameter, or is checked against the stream that did. */
static int record(const struct sized *s, struct sized *first, size_t nfirst, size_t *used,
                  struct cs_err *e)
{
	for (size_t i = 0; i < *used; i++)
		if (strcmp(first[i].param, s->param) == 0)
			return first[i].count == s->count ? 0 : disagree(&first[i], s, e);
	if (*used < nfirst)
		first[(*used)++] = *s;
	return 0;
}

/* One stream: sizes its parameter, or checks it against the stream that did. */
static int size_from(const struct flowmodel *fm, const struct fm_arg *a, const struct cs_type *t,
                     const struct exe_bind *b, FILE *in, struct sized *first, size_t nfirst,
                     size_t *used, struct parsed *p, struct cs_err *e)
{
	struct sized s = {a->count, a->name, path_is_stdio(b->path) ? "<stdin>" : b->path, 0};

	*p = (struct parsed){a, b, NULL, 0, SC_FLOAT};
	if (measure(fm, a, t, s.path, b->path, in, &s.count, p, e))
		return -1;
	if (s.count == 0)
		return 0; /* PGM: the count keeps its value */
	return record(&s, first, nfirst, used, e);
}

/* A 2-D image read from a PGM file whose width and height are parameters nothing sets: both
 * from the file's header (docs/formats.md, "Images"). */
static bool image_sized_by_pgm(const struct exe *exe, const struct scope *caller,
                               const struct params *args, const struct fm_arg *a,
                               const struct exe_bind *b)
{
	return a->image_dims == 2 && arg_is_read(a->kind) && b && b->how == BIND_FILE &&
	       !path_is_stdio(b->path) && pgm_path(b->path) && param_name_valid(a->width) &&
	       param_name_valid(a->height) && is_unset(exe, caller, args, a->width) &&
	       is_unset(exe, caller, args, a->height);
}

static int size_image(const struct fm_arg *a, const struct exe_bind *b, struct sized *first,
                      size_t nfirst, size_t *used, struct cs_err *e)
{
	struct sized w = {a->width, a->name, b->path, 0}, h = {a->height, a->name, b->path, 0};

	if (pgm_size(b->path, &w.count, &h.count, e))
		return err_prefix(e, "stream '%s': ", a->name);
	return record(&w, first, nfirst, used, e) || record(&h, first, nfirst, used, e) ? -1 : 0;
}

/* As the planner will see it: a stream's type may be a parameter. */
static void planner_scope(const struct exe *exe, const struct scope *caller,
                          const struct params *args, struct scope *sc)
{
	scope_init(sc);
	scope_push(sc, args);
	scope_push(sc, &exe->params);
	if (caller)
		scope_append(sc, caller);
	scope_push(sc, &exe->fm->params);
}

int datalen_type(const struct exe *exe, const struct scope *caller, const struct params *args,
                 const struct fm_arg *a, struct cs_type *t, struct cs_err *e)
{
	struct scope sc;

	planner_scope(exe, caller, args, &sc);
	return fm_arg_type(exe->fm, a, &sc, t, e);
}

static int size_all(const struct exe *exe, const struct scope *caller, FILE *in,
                    volatile sig_atomic_t *interrupted, const struct params *args, FILE **spool,
                    const struct fm_arg **endless, struct sized *first, size_t *used,
                    struct parsed *kept, datalen_chunk_from chunk_from, struct cs_err *e)
{
	bool over = false;
	const struct flowmodel *fm = exe->fm;
	struct scope sc;

	planner_scope(exe, caller, args, &sc);

	for (size_t i = 0; i < fm->nargs; i++) {
		const struct fm_arg *a = &fm->args[i];
		const struct exe_bind *b = bind_of(exe, a->name);
		struct cs_type t;

		if (image_sized_by_pgm(exe, caller, args, a, b)) {
			if (size_image(a, b, first, 2 * fm->nargs, used, e))
				return -1;
			continue;
		}
		if (!arg_is_stream(a->kind) || !arg_is_read(a->kind) || !b || b->how != BIND_FILE ||
		    !a->count || !param_name_valid(a->count) ||
		    !is_unset(exe, caller, args, a->count))
			continue;
		if (path_is_stdio(b->path) && !*spool &&
		    !(*spool = spool_input(in, interrupted, chunk_from ? chunk_from(exe, a) : 0,
		                           &over, e)))
			return err_prefix(e, "stream '%s': ", a->name);
		if (over) {
			*endless = a;
			err_prefix(e, "stream '%s': ", a->name);
			return 2;
		}
		/* A type that does not resolve is the planner's to report, with its place. */
		if (fm_arg_type(fm, a, &sc, &t, e)) {
			err_clear(e);
			continue;
		}
		if (size_from(fm, a, &t, b, *spool, first, 2 * fm->nargs, used, &kept[i], e))
			return -1;
	}
	return 0;
}

/* Streams that read standard input: the job reads raw values from it only when one does (two
 * are the job's error, which it must still see). */
static size_t stdin_readers(const struct exe *exe)
{
	size_t n = 0;

	for (size_t i = 0; i < exe->nbinds; i++)
		n += arg_is_read(exe->binds[i].kind) && exe->binds[i].how == BIND_FILE &&
		     path_is_stdio(exe->binds[i].path);
	return n;
}

int datalen_put_values(FILE *t, const void *values, size_t bytes)
{
	struct cs_err ignored;

	if (fflush(t) != 0 || ftruncate(fileno(t), 0) != 0 || datalen_rewind(t, &ignored) ||
	    fwrite(values, 1, bytes, t) != bytes || fflush(t) != 0)
		return -1;
	return datalen_rewind(t, &ignored);
}

static int write_values(FILE *f, const struct parsed *p)
{
	return datalen_put_values(f, p->values, p->n * scalar_size(p->s));
}

/* Standard input's values, raw, in a new spool that replaces the copy of its text; 0 when
 * they cannot be written there (a full disk): the job parses the text. */
static int keep_stdin(FILE **spool, const struct parsed *p)
{
	struct cs_err ignored;
	FILE *t = datalen_temp(&ignored);

	if (!t)
		return 0;
	if (write_values(t, p) != 0) {
		fclose(t);
		return 0;
	}
	fclose(*spool);
	*spool = t;
	return 1;
}

/* A named temporary .raw file (the job may run in another process, which opens it by name),
 * tracked in *slot so that a carsh stopped by a signal removes it; NULL when it cannot be
 * written (an unwritable $TMPDIR, a full disk): the job parses the file. */
static char *keep_file(const struct parsed *p, int *slot)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f = NULL;
	int fd, rc = -1;

	sb_addf(&path, "%s/carsh-values-XXXXXX.raw", temp_dir());
	fd = mkostemps(path.s, 4, O_CLOEXEC);
	if (fd >= 0 && !(f = fdopen(fd, "w+")))
		close(fd);
	if (f) {
		rc = write_values(f, p);
		if (fclose(f) != 0)
			rc = -1;
	}
	if (rc == 0) {
		*slot = temp_track(path.s);
		return sb_detach(&path);
	}
	if (fd >= 0)
		unlink(path.s);
	sb_free(&path);
	return NULL;
}

static void keep_add(struct datalen_keep *k, const char *stream, char *path, int slot)
{
	k->v = xrealloc(k->v, (k->n + 1) * sizeof(*k->v));
	k->v[k->n++] = (struct datalen_kept){xstrdup(stream), path, !path_is_stdio(path), slot};
}

/* Hand each counted CSV input's values to the job (an Input only: an InOut's file is
 * written back by its name). Where they cannot be kept the job reads the data as before. */
static void keep_all(const struct exe *exe, struct parsed *p, size_t np, FILE **spool,
                     struct datalen_keep *k)
{
	for (size_t i = 0; i < np; i++) {
		char *path;
		int slot = -1;

		if (!p[i].values || p[i].a->kind != ARG_INPUT)
			continue;
		if (!path_is_stdio(p[i].b->path))
			path = keep_file(&p[i], &slot);
		else if (*spool && stdin_readers(exe) == 1 && keep_stdin(spool, &p[i]))
			path = xstrdup("-:raw");
		else
			continue;
		if (path)
			keep_add(k, p[i].a->name, path, slot);
	}
}

void datalen_keep_free(struct datalen_keep *k)
{
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].temp)
			unlink(k->v[i].path);
		if (k->v[i].slot >= 0)
			temp_untrack(k->v[i].slot);
		free(k->v[i].stream);
		free(k->v[i].path);
	}
	free(k->v);
	*k = (struct datalen_keep){NULL, 0};
}

/* Whether a stream is bound to a file: only such a stream is sized from its data (size_all). */
static bool any_file(const struct exe *exe)
{
	for (size_t i = 0; i < exe->nbinds; i++)
		if (exe->binds[i].how == BIND_FILE)
			return true;
	return false;
}

int datalen_apply(const struct exe *exe, const struct scope *caller, FILE *in, struct params *args,
                  volatile sig_atomic_t *interrupted, FILE **spool, const struct fm_arg **endless,
                  struct datalen_keep *keep, datalen_chunk_from chunk_from, struct cs_err *e)
{
	size_t np = exe->fm->nargs;
	struct sized *first;
	struct parsed *kept;
	size_t used = 0;
	int rc;

	*spool = NULL;
	*endless = NULL;
	/* A batch's step on buffers (every job of the FFT filter's) reads nothing here. */
	if (!any_file(exe))
		return 0;
	/* an image sizes two parameters */
	first = xcalloc(2 * np + 1, sizeof(*first));
	kept = xcalloc(np + 1, sizeof(*kept));
	rc = size_all(exe, caller, in, interrupted, args, spool, endless, first, &used, kept,
	              chunk_from, e);
	for (size_t i = 0; rc == 0 && i < used; i++) {
		char num[32], origin[200];

		snprintf(num, sizeof(num), "%zu", first[i].count);
		snprintf(origin, sizeof(origin), "the length of stream '%s'", first[i].stream);
		params_set(args, first[i].param, num, origin);
	}
	if (rc == 0 && keep)
		keep_all(exe, kept, np, spool, keep);
	for (size_t i = 0; i < np; i++)
		free(kept[i].values);
	free(kept);
	free(first);
	if (rc == 2)
		return 2;
	if (rc == 0 && *spool && datalen_rewind(*spool, e))
		rc = -1;
	if (rc && *spool) {
		fclose(*spool);
		*spool = NULL;
	}
	if (rc && keep)
		datalen_keep_free(keep);
	return rc;
}
