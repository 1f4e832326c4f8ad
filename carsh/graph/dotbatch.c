/* Graphviz DOT for a <CarshBat>: the steps as a chain, each <Exec> between the virtual
 * buffers it reads and writes, a <Repeat> as a cluster. */
#include <stdlib.h>
#include <string.h>

#include "graph/dot.h"
#include "util/xmltext.h"
#include "model/batch.h"
#include "model/exe.h"
#include "util/path.h"
#include "util/strbuf.h"

struct bdot {
	FILE *f;
	const char *file; /* the batch's, for messages */
	size_t steps;     /* steps printed; step i is node s<i> */
	size_t clusters;
	struct cs_err *e;
};

/* The buffers an <Exec> reads and writes, from the kinds of its flow-model's streams: an
 * Input is read, an Output written, an InOut both. */
static int exec_buffers(struct bdot *d, const struct step *s, struct strbuf *reads,
                        struct strbuf *writes)
{
	struct exe *owned = NULL;
	const struct exe *exe = s->exe;

	if (!exe && exe_read(s->file, &owned, d->e))
		return err_prefix(d->e, "%s:%d: <Exec>: ", d->file, s->line);
	if (!exe)
		exe = owned;
	for (size_t i = 0; i < exe->nbinds; i++) {
		const struct exe_bind *bd = &exe->binds[i];
		const struct fm_arg *a = flowmodel_arg(exe->fm, bd->stream, NULL);
		enum arg_kind k = a ? a->kind : bd->kind;

		if (bd->how != BIND_BUFFER)
			continue;
		if (k != ARG_OUTPUT) {
			sb_adds(reads, reads->len ? "<br/>" : "");
			sb_add_xml(reads, bd->buffer);
		}
		if (k != ARG_INPUT) {
			sb_adds(writes, writes->len ? "<br/>" : "");
			sb_add_xml(writes, bd->buffer);
		}
	}
	exe_free(owned);
	return 0;
}

/* An <Exec> as a table: the buffers it reads | the executable | the buffers it writes. */
static int print_exec(struct bdot *d, size_t id, const struct step *s)
{
	struct strbuf reads = STRBUF_INIT, writes = STRBUF_INIT, name = STRBUF_INIT;

	if (exec_buffers(d, s, &reads, &writes)) {
		sb_free(&reads);
		sb_free(&writes);
		return -1;
	}
	sb_add_xml(&name, s->file ? path_basename(s->file) : "inline <CarshExe>");
	fprintf(d->f,
	        "\ts%zu [shape=plaintext, label=<<table border=\"0\" cellborder=\"1\" "
	        "cellspacing=\"0\" cellpadding=\"4\"><tr>",
	        id);
	if (reads.len)
		fprintf(d->f, "<td bgcolor=\"lightblue\">%s</td>", sb_str(&reads));
	fprintf(d->f, "<td%s>%s%s</td>", s->background ? " style=\"dashed\"" : "", sb_str(&name),
	        s->background ? " &amp;" : "");
	if (writes.len)
		fprintf(d->f, "<td bgcolor=\"mistyrose\">%s</td>", sb_str(&writes));
	fputs("</tr></table>>];\n", d->f);
	sb_free(&reads);
	sb_free(&writes);
	sb_free(&name);
	return 0;
}

static void vbuf_label(struct strbuf *sb, const struct step *s)
{
	sb_addf(sb, "virtbuf %s", vbuf_op_name(s->op));
	if (s->name)
		sb_addf(sb, " %s", s->name);
	if (s->with)
		sb_addf(sb, " %s", s->with);
	if (s->type)
		sb_addf(sb, " %s %s", s->type, s->count);
	if (s->file)
		sb_addf(sb, " %s", path_basename(s->file));
	if (s->value)
		sb_addf(sb, " value=%s", s->value);
	if (s->all)
		sb_adds(sb, " -a");
}

static int print_steps(struct bdot *d, const struct step *v, size_t n, long *first, long *last);

/* Where a step is drawn: the visitor's context; first and last its first and last node. */
struct dot_at {
	struct bdot *d;
	long *first, *last;
};

static size_t new_node(struct dot_at *a)
{
	size_t id = a->d->steps++;

	*a->first = *a->last = (long)id;
	return id;
}

/* A node of the given shape with label (freed). */
static int print_node(void *ctx, const char *shape, struct strbuf *label)
{
	struct dot_at *a = ctx;
	size_t id = new_node(a);

	fprintf(a->d->f, "\ts%zu [shape=%s, label=", id, shape);
	dot_quoted(a->d->f, sb_str(label));
	fputs("];\n", a->d->f);
	sb_free(label);
	return 0;
}

static int print_virtbuf(void *ctx, const struct step *s)
{
	struct strbuf sb = STRBUF_INIT;

	vbuf_label(&sb, s);
	return print_node(ctx, "note", &sb);
}

static int print_exec_step(void *ctx, const struct step *s)
{
	struct dot_at *a = ctx;

	return print_exec(a->d, new_node(a), s);
}

static int print_sync(void *ctx, const struct step *s)
{
	struct strbuf sb = STRBUF_INIT;

	(void)s;
	sb_adds(&sb, "sync");
	return print_node(ctx, "octagon", &sb);
}

static int print_batch(void *ctx, const struct step *s)
{
	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb, "batch %s", path_basename(s->file));
	return print_node(ctx, "box", &sb);
}

static int print_command(void *ctx, const struct step *s)
{
	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb, "%s", s->text);
	return print_node(ctx, "cds", &sb);
}

static int print_echo(void *ctx, const struct step *s)
{
	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb, "echo %s", s->text);
	return print_node(ctx, "plaintext", &sb);
}

static int print_repeat(void *ctx, const struct step *s)
{
	struct dot_at *a = ctx;
	struct bdot *d = a->d;
	size_t c = d->clusters++;
	struct strbuf lab = STRBUF_INIT;

	if (s->has_until)
		sb_addf(&lab, "repeat until buffer:%s %s %s (max %s)", s->until.buffer,
		        until_op_text(s->until.op), s->until.value, s->max);
	else
		sb_addf(&lab, "repeat %s", s->count);
	fprintf(d->f, "\tsubgraph cluster_%zu {\n\tlabel=", c);
	dot_quoted(d->f, sb_str(&lab));
	sb_free(&lab);
	fputs(";\n\tstyle=dashed;\n", d->f);
	if (print_steps(d, s->steps, s->nsteps, a->first, a->last))
		return -1;
	fputs("\t}\n", d->f);
	if (*a->first >= 0 && *a->last >= 0)
		fprintf(d->f, "\ts%ld -> s%ld [style=dotted, constraint=false, label=\"again\"];\n",
		        *a->last, *a->first);
	return 0;
}

static const struct step_visitor dot_visitor = {
        .virtbuf = print_virtbuf,
        .exec = print_exec_step,
        .sync = print_sync,
        .repeat = print_repeat,
        .batch = print_batch,
        .command = print_command,
        .echo = print_echo,
};

/* Steps chained in order; first and last are their first and last node (-1: none). */
static int print_steps(struct bdot *d, const struct step *v, size_t n, long *first, long *last)
{
	*first = *last = -1;
	for (size_t i = 0; i < n; i++) {
		long f, l;

		if (step_visit(&v[i], &dot_visitor, &(struct dot_at){d, &f, &l}))
			return -1;
		if (f < 0)
			continue;
		if (*last >= 0)
			fprintf(d->f, "\ts%ld -> s%ld [style=bold, weight=10];\n", *last, f);
		if (*first < 0)
			*first = f;
		*last = l;
	}
	return 0;
}

int dot_batch(FILE *f, const struct batch *b, struct cs_err *e)
{
	struct bdot d = {f, b->file, 0, 0, e};
	long first, last;
	int rc;

	fputs("digraph ", f);
	dot_quoted(f, path_basename(b->file));
	fputs(" {\n\tlabelloc=t;\n\tlabel=", f);
	dot_quoted(f, path_basename(b->file));
	fputs(";\n\tnode [fontname=\"Helvetica\"];\n\tedge [fontname=\"Helvetica\", "
	      "fontsize=10];\n",
	      f);
	rc = print_steps(&d, b->steps, b->nsteps, &first, &last);
	fputs("}\n", f);
	return rc;
}
