/* Streams of any length (runner/datachunk.h). */
#include "runner/datachunk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/datafile.h"
#include "runner/datalen.h"
#include "util/alloc.h"
#include "util/path.h"

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
		return 0;
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

/* Fill buf up to cap bytes from head, then rest: *ended when both are done. */
static int fill(FILE *head, FILE *rest, char *buf, size_t cap, size_t *have, bool *ended,
                struct cs_err *e)
{
	while (*have < cap) {
		FILE *f = !feof(head) ? head : rest;
		size_t n = fread(buf + *have, 1, cap - *have, f);

		*have += n;
		if (ferror(f))
			return err_errno(e, "<stdin>");
		if (n == 0 && f == rest) {
			*ended = true;
			break;
		}
	}
	return 0;
}

/* One chunk's text into the temporary file, counted, then run. */
static int run_chunk(const struct fm_arg *a, FILE *t, const char *text, size_t len,
                     struct params *args, chunk_fn run, void *arg, struct cs_err *e)
{
	char num[32];
	size_t n;

	if (fflush(t) != 0 || ftruncate(fileno(t), 0) != 0 || datalen_rewind(t, e) ||
	    fwrite(text, 1, len, t) != len || fflush(t) != 0)
		return err_errno(e, "<stdin>: while copying a chunk of the input");
	if (datalen_rewind(t, e) || datafile_count("-", t, a->type.scalar, &n, e) ||
	    datalen_rewind(t, e))
		return err_prefix(e, "stream '%s': ", a->name);
	if (n == 0)
		return 0;
	if (n % a->type.width)
		return err_set(e,
		               "stream '%s': <stdin>: a chunk of %zu values, not a whole number of "
		               "%u-wide elements (keep an element on one line)",
		               a->name, n, a->type.width);
	snprintf(num, sizeof(num), "%zu", n / a->type.width);
	params_set(args, a->count, num, "the length of a chunk of standard input");
	return run(arg, t, e);
}

static int chunks(const struct fm_arg *a, FILE *head, FILE *rest, FILE *t, char *buf, size_t cap,
                  struct params *args, chunk_fn run, void *arg, struct cs_err *e)
{
	size_t have = 0;
	bool ended = false;
	int rc;

	while (!ended || have) {
		const char *nl;
		size_t cut;

		if (fill(head, rest, buf, cap, &have, &ended, e))
			return -1;
		nl = ended ? NULL : memrchr(buf, '\n', have);
		if (!ended && !nl)
			return err_set(e,
			               "stream '%s': <stdin>: a line longer than %zu bytes "
			               "(CARSH_CHUNK_BYTES)",
			               a->name, cap);
		cut = nl ? (size_t)(nl - buf) + 1 : have;
		rc = run_chunk(a, t, buf, cut, args, run, arg, e);
		if (rc)
			return rc;
		memmove(buf, buf + cut, have - cut);
		have -= cut;
	}
	return 0;
}

int datachunk_run(const struct fm_arg *endless, FILE *head, FILE *rest, struct params *args,
                  chunk_fn run, void *arg, struct cs_err *e)
{
	size_t cap = chunk_bytes();
	FILE *t = datalen_temp(e);
	char *buf;
	int rc;

	if (!t)
		return -1;
	buf = xmalloc(cap);
	rc = chunks(endless, head, rest, t, buf, cap, args, run, arg, e);
	free(buf);
	fclose(t);
	return rc;
}
