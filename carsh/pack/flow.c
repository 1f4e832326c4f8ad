/*
 * The batch, flattened (004 §5.3.2: the processing flow that becomes one scenario). Repeats
 * are unrolled, nested batches inlined in their own scope, and <Command> lines parsed with
 * the shell's grammar. The steps from the first Exec to the last are the flow; the steps
 * before it (set-up) and after it (clean-up) stay in the packed batch as they were. Inside
 * the flow, the names of virtual buffers are followed through `virtbuf swap`, so that every
 * stream of every Exec is bound to the buffer it really reads or writes (pk_phys); after
 * the flow, the clean-up is read to see which buffers' contents can still be seen.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/xmltext.h"
#include "util/relpath.h"
#include "model/planner.h"
#include "pack/pack.h"
#include "model/cmdline.h"
#include "util/alloc.h"
#include "util/path.h"

#define FLAT_LIMIT (1u << 20)
#define NEST_LIMIT 64

/* Flattened steps: one per XML step, one per command of a <Command>. */
enum fs_kind {
	FS_EXEC,
	FS_SWAP,
	FS_FILL_VALUE,
	FS_FILL_FILE,
	FS_CREATE,
	FS_DUMP,
	FS_DELETE,
	FS_DELETE_ALL,
	FS_SYNC,
	FS_ECHO,
	FS_OPAQUE, /* a command pack does not look into */
};

struct fstep {
	enum fs_kind kind;
	char *where;
	const struct scope *sc;
	/* names: swap a b; fill, dump, create: a; delete: names */
	char *a, *b;
	char *value;
	struct strvec names;
	/* FS_EXEC */
	const struct exe *exe;
	struct params *args; /* run NAME=VALUE words, or NULL */
	/* the packed batch: this step's XML when it stays there; a <Command> split by the flow
	 * writes its parts one by one (part), else the whole line once (group_xml on its first
	 * part, group_n parts) */
	char *xml;
	char *group_xml;
	int group; /* -1, or the <Command> it is part of */
	size_t group_first, group_last;
	bool redirected;    /* a command with < or > */
	bool modifies_vars; /* set, unset */
};

struct flat {
	struct pack *pk;
	struct cs_err *e;
	struct fstep *v;
	size_t n, cap;
	/* owned along the way */
	struct batch **batches;
	size_t nbatches, bcap;
	struct scope **scopes;
	size_t nscopes, scap;
	struct params **sets;
	size_t nsets, pcap;
	struct exe **exes;
	size_t nexes, ecap;
	int ngroups;
	/* nested batches being read, for recursion */
	char *chain[NEST_LIMIT];
	int depth;
	const char *out_dir; /* paths in the packed batch are relative to it ("" none) */
};

static struct fstep *add(struct flat *F, enum fs_kind k, const struct scope *sc, char *where)
{
	struct fstep *s;

	F->v = xgrow(F->v, &F->cap, F->n + 1, sizeof(*F->v));
	s = memset(&F->v[F->n++], 0, sizeof(*F->v));
	s->kind = k;
	s->sc = sc;
	s->where = where;
	s->group = -1;
	return s;
}

static struct params *new_params(struct flat *F)
{
	struct params *p = xcalloc(1, sizeof(*p));

	F->sets = xgrow(F->sets, &F->pcap, F->nsets + 1, sizeof(*F->sets));
	F->sets[F->nsets++] = p;
	return p;
}

static struct scope *new_scope(struct flat *F)
{
	struct scope *sc = xcalloc(1, sizeof(*sc));

	scope_init(sc);
	F->scopes = xgrow(F->scopes, &F->scap, F->nscopes + 1, sizeof(*F->scopes));
	F->scopes[F->nscopes++] = sc;
	return sc;
}

static void keep_exe(struct flat *F, struct exe *x)
{
	F->exes = xgrow(F->exes, &F->ecap, F->nexes + 1, sizeof(*F->exes));
	F->exes[F->nexes++] = x;
}

static char *where_of(const struct batch *b, const struct step *s)
{
	const char *file = s->file ? s->file : s->name;

	if (s->kind == STEP_VIRTBUF)
		return xasprintf("%s:%d: <Virtbuf op=\"%s\">", b->file, s->line,
		                 vbuf_op_name(s->op));
	if (file)
		return xasprintf("%s:%d: <%s %s=\"%s\">", b->file, s->line, step_kind_tag(s->kind),
		                 s->file ? "file" : "name", path_basename(file));
	return xasprintf("%s:%d: <%s>", b->file, s->line, step_kind_tag(s->kind));
}

/* ---- XML of the steps that stay around the flow ---- */

static char *rel_path(struct flat *F, const char *path)
{
	if (!F->out_dir || !F->out_dir[0])
		return xstrdup(path);
	return path_from_dir(F->out_dir, path);
}

/* An expression attribute: as written when the step runs in the top batch's own scope,
 * evaluated otherwise. */
static int expr_attr(struct flat *F, struct strbuf *sb, const char *name, const char *text,
                     const struct scope *sc, bool top)
{
	long long v;
	char num[32];

	if (top) {
		pack_attr(sb, name, text);
		return 0;
	}
	if (scope_eval(sc, text, &v, F->e))
		return -1;
	snprintf(num, sizeof(num), "%lld", v);
	pack_attr(sb, name, num);
	return 0;
}

static int virtbuf_xml(struct flat *F, const struct step *s, const struct scope *sc, bool top,
                       char **out)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = 0;

	sb_adds(&sb, "<Virtbuf");
	pack_attr(&sb, "op", vbuf_op_name(s->op));
	if (s->name)
		pack_attr(&sb, "name", s->name);
	if (s->op == VB_CREATE) {
		pack_attr(&sb, "type", s->type);
		rc = expr_attr(F, &sb, "count", s->count, sc, top);
	} else if (s->op == VB_FILL && s->value) {
		pack_attr(&sb, "value", s->value);
	} else if (s->op == VB_SWAP) {
		pack_attr(&sb, "with", s->with);
	} else if (s->op == VB_DELETE && s->all) {
		pack_attr(&sb, "all", "true");
	}
	if (s->file && (s->op == VB_FILL || s->op == VB_DUMP)) {
		char *rel = rel_path(F, s->file);

		pack_attr(&sb, "file", rel);
		free(rel);
	}
	if (s->op == VB_DUMP && s->columns && rc == 0)
		rc = expr_attr(F, &sb, "columns", s->columns, sc, top);
	sb_adds(&sb, "/>");
	*out = sb_detach(&sb);
	return rc;
}

static void text_xml(const char *tag, const char *text, char **out)
{
	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb, "<%s>", tag);
	sb_add_xml(&sb, text);
	sb_addf(&sb, "</%s>", tag);
	*out = sb_detach(&sb);
}

/* A word for the shell: as it is when that is safe, else in single quotes. */
static void shell_word(struct strbuf *sb, const char *w)
{
	bool plain = w[0] != '\0';

	for (const char *p = w; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		               "_-+=./,:%@",
		               *p) != NULL;
	if (plain) {
		sb_adds(sb, w);
		return;
	}
	sb_addc(sb, '\'');
	for (const char *p = w; *p; p++) {
		if (*p == '\'')
			sb_adds(sb, "'\\''");
		else
			sb_addc(sb, *p);
	}
	sb_addc(sb, '\'');
}

static char *command_line(const struct command *c)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < c->argv.n; i++) {
		if (i)
			sb_addc(&sb, ' ');
		shell_word(&sb, c->argv.v[i]);
	}
	if (c->redir_in) {
		sb_adds(&sb, " < ");
		shell_word(&sb, c->redir_in);
	}
	if (c->redir_out) {
		sb_adds(&sb, c->append ? " >> " : " > ");
		shell_word(&sb, c->redir_out);
	}
	if (c->background)
		sb_adds(&sb, " &");
	return sb_detach(&sb);
}

/* ---- flattening ---- */

static int flatten_steps(struct flat *F, const struct batch *b, const struct step *steps, size_t n,
                         const struct scope *sc, bool top);

static int too_many(struct flat *F, const char *where)
{
	if (F->n < FLAT_LIMIT)
		return 0;
	return err_set(F->e, "%s: the batch has more than %u steps once its repeats are unrolled",
	               where, FLAT_LIMIT);
}

/* The scope of a nested batch, as the batch runner makes it: the arguments, the caller's
 * scope, the batch's defaults, BATCH_DIR. */
static const struct scope *nested_scope(struct flat *F, const struct params *args,
                                        const struct scope *caller, const struct batch *b)
{
	struct scope *sc = new_scope(F);

	batch_scope(sc, args, caller, b, new_params(F));
	return sc;
}

static int flatten_batch_file(struct flat *F, const char *path, const struct params *args,
                              const struct scope *caller, const char *where)
{
	char real[PATH_MAX];
	struct batch *b;
	int rc;

	if (F->depth >= NEST_LIMIT)
		return err_set(F->e, "%s: batches nested more than %d deep", where, NEST_LIMIT);
	if (!realpath(path, real))
		return err_errno(F->e, "%s: %s", where, path);
	for (int i = 0; i < F->depth; i++)
		if (strcmp(F->chain[i], real) == 0)
			return err_set(F->e, "%s: batch recursion: %s runs itself", where, path);
	if (batch_read(path, &b, F->e))
		return err_prefix(F->e, "%s: ", where);
	F->batches = xgrow(F->batches, &F->bcap, F->nbatches + 1, sizeof(*F->batches));
	F->batches[F->nbatches++] = b;
	F->chain[F->depth++] = xstrdup(real);
	rc = flatten_steps(F, b, b->steps, b->nsteps, nested_scope(F, args, caller, b), false);
	free(F->chain[--F->depth]);
	return rc;
}

static int words_to_params(struct flat *F, int n, char **w, struct params *args, const char *where)
{
	for (int i = 0; i < n; i++) {
		const char *eq = strchr(w[i], '=');
		char *name;

		if (!eq || eq == w[i])
			return err_set(F->e, "%s: '%s': expected NAME=VALUE", where, w[i]);
		name = xstrndup(w[i], (size_t)(eq - w[i]));
		if (!param_name_valid(name)) {
			err_set(F->e, "%s: '%s' is not a valid parameter name", where, name);
			free(name);
			return -1;
		}
		params_set(args, name, eq + 1, "command line");
		free(name);
	}
	return 0;
}

/* NAME=VALUE on a `run` line: a stream of a flow-model bound on the line (STREAM=FILE,
 * STREAM=buffer:NAME), else a parameter. */
static int run_word(struct flat *F, struct exe *x, bool fm, const char *word, struct params *args)
{
	const char *eq = strchr(word, '=');
	char *name = eq && eq != word ? xstrndup(word, (size_t)(eq - word)) : NULL;
	const struct fm_arg *a = name && fm ? flowmodel_arg(x->fm, name, NULL) : NULL;
	int rc = 0;

	if (!name)
		rc = err_set(F->e, "'%s': expected NAME=VALUE or STREAM=FILE", word);
	else if (a && arg_is_stream(a->kind))
		rc = exe_bind_word(x, name, eq + 1, F->e);
	else if (!param_name_valid(name))
		rc = err_set(F->e, "'%s' is not a valid parameter name", name);
	else
		params_set(args, name, eq + 1, "command line");
	free(name);
	return rc;
}

/* `run` of an executable or (fm) a flow-model with the words of its line; *out: what was
 * read, NULL if nothing. */
static int run_exe(struct flat *F, const char *file, bool fm, int nw, char **w, struct params *args,
                   struct exe **out)
{
	struct exe *x = NULL;
	struct flowmodel *flm;
	int rc = 0;

	if (fm && flowmodel_read(file, &flm, F->e) == 0)
		x = exe_wrap_flowmodel(flm);
	else if (!fm)
		exe_read(file, &x, F->e);
	if (!x)
		rc = -1;
	for (int i = 0; i < nw && rc == 0; i++)
		rc = run_word(F, x, fm, w[i], args);
	if (rc == 0 && fm)
		rc = exe_check_bindings(x, true, F->e);
	*out = x;
	return rc;
}

/* `run FILE WORDS` in a <Command>: an executable (an Exec step), a flow-model with its
 * streams bound on the line, or a batch (inlined). */
static int flat_command(struct flat *F, struct command *c, const struct scope *sc, char *where,
                        struct fstep **made)
{
	const char *file = c->argv.v[1];
	int nw = (int)c->argv.n - 2;
	char **w = c->argv.v + 2;
	char *root = xml_root_name(file, F->e);
	struct params *args = new_params(F);
	struct exe *x;
	int rc = 0;

	*made = NULL;
	if (!root)
		return err_prefix(F->e, "%s: ", where);
	if (strcmp(root, "CarshBat") == 0) {
		rc = words_to_params(F, nw, w, args, where);
		if (rc == 0)
			rc = flatten_batch_file(F, file, args, sc, where);
		free(root);
		free(where);
		return rc;
	}
	if (strcmp(root, "CarshExe") != 0 && strcmp(root, "FlowModel") != 0) {
		free(root);
		*made = add(F, FS_OPAQUE, sc, where);
		return 0;
	}
	rc = run_exe(F, file, root[0] == 'F', nw, w, args, &x);
	free(root);
	if (x)
		keep_exe(F, x);
	if (rc) {
		err_prefix(F->e, "%s: ", where);
		free(where);
		return -1;
	}
	*made = add(F, FS_EXEC, sc, where);
	(*made)->exe = x;
	(*made)->args = args;
	return 0;
}

/* One parsed command of a <Command>. */
static int command_step(struct flat *F, struct command *c, const struct scope *sc, char *where,
                        struct fstep **made)
{
	char **v = c->argv.v;
	size_t n = c->argv.n;
	struct fstep *s = NULL;

	*made = NULL;
	if (n >= 2 && strcmp(v[0], "run") == 0 && !c->redir_in && !c->redir_out)
		return flat_command(F, c, sc, where, made);
	if (n >= 2 && strcmp(v[0], "virtbuf") == 0) {
		if (strcmp(v[1], "swap") == 0 && n == 4) {
			s = add(F, FS_SWAP, sc, where);
			s->a = xstrdup(v[2]);
			s->b = xstrdup(v[3]);
		} else if (strcmp(v[1], "fill") == 0 && n == 5 && strcmp(v[3], "--value") == 0) {
			s = add(F, FS_FILL_VALUE, sc, where);
			s->a = xstrdup(v[2]);
			s->value = xstrdup(v[4]);
		} else if (strcmp(v[1], "fill") == 0 && n == 4) {
			s = add(F, FS_FILL_FILE, sc, where);
			s->a = xstrdup(v[2]);
		} else if (strcmp(v[1], "dump") == 0 && n >= 3) {
			s = add(F, FS_DUMP, sc, where);
			s->a = xstrdup(v[2]);
		} else if (strcmp(v[1], "create") == 0 && n == 5) {
			s = add(F, FS_CREATE, sc, where);
			s->a = xstrdup(v[2]);
		} else if (strcmp(v[1], "delete") == 0 && n == 3 && strcmp(v[2], "-a") == 0) {
			s = add(F, FS_DELETE_ALL, sc, where);
		} else if (strcmp(v[1], "delete") == 0 && n >= 3) {
			s = add(F, FS_DELETE, sc, where);
			for (size_t i = 2; i < n; i++)
				sv_push(&s->names, v[i]);
		}
	} else if (n >= 1 && strcmp(v[0], "sync") == 0 && n == 1) {
		s = add(F, FS_SYNC, sc, where);
	} else if (n >= 1 && strcmp(v[0], "echo") == 0) {
		s = add(F, FS_ECHO, sc, where);
	}
	if (!s) {
		s = add(F, FS_OPAQUE, sc, where);
		s->modifies_vars =
		        n >= 1 && (strcmp(v[0], "set") == 0 || strcmp(v[0], "unset") == 0);
	}
	*made = s;
	return 0;
}

static const char *flat_var(void *ctx, const char *name)
{
	const struct param *p = scope_get(ctx, name);

	return p ? p->value : NULL;
}

/* One command c of the <Command> line st, part `group`; *nested: it ran a batch, whose
 * steps stand for it. */
static int command_part(struct flat *F, struct command *c, const struct batch *b,
                        const struct step *st, const struct scope *sc, int group, bool *nested)
{
	char *line = command_line(c);
	struct fstep *s;

	if (command_step(F, c, sc,
	                 xasprintf("%s:%d: <Command>%s</Command>", b->file, st->line, line), &s)) {
		free(line);
		return -1;
	}
	if (!s) {
		/* the line can no longer be written as it was */
		*nested = true;
		free(line);
		return 0;
	}
	s->redirected = c->redir_in || c->redir_out;
	text_xml("Command", line, &s->xml);
	s->group = group;
	if (s->kind == FS_ECHO) {
		free(s->value);
		s->value = line;
		line = NULL;
	}
	free(line);
	return 0;
}

/* Each part of a <Command> line (the steps from first on of group) knows the first and the
 * last; the first keeps the line's XML (*group_xml) when whole: the line is written as it
 * was wherever none of its parts is in the flow. */
static void mark_group(struct flat *F, int group, size_t first, bool whole, char **group_xml)
{
	size_t lo = SIZE_MAX, hi = 0;

	for (size_t i = first; i < F->n; i++)
		if (F->v[i].group == group) {
			lo = lo == SIZE_MAX ? i : lo;
			hi = i;
		}
	for (size_t i = lo; lo != SIZE_MAX && i <= hi; i++)
		if (F->v[i].group == group) {
			F->v[i].group_first = lo;
			F->v[i].group_last = hi;
		}
	if (lo != SIZE_MAX && whole) {
		F->v[lo].group_xml = *group_xml;
		*group_xml = NULL;
	}
}

static int flatten_command(struct flat *F, const struct batch *b, const struct step *st,
                           const struct scope *sc, bool top)
{
	struct shell_lexer lx;
	int group = F->ngroups++;
	size_t first = F->n;
	bool nested = false;
	char *group_xml;

	text_xml("Command", st->text, &group_xml);
	shell_lexer_init(&lx, st->text, b->file, st->line);
	for (;;) {
		struct command c = COMMAND_INIT;
		int r = shell_next(&lx, flat_var, (void *)sc, &c, F->e);
		int rc;

		if (r == SHELL_END)
			break;
		if (r != SHELL_COMMAND)
			rc = err_prefix(F->e, "%s:%d: <Command>: ", b->file, st->line);
		else
			rc = command_part(F, &c, b, st, sc, group, &nested);
		command_free(&c);
		if (rc) {
			free(group_xml);
			return -1;
		}
		if (too_many(F, b->file))
			break;
	}
	mark_group(F, group, first, top && !nested, &group_xml);
	free(group_xml);
	return F->n >= FLAT_LIMIT ? -1 : 0;
}

static int flatten_exec(struct flat *F, const struct batch *b, const struct step *st,
                        const struct scope *sc)
{
	struct fstep *s = add(F, FS_EXEC, sc, where_of(b, st));
	struct exe *x;

	if (st->exe) {
		s->exe = st->exe;
		return 0;
	}
	if (exe_read(st->file, &x, F->e))
		return err_prefix(F->e, "%s: ", s->where);
	keep_exe(F, x);
	s->exe = x;
	return 0;
}

static int flatten_virtbuf(struct flat *F, const struct batch *b, const struct step *st,
                           const struct scope *sc, bool top)
{
	static const enum fs_kind kinds[] = {FS_CREATE, FS_FILL_VALUE, FS_DUMP, FS_SWAP, FS_DELETE};
	enum fs_kind k = kinds[st->op];
	struct fstep *s;

	if (st->op == VB_FILL && !st->value)
		k = FS_FILL_FILE;
	if (st->op == VB_DELETE && st->all)
		k = FS_DELETE_ALL;
	s = add(F, k, sc, where_of(b, st));
	s->a = st->name ? xstrdup(st->name) : NULL;
	s->b = st->with ? xstrdup(st->with) : NULL;
	s->value = st->value ? xstrdup(st->value) : NULL;
	if (k == FS_DELETE)
		sv_push(&s->names, st->name);
	return virtbuf_xml(F, st, sc, top, &s->xml) ? err_prefix(F->e, "%s: ", s->where) : 0;
}

/* An <Echo>: as written in the top batch's own scope, expanded in a nested batch's. */
static int flatten_echo(struct flat *F, const struct batch *b, const struct step *st,
                        const struct scope *sc, bool top)
{
	struct fstep *s = add(F, FS_ECHO, sc, where_of(b, st));

	if (top) {
		text_xml("Echo", st->text, &s->xml);
		s->value = xstrdup(st->text);
		return 0;
	}
	if (scope_expand(sc, st->text, &s->value, F->e))
		return err_prefix(F->e, "%s: ", s->where);
	text_xml("Echo", s->value, &s->xml);
	return 0;
}

/* Where a step is flattened: the visitor's context. */
struct flat_at {
	struct flat *F;
	const struct batch *b;
	const struct scope *sc;
	bool top;
};

static int visit_exec(void *ctx, const struct step *st)
{
	const struct flat_at *a = ctx;

	return flatten_exec(a->F, a->b, st, a->sc);
}

static int visit_virtbuf(void *ctx, const struct step *st)
{
	const struct flat_at *a = ctx;

	return flatten_virtbuf(a->F, a->b, st, a->sc, a->top);
}

static int visit_sync(void *ctx, const struct step *st)
{
	const struct flat_at *a = ctx;
	struct fstep *s = add(a->F, FS_SYNC, a->sc, where_of(a->b, st));

	s->xml = xstrdup("<Sync/>");
	return 0;
}

static int visit_echo(void *ctx, const struct step *st)
{
	const struct flat_at *a = ctx;

	return flatten_echo(a->F, a->b, st, a->sc, a->top);
}

static int visit_repeat(void *ctx, const struct step *st)
{
	const struct flat_at *a = ctx;
	long long count;

	/* Its runs depend on device results, which a flat list of steps cannot know. */
	if (st->has_until)
		return err_set(a->F->e,
		               "%s:%d: <Repeat until>: pack cannot unroll a loop that stops "
		               "on a device result; give it count= or leave it out of the pack",
		               a->b->file, st->line);
	if (scope_eval_range(a->sc, st->count, "repeat count", 0, FLAT_LIMIT, &count, a->F->e))
		return err_prefix(a->F->e, "%s:%d: <Repeat>: ", a->b->file, st->line);
	for (long long i = 0; i < count; i++)
		if (flatten_steps(a->F, a->b, st->steps, st->nsteps, a->sc, a->top))
			return -1;
	return 0;
}

static int visit_batch(void *ctx, const struct step *st)
{
	const struct flat_at *a = ctx;
	char *where = where_of(a->b, st);
	int rc = flatten_batch_file(a->F, st->file, &st->params, a->sc, where);

	free(where);
	return rc;
}

static int visit_command(void *ctx, const struct step *st)
{
	const struct flat_at *a = ctx;

	return flatten_command(a->F, a->b, st, a->sc, a->top);
}

static const struct step_visitor flat_visitor = {
        .virtbuf = visit_virtbuf,
        .exec = visit_exec,
        .sync = visit_sync,
        .repeat = visit_repeat,
        .batch = visit_batch,
        .command = visit_command,
        .echo = visit_echo,
};

static int flatten_steps(struct flat *F, const struct batch *b, const struct step *steps, size_t n,
                         const struct scope *sc, bool top)
{
	struct flat_at at = {F, b, sc, top};

	for (size_t i = 0; i < n; i++)
		if (step_visit(&steps[i], &flat_visitor, &at) || too_many(F, b->file))
			return -1;
	return 0;
}

/* ---- buffers ---- */

struct names {
	struct strvec name;
	int *phys;
	size_t cap;
};

static int name_find(const struct names *nm, const char *name)
{
	for (size_t i = 0; i < nm->name.n; i++)
		if (strcmp(nm->name.v[i], name) == 0)
			return (int)i;
	return -1;
}

static int new_phys(struct pack *pk, enum phys_kind k, const char *name)
{
	struct pk_phys *p;

	pk->phys = xgrow(pk->phys, &pk->phys_cap, pk->nphys + 1, sizeof(*pk->phys));
	p = memset(&pk->phys[pk->nphys], 0, sizeof(*p));
	p->kind = k;
	p->name = xstrdup(name);
	p->cur = -1;
	p->init = -1;
	return (int)pk->nphys++;
}

/* The buffer a name stands for now; a name seen for the first time is a buffer that
 * exists when the flow starts. */
static int name_phys(struct pack *pk, struct names *nm, const char *name)
{
	int i = name_find(nm, name);

	if (i >= 0)
		return nm->phys[i];
	nm->phys = xgrow(nm->phys, &nm->cap, nm->name.n + 1, sizeof(*nm->phys));
	nm->phys[nm->name.n] = new_phys(pk, PHYS_VBUF, name);
	sv_push(&nm->name, name);
	return nm->phys[nm->name.n - 1];
}

static int file_phys(struct pack *pk, const char *path)
{
	char cwd[PATH_MAX];
	char *norm = path_is_stdio(path)
	                     ? xstrdup(path)
	                     : path_normalise(path, getcwd(cwd, sizeof(cwd)) ? cwd : "/");
	int found = -1;

	for (size_t i = 0; i < pk->nphys && found < 0; i++)
		if (pk->phys[i].kind == PHYS_FILE && strcmp(pk->phys[i].name, norm) == 0)
			found = (int)i;
	if (found < 0)
		found = new_phys(pk, PHYS_FILE, norm);
	free(norm);
	return found;
}

static int type_check(struct pack *pk, int p, const struct kernel_arg *a, const char *where,
                      struct cs_err *e)
{
	struct pk_phys *ph = &pk->phys[p];
	char t1[16], t2[16];

	if (!ph->typed) {
		ph->typed = true;
		ph->type = a->type;
		ph->count = a->count;
		return 0;
	}
	if (ph->type.scalar == a->type.scalar && ph->type.width == a->type.width &&
	    ph->count == a->count)
		return 0;
	return err_set(e,
	               "%s: stream '%s' is %zu %s, but %s '%s' is used as %zu %s elsewhere in "
	               "the flow",
	               where, a->name, a->count, type_name(a->type, t1, sizeof(t1)),
	               ph->kind == PHYS_FILE ? "file" : "buffer", ph->name, ph->count,
	               type_name(ph->type, t2, sizeof(t2)));
}

static int resolve_any(void *ctx, const char *name, struct cs_type type, size_t count, char **shm,
                       struct cs_err *e)
{
	(void)ctx;
	(void)name;
	(void)type;
	(void)count;
	(void)e;
	*shm = xstrdup("-");
	return 0;
}

/* Standard output inside the flow: one Exec may write it, and no Echo may come before it
 * (the packed run prints it at its end, and the echoes after that). */
struct stdio_use {
	int writer; /* the Exec that writes standard output, -1 */
	bool echoed;
};

/* Plan an Exec in its scope (its run's NAME=VALUE words first) as the next pk_exec. */
static struct pk_exec *plan_exec(struct pack *pk, const struct fstep *s, struct cs_err *e)
{
	struct scope sc;
	struct plan_env env;
	struct pk_exec *x;

	scope_init(&sc);
	if (s->args)
		scope_push(&sc, s->args);
	scope_append(&sc, s->sc);
	env = (struct plan_env){.caller = &sc, .resolve = resolve_any};
	pk->execs = xgrow(pk->execs, &pk->exec_cap, pk->nexecs + 1, sizeof(*pk->execs));
	x = memset(&pk->execs[pk->nexecs], 0, sizeof(*x));
	x->where = xstrdup(s->where);
	x->label = xstrdup(path_basename(s->exe->file));
	if (plan_exe(s->exe, &env, &x->jp, e)) {
		free(x->where);
		free(x->label);
		err_prefix(e, "%s: ", s->where);
		return NULL;
	}
	pk->nexecs++;
	x->device_exe = s->exe->device ? xstrdup(s->exe->device) : NULL;
	return x;
}

/* Bind stream i of the newest Exec x to its buffer (x->phys[i]; -1 for constants, local
 * memory, <Fill> and <Discard/>), typed by the stream. */
static int bind_stream(struct pack *pk, struct names *nm, struct pk_exec *x, size_t i,
                       const char *where, struct stdio_use *io, struct cs_err *e)
{
	const struct stream_bind *b = &x->jp->binds[i];
	const struct kernel_arg *a = &x->jp->kp.args[i];
	int self = (int)pk->nexecs - 1;
	bool stdio;

	x->phys[i] = -1;
	if (a->kind == ARG_CONSTANT || a->kind == ARG_LOCAL)
		return 0;
	stdio = b->how == BIND_FILE && path_is_stdio(b->path);
	if (stdio && a->kind != ARG_OUTPUT)
		return err_set(e,
		               "%s: stream '%s' reads standard input; inside the flow pack takes "
		               "streams from buffers, files, <Fill> or <Discard/> only",
		               where, a->name);
	if (stdio && ((io->writer >= 0 && io->writer != self) || io->echoed))
		return err_set(e,
		               "%s: stream '%s' writes standard output after %s inside the flow; "
		               "the packed run prints once, at its end, so only one Exec may write "
		               "it, with no Echo before it",
		               where, a->name, io->echoed ? "an Echo" : "another Exec that does");
	if (b->how == BIND_BUFFER)
		x->phys[i] = name_phys(pk, nm, b->buffer);
	else if (b->how == BIND_FILE)
		x->phys[i] = file_phys(pk, b->path);
	if (stdio)
		io->writer = self;
	if (x->phys[i] >= 0 && type_check(pk, x->phys[i], a, where, e))
		return -1;
	if (x->phys[i] >= 0 && b->how == BIND_FILE && a->kind != ARG_INPUT) {
		pk->phys[x->phys[i]].columns = b->columns;
		pk->phys[x->phys[i]].columns_given = b->columns_given;
	}
	return 0;
}

/* Two streams of one Exec that write one buffer, or a swap pair with an InOut stream. */
static int check_writes(const struct pack *pk, const struct pk_exec *x, const char *where,
                        struct cs_err *e)
{
	const struct kernel_plan *kp = &x->jp->kp;

	for (size_t i = 0; i < kp->nargs; i++)
		for (size_t j = i + 1; j < kp->nargs; j++)
			if (x->phys[i] >= 0 && x->phys[i] == x->phys[j] &&
			    kp->args[i].kind != ARG_INPUT && kp->args[j].kind != ARG_INPUT)
				return err_set(
				        e,
				        "%s: streams '%s' and '%s' both write '%s'; which one "
				        "wins is not defined",
				        where, kp->args[i].name, kp->args[j].name,
				        pk->phys[x->phys[i]].name);
	for (size_t p = 0; p < kp->npairs; p++) {
		const struct kernel_arg *in = &kp->args[kp->pairs[p].input];
		const struct kernel_arg *out = &kp->args[kp->pairs[p].output];

		if (in->kind == ARG_INOUT || out->kind == ARG_INOUT)
			return err_set(e,
			               "%s: swap pair '%s'/'%s' has an InOut stream; pack takes "
			               "swap pairs of an Input and an Output",
			               where, in->name, out->name);
	}
	return 0;
}

/* Plan one Exec in its scope and bind its streams to buffers. */
static int flow_exec(struct pack *pk, struct names *nm, const struct fstep *s, struct stdio_use *io,
                     struct cs_err *e)
{
	struct pk_exec *x = plan_exec(pk, s, e);
	size_t nargs;

	if (!x)
		return -1;
	nargs = x->jp->kp.nargs;
	x->phys = xcalloc(nargs + 1, sizeof(*x->phys));
	for (size_t i = 0; i < nargs; i++)
		if (bind_stream(pk, nm, x, i, s->where, io, e))
			return -1;
	return check_writes(pk, x, s->where, e);
}

static void add_op(struct pack *pk, struct flow_op op)
{
	pk->ops = xgrow(pk->ops, &pk->ops_cap, pk->nops + 1, sizeof(*pk->ops));
	pk->ops[pk->nops++] = op;
}

static int refuse_inside(const struct fstep *s, const char *what, struct cs_err *e)
{
	return err_set(e,
	               "%s: %s between the first and the last Exec of the flow; pack moves only "
	               "Exec, virtbuf swap, virtbuf fill with a value, Sync and Echo into the "
	               "packed run: put it before the first Exec or after the last",
	               s->where, what);
}

/* One step inside the flow: an Exec's runs, a swap of names, a fill, or an Echo for after
 * the packed run; anything else is refused. */
static int flow_step(struct pack *pk, struct names *nm, const struct fstep *s, struct stdio_use *io,
                     struct cs_err *e)
{
	int a, b;

	switch (s->kind) {
	case FS_EXEC:
		if (flow_exec(pk, nm, s, io, e))
			return -1;
		for (long long r = 0; r <= pk->execs[pk->nexecs - 1].jp->kp.swap_count; r++)
			add_op(pk,
			       (struct flow_op){.kind = FO_RUN, .exec = pk->nexecs - 1, .run = r});
		return 0;
	case FS_SWAP:
		a = name_phys(pk, nm, s->a);
		b = name_phys(pk, nm, s->b);
		nm->phys[name_find(nm, s->a)] = b;
		nm->phys[name_find(nm, s->b)] = a;
		pack_partner(pk, a, b);
		return 0;
	case FS_FILL_VALUE:
		add_op(pk, (struct flow_op){.kind = FO_FILL,
		                            .phys = name_phys(pk, nm, s->a),
		                            .where = xstrdup(s->where),
		                            .text = xstrdup(s->value)});
		return 0;
	case FS_SYNC:
		return 0;
	case FS_ECHO:
		sv_push(&pk->after, s->xml);
		io->echoed = true;
		return 0;
	case FS_FILL_FILE:
		return refuse_inside(s, "a virtbuf fill from a file", e);
	case FS_CREATE:
		return refuse_inside(s, "virtbuf create", e);
	case FS_DUMP:
		return refuse_inside(s, "virtbuf dump", e);
	case FS_DELETE:
	case FS_DELETE_ALL:
		return refuse_inside(s, "virtbuf delete", e);
	case FS_OPAQUE:
		return refuse_inside(s,
		                     s->redirected ? "a redirected command"
		                                   : "a command pack does not understand",
		                     e);
	}
	return 0;
}

static int flow_steps(struct pack *pk, struct flat *F, size_t first, size_t last, struct names *nm,
                      struct cs_err *e)
{
	struct stdio_use io = {-1, false};

	for (size_t i = first; i <= last; i++)
		if (flow_step(pk, nm, &F->v[i], &io, e))
			return -1;
	/* Fills: the values parsed in their buffers' types, which the Execs told. */
	for (size_t i = 0; i < pk->nops; i++) {
		struct flow_op *op = &pk->ops[i];
		struct pk_phys *ph = &pk->phys[op->phys];

		if (op->kind == FO_FILL && ph->typed &&
		    vector_parse(ph->type, op->text, op->value, e))
			return err_prefix(e, "%s: ", op->where);
	}
	return 0;
}

/* The clean-up read with the names as the flow leaves them; decided[p]: buffer p's
 * live_end is known. */
struct cleanup_walk {
	struct pack *pk;
	struct names cur;
	unsigned char *decided;
};

static void decide(struct cleanup_walk *w, int p, bool live)
{
	if (p >= 0 && !w->decided[p]) {
		w->decided[p] = 1;
		w->pk->phys[p].live_end = live;
	}
}

static void cleanup_delete(struct cleanup_walk *w, const struct strvec *names)
{
	for (size_t k = 0; k < names->n; k++) {
		int j = name_find(&w->cur, names->v[k]);

		if (j >= 0) {
			decide(w, w->cur.phys[j], false);
			w->cur.phys[j] = -1;
		}
	}
}

/* A swap of names a and b (-1: a name the flow does not know); false where the reading
 * stops. */
static bool cleanup_swap(struct cleanup_walk *w, int a, int b)
{
	int t;

	if (a < 0 && b < 0)
		return true;
	if (a < 0 || b < 0)
		return false; /* a buffer the flow does not know: be careful */
	t = w->cur.phys[a];
	w->cur.phys[a] = w->cur.phys[b];
	w->cur.phys[b] = t;
	return true;
}

/* One step of the clean-up; false where the reading stops: an Exec or a command pack
 * does not understand might read any buffer. */
static bool cleanup_step(struct cleanup_walk *w, const struct fstep *s)
{
	int a = s->a ? name_find(&w->cur, s->a) : -1;
	int pa = a >= 0 ? w->cur.phys[a] : -1;

	switch (s->kind) {
	case FS_DUMP:
		decide(w, pa, true);
		return true;
	case FS_FILL_VALUE:
	case FS_FILL_FILE:
		decide(w, pa, false);
		return true;
	case FS_DELETE:
		cleanup_delete(w, &s->names);
		return true;
	case FS_DELETE_ALL:
		for (size_t k = 0; k < w->pk->nphys; k++)
			if (w->pk->phys[k].kind == PHYS_VBUF)
				decide(w, (int)k, false);
		return true;
	case FS_SWAP:
		return cleanup_swap(w, a, name_find(&w->cur, s->b));
	case FS_CREATE:
		if (a >= 0)
			w->cur.phys[a] = -1;
		return true;
	case FS_SYNC:
	case FS_ECHO:
		return true;
	case FS_EXEC:
	case FS_OPAQUE:
		return false;
	}
	return true;
}

/* Whether each buffer's content after the flow can be seen: read the clean-up with the
 * names as the flow leaves them. A buffer deleted, or filled, before anything reads it
 * cannot; anything else can (a command pack does not understand might read any). */
static void cleanup_liveness(struct pack *pk, struct flat *F, size_t from, struct names *nm)
{
	struct cleanup_walk w = {pk, {STRVEC_INIT, NULL, 0}, xcalloc(pk->nphys + 1, 1)};

	sv_copy(&w.cur.name, &nm->name);
	w.cur.phys = xcalloc(nm->name.n + 1, sizeof(*w.cur.phys));
	if (nm->name.n)
		memcpy(w.cur.phys, nm->phys, nm->name.n * sizeof(*w.cur.phys));
	for (size_t i = from; i < F->n && cleanup_step(&w, &F->v[i]); i++)
		;
	for (size_t i = 0; i < pk->nphys; i++)
		if (!w.decided[i])
			pk->phys[i].live_end = true;
	free(w.decided);
	sv_free(&w.cur.name);
	free(w.cur.phys);
}

/* After the packed run the buffers have their names from the flow's start: the swaps that
 * give them the names the flow leaves them with. */
static void swap_names_after(struct pack *pk, struct names *nm)
{
	size_t n = nm->name.n;
	size_t *have = xcalloc(n + 1, sizeof(*have));

	/* have[i]: the name whose buffer of the flow's start name i now holds */
	for (size_t i = 0; i < n; i++) {
		have[i] = i;
		free(pk->phys[nm->phys[i]].final_name);
		pk->phys[nm->phys[i]].final_name = xstrdup(nm->name.v[i]);
	}
	for (size_t i = 0; i < n; i++) {
		const char *want = pk->phys[nm->phys[i]].name;
		size_t j = i;

		while (j < n && strcmp(want, nm->name.v[have[j]]) != 0)
			j++;
		if (j < n && j != i) {
			struct strbuf sb = STRBUF_INIT;
			size_t t = have[i];

			sb_adds(&sb, "<Virtbuf op=\"swap\"");
			pack_attr(&sb, "name", nm->name.v[i]);
			pack_attr(&sb, "with", nm->name.v[j]);
			sb_adds(&sb, "/>");
			sv_push_owned(&pk->after, sb_detach(&sb));
			have[i] = have[j];
			have[j] = t;
		}
	}
	free(have);
}

/* The fills of buffers no Exec of the flow uses: after the packed run (only the last one
 * counts, and nothing in the flow reads them). */
static void fills_after(struct pack *pk, struct names *nm)
{
	for (size_t p = 0; p < pk->nphys; p++) {
		const struct flow_op *last = NULL;
		struct strbuf sb = STRBUF_INIT;

		for (size_t i = 0; i < pk->nops; i++)
			if (pk->ops[i].kind == FO_FILL && pk->ops[i].phys == (int)p &&
			    !pk->phys[p].typed)
				last = &pk->ops[i];
		if (!last)
			continue;
		for (size_t i = 0; i < nm->name.n; i++)
			if (nm->phys[i] == (int)p) {
				sb_adds(&sb, "<Virtbuf op=\"fill\"");
				pack_attr(&sb, "name", nm->name.v[i]);
				pack_attr(&sb, "value", last->text);
				sb_adds(&sb, "/>");
				sv_push_owned(&pk->after, sb_detach(&sb));
				sv_push_owned(
				        &pk->notes,
				        xasprintf("%s: no Exec of the flow uses '%s': the fill "
				                  "moves after the packed run",
				                  last->where, nm->name.v[i]));
			}
	}
}

/* What the packed batch does right after the packed run: the swaps and fills, then the
 * Echo steps of the flow (collected first, in pk->after). */
static void steps_after(struct pack *pk, struct names *nm)
{
	struct strvec echoes = pk->after;

	pk->after = (struct strvec)STRVEC_INIT;
	swap_names_after(pk, nm);
	fills_after(pk, nm);
	for (size_t i = 0; i < echoes.n; i++)
		sv_push(&pk->after, echoes.v[i]);
	if (echoes.n)
		sv_push(&pk->notes, "the Echo steps inside the flow print after the packed run");
	sv_free(&echoes);
}

static void free_flat(struct flat *F)
{
	for (size_t i = 0; i < F->n; i++) {
		struct fstep *s = &F->v[i];

		free(s->where);
		free(s->a);
		free(s->b);
		free(s->value);
		free(s->xml);
		free(s->group_xml);
		sv_free(&s->names);
	}
	free(F->v);
	for (size_t i = 0; i < F->nexes; i++)
		exe_free(F->exes[i]);
	free(F->exes);
	for (size_t i = 0; i < F->nbatches; i++)
		batch_free(F->batches[i]);
	free(F->batches);
	for (size_t i = 0; i < F->nsets; i++) {
		params_free(F->sets[i]);
		free(F->sets[i]);
	}
	free(F->sets);
	for (size_t i = 0; i < F->nscopes; i++)
		free(F->scopes[i]);
	free(F->scopes);
}

/* The XML of the steps in [from, to) for the packed batch. A <Command> whose commands all
 * lie there is written once as it was; one split by the flow, command by command. */
static void region_xml(struct flat *F, size_t from, size_t to, struct strvec *out)
{
	for (size_t i = from; i < to; i++) {
		const struct fstep *s = &F->v[i];
		const struct fstep *g = s->group >= 0 ? &F->v[s->group_first] : NULL;
		bool whole = g && g->group_xml && s->group_first >= from && s->group_last < to;

		if (whole) {
			if (i == s->group_first)
				sv_push(out, g->group_xml);
			continue;
		}
		if (s->xml)
			sv_push(out, s->xml);
	}
}

int pack_flow(struct pack *pk, const struct batch *b, const struct scope *scope, struct cs_err *e)
{
	struct flat F = {0};
	struct names nm = {STRVEC_INIT, NULL, 0};
	size_t first = SIZE_MAX, last = 0;
	int rc;

	F.pk = pk;
	F.e = e;
	F.out_dir = pk->dir;
	rc = flatten_steps(&F, b, b->steps, b->nsteps, scope, true);
	for (size_t i = 0; rc == 0 && i < F.n; i++)
		if (F.v[i].kind == FS_EXEC) {
			if (first == SIZE_MAX)
				first = i;
			last = i;
		}
	if (rc == 0 && first == SIZE_MAX)
		rc = err_set(e,
		             "%s: no <Exec> (nor a `run` of an executable): there is no flow "
		             "to pack",
		             b->file);
	if (rc == 0) {
		for (size_t i = first; i <= last; i++)
			if (F.v[i].kind == FS_OPAQUE && F.v[i].modifies_vars) {
				rc = refuse_inside(&F.v[i], "a command that sets variables", e);
				break;
			}
	}
	if (rc == 0)
		rc = flow_steps(pk, &F, first, last, &nm, e);
	if (rc == 0) {
		region_xml(&F, 0, first, &pk->setup);
		region_xml(&F, last + 1, F.n, &pk->cleanup);
		cleanup_liveness(pk, &F, last + 1, &nm);
		steps_after(pk, &nm);
	}
	sv_free(&nm.name);
	free(nm.phys);
	/* The plans keep what they need; the exes and scopes go. */
	free_flat(&F);
	return rc;
}
