/* Evaluating a pipeline description (model/pipeplan.h). */
#include "model/pipeplan.h"

#include <errno.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/filecache.h"
#include "model/planner.h"
#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The scope of the pipeline's own expressions. */
static void pipe_scope(const struct pipe_plan *p, struct scope *sc)
{
	scope_init(sc);
	scope_push(sc, &p->args);
	scope_append(sc, &p->caller);
	scope_push(sc, &p->d->params);
}

/* The planner's <Buffer> resolver: a stream bound to an item buffer must have its type and
 * count. The "shared-memory name" it returns is the buffer's own name (nothing is shared). */
static int resolve_item_buffer(void *ctx, const char *name, struct cs_type type, size_t count,
                               char **shm, struct cs_err *e)
{
	const struct pipe_plan *p = ctx;
	int i = pipe_desc_buffer(p->d, name);
	char want[16], have[16];

	if (i < 0)
		return err_set(e, "the item has no buffer '%s'", name);
	if (p->bufs[i].type.scalar != type.scalar || p->bufs[i].type.width != type.width ||
	    p->bufs[i].count != count)
		return err_set(e, "item buffer '%s' holds %zu %s, the stream needs %zu %s", name,
		               p->bufs[i].count, type_name(p->bufs[i].type, have, sizeof(have)),
		               count, type_name(type, want, sizeof(want)));
	*shm = xstrdup(name);
	return 0;
}

static int eval_buffers(struct pipe_plan *p, const struct scope *sc, struct cs_err *e)
{
	p->bufs = xcalloc(p->d->nbufs, sizeof(*p->bufs));
	p->nbufs = p->d->nbufs;
	for (size_t i = 0; i < p->nbufs; i++) {
		const struct pipe_buffer *b = &p->d->bufs[i];
		long long n;

		if (scope_eval_range(sc, b->count, "count", 1, INT32_MAX, &n, e))
			return err_prefix(e, "%s:%d: <Buffer name=\"%s\">: ", p->d->file, b->line,
			                  b->name);
		p->bufs[i].name = b->name;
		p->bufs[i].type = b->type;
		p->bufs[i].count = (size_t)n;
		if (size_mul((size_t)n, type_size(b->type), &p->bufs[i].bytes))
			return err_set(e, "%s:%d: <Buffer name=\"%s\">: count %lld is too large",
			               p->d->file, b->line, b->name, n);
	}
	return 0;
}

/* Every stream of the flow-model has a Bind, and every Bind names a stream. */
static int bind_streams(const struct pipe_plan *p, const struct pipe_stage *st,
                        const struct flowmodel *fm, struct exe *wrap, struct cs_err *e)
{
	for (size_t j = 0; j < st->nbinds; j++) {
		const struct pipe_bind *b = &st->binds[j];
		char *word = xasprintf("buffer:%s", b->buffer);
		int rc = exe_bind_word(wrap, b->stream, word, e);

		free(word);
		if (rc)
			return err_prefix(e, "%s:%d: <Bind stream=\"%s\">: ", p->d->file, b->line,
			                  b->stream);
		free(wrap->binds[wrap->nbinds - 1].origin);
		wrap->binds[wrap->nbinds - 1].origin = xasprintf("%s:%d", p->d->file, b->line);
	}
	for (size_t a = 0; a < fm->nargs; a++) {
		bool bound = false;

		if (!arg_is_stream(fm->args[a].kind))
			continue;
		for (size_t j = 0; j < st->nbinds && !bound; j++)
			bound = strcmp(st->binds[j].stream, fm->args[a].name) == 0;
		if (!bound)
			return err_set(e,
			               "%s:%d: <Stage name=\"%s\">: stream '%s' of %s is not bound "
			               "(add <Bind stream=\"%s\" buffer=\"...\"/>)",
			               p->d->file, st->line, st->name, fm->args[a].name, fm->file,
			               fm->args[a].name);
	}
	return 0;
}

static int plan_stage(struct pipe_plan *p, size_t k, struct cs_err *e)
{
	const struct pipe_stage *st = &p->d->stages[k];
	struct pipe_stage_plan *sp = &p->stages[k];
	const struct flowmodel *fm = filecache_flowmodel(st->flowmodel, e);
	struct scope sc;
	struct plan_env env;
	struct exe *wrap;
	int rc;

	sp->name = st->name;
	sp->gpu = st->gpu;
	if (!fm)
		return err_prefix(e, "%s:%d: <Stage name=\"%s\">: ", p->d->file, st->line,
		                  st->name);
	wrap = exe_wrap_shared_flowmodel(fm);
	pipe_scope(p, &sc);
	env = (struct plan_env){&sc, p->device_cli, resolve_item_buffer, p, true};
	rc = bind_streams(p, st, fm, wrap, e) || plan_exe(wrap, &env, &sp->jp, e) ||
	     kernel_plan_refuse_images(&sp->jp->kp, "the pipeline engine", RUN_INSTEAD, e);
	exe_free(wrap);
	if (rc)
		return -1;
	sp->buf = xcalloc(sp->jp->kp.nargs ? sp->jp->kp.nargs : 1, sizeof(int));
	for (size_t a = 0; a < sp->jp->kp.nargs; a++)
		sp->buf[a] = arg_is_stream(sp->jp->kp.args[a].kind)
		                     ? pipe_desc_buffer(p->d, sp->jp->binds[a].buffer)
		                     : -1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One item per file, in byte order of the names (not the locale's). */
static int list_files(struct pipe_plan *p, struct cs_err *e)
{
	const struct pipe_source *s = &p->d->source;
	glob_t g;
	int rc = glob(s->files, GLOB_ERR | GLOB_NOSORT, NULL, &g);

	if (rc == GLOB_NOMATCH)
		return err_set(e, "%s:%d: <Source>: no file matches '%s'", p->d->file, s->line,
		               s->files);
	if (rc != 0) {
		if (rc != GLOB_NOSPACE)
			globfree(&g);
		return err_set(e, "%s:%d: <Source>: cannot list '%s'%s", p->d->file, s->line,
		               s->files,
		               rc == GLOB_ABORTED ? ": a directory could not be read" : "");
	}
	p->files = xcalloc(g.gl_pathc, sizeof(char *));
	for (size_t i = 0; i < g.gl_pathc; i++)
		p->files[i] = xstrdup(g.gl_pathv[i]);
	p->items = g.gl_pathc;
	globfree(&g);
	qsort(p->files, p->items, sizeof(char *), cmp_str);
	return 0;
}

/* The generator: one Output stream, of the source buffer's type and count. */
static int open_generator(struct pipe_plan *p, const struct scope *sc, struct cs_err *e)
{
	const struct pipe_source *s = &p->d->source;
	const struct flowmodel *fm = filecache_flowmodel(s->generator, e);
	const struct fm_arg *out = NULL;
	long long n;
	char *word;
	int rc;

	if (!fm)
		return err_prefix(e, "%s:%d: <Source>: ", p->d->file, s->line);
	for (size_t a = 0; a < fm->nargs; a++) {
		if (!arg_is_stream(fm->args[a].kind))
			continue;
		if (out || fm->args[a].kind != ARG_OUTPUT)
			return err_set(
			        e,
			        "%s:%d: <Source>: generator %s must have exactly one stream, an "
			        "Output (it writes the item's '%s')",
			        p->d->file, s->line, fm->file, s->buffer);
		out = &fm->args[a];
	}
	if (!out)
		return err_set(e, "%s:%d: <Source>: generator %s has no Output stream", p->d->file,
		               s->line, fm->file);
	if (scope_eval_range(sc, s->count, "count", 1, INT32_MAX, &n, e))
		return err_prefix(e, "%s:%d: <Source>: ", p->d->file, s->line);
	p->items = (size_t)n;
	p->gen = exe_wrap_shared_flowmodel(fm);
	word = xasprintf("buffer:%s", s->buffer);
	rc = exe_bind_word(p->gen, out->name, word, e);
	free(word);
	return rc;
}

/* The placeholders of a sink pattern are {name} and {index}; several items need one. */
static int check_sink(struct pipe_plan *p, const struct scope *sc, struct cs_err *e)
{
	const struct pipe_sink *s = &p->d->sink;
	const char *f = s->files;
	long long cols = p->bufs[p->sink_buf].type.width;
	bool placeholder = false;

	for (const char *b = strchr(f, '{'); b; b = strchr(b + 1, '{')) {
		if (strncmp(b, "{name}", 6) != 0 && strncmp(b, "{index}", 7) != 0)
			return err_set(
			        e,
			        "%s:%d: <Sink>: unknown placeholder in '%s' (use {name}: the "
			        "source file's base name, or {index}: the item number)",
			        p->d->file, s->line, path_basename(f));
		placeholder = true;
	}
	if (!placeholder && p->items > 1)
		return err_set(e,
		               "%s:%d: <Sink>: %zu items would all be written to '%s'; put {name} "
		               "or {index} in files=",
		               p->d->file, s->line, p->items, path_basename(f));
	if (s->columns && scope_eval_range(sc, s->columns, "columns", 1, INT32_MAX, &cols, e))
		return err_prefix(e, "%s:%d: <Sink>: ", p->d->file, s->line);
	p->sink_columns = (size_t)cols;
	return 0;
}

struct sink_name {
	char *path;
	size_t item;
};

static int cmp_sink_name(const void *a, const void *b)
{
	return strcmp(((const struct sink_name *)a)->path, ((const struct sink_name *)b)->path);
}

/* Two source files with one base name (in two directories, or with two extensions) would
 * write one result file: say so rather than let one result overwrite the other. */
static int check_sink_unique(const struct pipe_plan *p, struct cs_err *e)
{
	struct sink_name *v;
	int rc = 0;

	if (!p->files || strstr(p->d->sink.files, "{index}"))
		return 0;
	v = xcalloc(p->items, sizeof(*v));
	for (size_t i = 0; i < p->items; i++)
		v[i] = (struct sink_name){pipe_plan_sink_path(p, i), i};
	qsort(v, p->items, sizeof(*v), cmp_sink_name);
	for (size_t i = 1; i < p->items && rc == 0; i++)
		if (strcmp(v[i - 1].path, v[i].path) == 0)
			rc = err_set(e,
			             "%s:%d: <Sink>: '%s' and '%s' would both be written to '%s'; "
			             "put {index} in files=",
			             p->d->file, p->d->sink.line, p->files[v[i - 1].item],
			             p->files[v[i].item], v[i].path);
	for (size_t i = 0; i < p->items; i++)
		free(v[i].path);
	free(v);
	return rc;
}

/* Every buffer a stage reads was filled before it, by the source or an earlier stage: an
 * item's other buffers hold whatever the token's previous item left. */
static int check_dataflow(const struct pipe_plan *p, struct cs_err *e)
{
	uint64_t filled = 1ull << p->src_buf;

	for (size_t k = 0; k < p->nstages; k++) {
		const struct kernel_plan *kp = &p->stages[k].jp->kp;

		for (size_t a = 0; a < kp->nargs; a++) {
			int b = p->stages[k].buf[a];

			if (b >= 0 && kp->args[a].kind != ARG_OUTPUT && !(filled >> b & 1))
				return err_set(
				        e,
				        "%s:%d: <Stage name=\"%s\">: stream '%s' reads buffer "
				        "'%s', which neither the <Source> nor an earlier stage "
				        "fills",
				        p->d->file, p->d->stages[k].line, p->stages[k].name,
				        kp->args[a].name, p->bufs[b].name);
		}
		for (size_t a = 0; a < kp->nargs; a++)
			if (p->stages[k].buf[a] >= 0 && kp->args[a].kind != ARG_INPUT)
				filled |= 1ull << p->stages[k].buf[a];
	}
	if (!(filled >> p->sink_buf & 1))
		return err_set(e, "%s:%d: <Sink>: no stage writes buffer '%s'", p->d->file,
		               p->d->sink.line, p->bufs[p->sink_buf].name);
	return 0;
}

/* Fail before any work when the first result could not be written. */
static int check_sink_dir(const struct pipe_plan *p, struct cs_err *e)
{
	char *path = pipe_plan_sink_path(p, 0), *dir = path_dirname(path);
	struct stat st;
	int rc = 0;

	if (stat(dir, &st) != 0)
		rc = err_errno(e, "%s:%d: <Sink>: directory '%s'", p->d->file, p->d->sink.line,
		               dir);
	else if (!S_ISDIR(st.st_mode))
		rc = err_set(e, "%s:%d: <Sink>: '%s' is not a directory", p->d->file,
		             p->d->sink.line, dir);
	free(dir);
	free(path);
	return rc;
}

int pipe_plan_new(const struct pipe_desc *d, const struct params *args, const struct scope *caller,
                  struct pipe_plan **out, struct cs_err *e)
{
	struct pipe_plan *p = xcalloc(1, sizeof(*p));
	struct scope sc;

	*out = NULL;
	p->d = d;
	params_copy(&p->args, args);
	scope_init(&p->caller);
	if (caller)
		scope_append(&p->caller, caller);
	p->src_buf = pipe_desc_buffer(d, d->source.buffer);
	p->sink_buf = pipe_desc_buffer(d, d->sink.buffer);
	pipe_scope(p, &sc);
	p->stages = xcalloc(d->nstages, sizeof(*p->stages));
	p->nstages = d->nstages;
	if (eval_buffers(p, &sc, e))
		goto fail;
	for (size_t k = 0; k < d->nstages; k++)
		if (plan_stage(p, k, e))
			goto fail;
	if (check_dataflow(p, e) ||
	    (d->source.files ? list_files(p, e) : open_generator(p, &sc, e)) ||
	    check_sink(p, &sc, e) || check_sink_unique(p, e) || check_sink_dir(p, e))
		goto fail;
	*out = p;
	return 0;
fail:
	pipe_plan_free(p);
	return -1;
}

void pipe_plan_free(struct pipe_plan *p)
{
	if (!p)
		return;
	for (size_t k = 0; k < p->nstages; k++) {
		job_plan_free(p->stages[k].jp);
		free(p->stages[k].buf);
	}
	for (size_t i = 0; p->files && i < p->items; i++)
		free(p->files[i]);
	free(p->files);
	free(p->stages);
	free(p->bufs);
	exe_free(p->gen);
	params_free(&p->args);
	free(p);
}

int pipe_plan_generator(const struct pipe_plan *p, size_t index, struct job_plan **out,
                        struct cs_err *e)
{
	struct params idx = PARAMS_INIT;
	struct scope sc, rest;
	struct plan_env env;
	char num[32];
	int rc;

	snprintf(num, sizeof(num), "%zu", index);
	params_set(&idx, "index", num, "item number");
	pipe_scope(p, &rest);
	scope_init(&sc);
	scope_push(&sc, &idx);
	scope_append(&sc, &rest);
	env = (struct plan_env){&sc, p->device_cli, resolve_item_buffer, (void *)p, true};
	rc = plan_exe(p->gen, &env, out, e);
	params_free(&idx);
	if (rc)
		return err_prefix(e, "%s:%d: <Source> (item %zu): ", p->d->file, p->d->source.line,
		                  index);
	return 0;
}

char *pipe_plan_item_name(const struct pipe_plan *p, size_t index)
{
	const char *base, *dot;

	if (!p->files)
		return xasprintf("%zu", index);
	base = path_basename(p->files[index]);
	dot = strrchr(base, '.');
	return dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
}

char *pipe_plan_sink_path(const struct pipe_plan *p, size_t index)
{
	struct strbuf sb = STRBUF_INIT;
	char *name = pipe_plan_item_name(p, index);

	for (const char *s = p->d->sink.files; *s;) {
		if (strncmp(s, "{name}", 6) == 0) {
			sb_adds(&sb, name);
			s += 6;
		} else if (strncmp(s, "{index}", 7) == 0) {
			sb_addf(&sb, "%zu", index);
			s += 7;
		} else {
			sb_addc(&sb, *s++);
		}
	}
	free(name);
	return sb_detach(&sb);
}
