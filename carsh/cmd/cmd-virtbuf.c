/* virtbuf: create, fill, dump, swap, delete and list virtual buffers (DESIGN §4). Each
 * operation is declared by its own option template, operands counted there, and a run. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "runner/buffers.h"
#include "util/alloc.h"

struct fill_args {
	const char *value;
};

struct dump_args {
	const char *columns; /* an expression, in the caller's scope */
};

struct delete_args {
	bool all;
};

union vb_args {
	struct fill_args fill;
	struct dump_args dump;
	struct delete_args del;
};

static int vb_create(struct run_ctx *c, const union vb_args *a, int n, char **w, struct cs_err *e)
{
	struct cs_type t;
	long long count;

	(void)a;
	if (n == 4 && strcmp(w[1], "struct") == 0) {
		char *type = xasprintf("struct %s", w[2]);

		(void)buffers_parse_type(type, &t, e);
		free(type);
		return cmd_prefix(e, 1, "virtbuf create %s: ", w[0]);
	}
	if (n != 3)
		return cmd_error(e, 2, "usage: virtbuf create NAME TYPE COUNT");
	if (buffers_parse_type(w[1], &t, e))
		return cmd_prefix(e, 1, "virtbuf create %s: ", w[0]);
	if (scope_eval_range(c->caller, w[2], "count", 1, INT64_MAX, &count, e))
		return cmd_prefix(e, 1, "virtbuf create %s: ", w[0]);
	return buffers_create(c, w[0], t, (size_t)count, e) ? 1 : 0;
}

static const struct opt fill_opts[] = {
        OPT_STRING("--value", struct fill_args, value, "V",
                   "every element V (a vector type takes \"1,2,3,4\")"),
        OPT_END,
};

static const char fill_usage[] = "virtbuf fill NAME FILE|- | virtbuf fill NAME --value V";

static int vb_fill(struct run_ctx *c, const union vb_args *a, int n, char **w, struct cs_err *e)
{
	if (n == 1 && a->fill.value)
		return buffers_fill_value(c, w[0], a->fill.value, e) ? 1 : 0;
	if (n == 2 && !a->fill.value)
		return buffers_fill_file(c, w[0], w[1], e) ? 1 : 0;
	return cmd_error(e, 2, "usage: %s", fill_usage);
}

static const struct opt dump_opts[] = {
        OPT_STRING("--columns", struct dump_args, columns, "N",
                   "scalars per row (default: the type's width; a PGM: its width)"),
        OPT_END,
};

static int vb_dump(struct run_ctx *c, const union vb_args *a, int n, char **w, struct cs_err *e)
{
	long long cols = 0;

	if (a->dump.columns &&
	    scope_eval_range(c->caller, a->dump.columns, "--columns", 1, INT64_MAX, &cols, e))
		return cmd_prefix(e, 2, "virtbuf dump: ");
	return buffers_dump(c, w[0], n == 2 ? w[1] : NULL, (size_t)cols, e) ? 1 : 0;
}

static int vb_swap(struct run_ctx *c, const union vb_args *a, int n, char **w, struct cs_err *e)
{
	(void)a;
	(void)n;
	return buffers_swap(c, w[0], w[1], e) ? 1 : 0;
}

static const struct opt delete_opts[] = {
        OPT_FLAG("-a", struct delete_args, all, "every virtual buffer"),
        OPT_END,
};

static const char delete_usage[] = "virtbuf delete NAME... | virtbuf delete -a";

static int vb_delete(struct run_ctx *c, const union vb_args *a, int n, char **w, struct cs_err *e)
{
	if (a->del.all == (n > 0))
		return cmd_error(e, 2, "usage: %s", delete_usage);
	if (a->del.all)
		return buffers_delete_all(c, e) ? 1 : 0;
	return buffers_delete(c, w, (size_t)n, e) ? 1 : 0;
}

static int vb_list(struct run_ctx *c, const union vb_args *a, int n, char **w, struct cs_err *e)
{
	struct buffer_info *all;
	size_t count;
	char tn[16];

	(void)a;
	(void)n;
	(void)w;
	(void)e;
	count = buffers_list(c, &all);
	fprintf(c->out, "%-16s %-9s %12s %14s  %s\n", "NAME", "TYPE", "COUNT", "BYTES", "USERS");
	for (size_t i = 0; i < count; i++)
		fprintf(c->out, "%-16s %-9s %12zu %14zu  %s\n", all[i].name,
		        type_name(all[i].type, tn, sizeof(tn)), all[i].count, all[i].bytes,
		        all[i].users);
	buffers_list_free(all, count);
	return 0;
}

struct vb_op {
	struct opt_cmd spec;
	int (*run)(struct run_ctx *c, const union vb_args *a, int n, char **w, struct cs_err *e);
};

/* clang-format off */
static const struct vb_op vb_ops[] = {
	{{.name = "virtbuf create", .usage = "virtbuf create NAME TYPE COUNT", .min = 3, .max = 4},
	 vb_create},
	{{.name = "virtbuf fill", .usage = fill_usage,
	  .about = "Load a virtual buffer from CSV or PGM (\"-\": standard input), or set every "
	           "element.",
	  .opts = fill_opts, .min = 1, .max = 2},
	 vb_fill},
	{{.name = "virtbuf dump", .usage = "virtbuf dump NAME [FILE|-] [--columns N]",
	  .about = "Write a virtual buffer as CSV, or as PGM for a .pgm file (default: standard "
	           "output).",
	  .opts = dump_opts, .min = 1, .max = 2},
	 vb_dump},
	{{.name = "virtbuf swap", .usage = "virtbuf swap A B", .min = 2, .max = 2}, vb_swap},
	{{.name = "virtbuf delete", .usage = delete_usage,
	  .about = "Delete virtual buffers; a buffer a running job uses is refused, and then none "
	           "goes.",
	  .opts = delete_opts, .min = 0, .max = OPT_ANY},
	 vb_delete},
	{{.name = "virtbuf list", .usage = "virtbuf list", .min = 0, .max = 0}, vb_list},
};
/* clang-format on */

static const char *const virtbuf_ops[] = {"create", "fill", "dump", "swap", "delete", "list", NULL};

/* The words after the operation's name, parsed by its template. */
static int vb_op_run(struct run_ctx *c, const struct vb_op *op, int argc, char **argv,
                     struct cs_err *e)
{
	union vb_args a;
	char **w;
	int n, rc;

	memset(&a, 0, sizeof(a));
	n = opt_parse(&op->spec, &a, argc, argv, &w, e);
	if (n < 0)
		return opt_failed(n, &op->spec, c->out);
	rc = op->run(c, &a, n, w, e);
	free(w);
	return rc;
}

static int virtbuf_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	(void)args;
	for (size_t i = 0; i < sizeof(vb_ops) / sizeof(vb_ops[0]); i++)
		if (strcmp(words[0], vb_ops[i].spec.name + strlen("virtbuf ")) == 0)
			return vb_op_run(c, &vb_ops[i], n - 1, words + 1, e);
	return cmd_error(e, 2,
	                 "virtbuf: unknown operation '%s' (create fill dump swap delete list)",
	                 words[0]);
}

const struct carsh_cmd cmd_virtbuf = {
        .name = "virtbuf",
        .summary = "virtual buffers in shared memory: create, fill, dump, swap, delete, list",
        .args = {.usage = "virtbuf create NAME TYPE COUNT | fill NAME FILE|-|--value V | "
                          "dump NAME [FILE|-] [--columns N] | swap A B | delete NAME...|-a | "
                          "list",
                 .min = 1,
                 .max = OPT_ANY},
        .run = virtbuf_run,
        .subcommands = virtbuf_ops,
};
