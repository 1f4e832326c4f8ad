/* virtbuf: create, fill, dump, swap, delete and list virtual buffers (DESIGN §4). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "runner/buffers.h"
#include "util/alloc.h"

static int vb_create(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct cs_type t;
	long long count;

	if (argc == 6 && strcmp(argv[3], "struct") == 0) {
		char *type = xasprintf("struct %s", argv[4]);

		(void)buffers_parse_type(type, &t, e);
		free(type);
		return cmd_prefix(e, 1, "virtbuf create %s: ", argv[2]);
	}
	if (argc != 5)
		return cmd_error(e, 2, "usage: virtbuf create NAME TYPE COUNT");
	if (buffers_parse_type(argv[3], &t, e))
		return cmd_prefix(e, 1, "virtbuf create %s: ", argv[2]);
	if (scope_eval_range(c->caller, argv[4], "count", 1, INT64_MAX, &count, e))
		return cmd_prefix(e, 1, "virtbuf create %s: ", argv[2]);
	return buffers_create(c, argv[2], t, (size_t)count, e) ? 1 : 0;
}

struct fill_args {
	const char *value;
};

static const struct opt fill_opts[] = {
        OPT_STRING("--value", struct fill_args, value, "V",
                   "every element V (a vector type takes \"1,2,3,4\")"),
        OPT_END,
};

static const struct opt_cmd fill_spec = {
        "virtbuf fill",
        "virtbuf fill NAME FILE|- | virtbuf fill NAME --value V",
        "Load a virtual buffer from CSV or PGM (\"-\": standard input), or set every element.",
        fill_opts,
        NULL,
        0,
};

static int vb_fill(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct fill_args a = {NULL};
	char **w;
	int n = opt_parse(&fill_spec, &a, argc - 2, argv + 2, &w, e), rc;

	if (n < 0)
		return opt_failed(n, &fill_spec, c->out);
	if (n == 1 && a.value)
		rc = buffers_fill_value(c, w[0], a.value, e) ? 1 : 0;
	else if (n == 2 && !a.value)
		rc = buffers_fill_file(c, w[0], w[1], e) ? 1 : 0;
	else
		rc = cmd_error(e, 2, "usage: %s", fill_spec.usage);
	free(w);
	return rc;
}

struct dump_args {
	const char *columns; /* an expression, in the caller's scope */
};

static const struct opt dump_opts[] = {
        OPT_STRING("--columns", struct dump_args, columns, "N",
                   "scalars per row (default: the type's width; a PGM: its width)"),
        OPT_END,
};

static const struct opt_cmd dump_spec = {
        "virtbuf dump",
        "virtbuf dump NAME [FILE|-] [--columns N]",
        "Write a virtual buffer as CSV, or as PGM for a .pgm file (default: standard output).",
        dump_opts,
        NULL,
        0,
};

static int vb_dump(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct dump_args a = {NULL};
	long long cols = 0;
	char **w;
	int n = opt_parse(&dump_spec, &a, argc - 2, argv + 2, &w, e), rc;

	if (n < 0)
		return opt_failed(n, &dump_spec, c->out);
	if (n != 1 && n != 2)
		rc = cmd_error(e, 2, "usage: %s", dump_spec.usage);
	else if (a.columns &&
	         scope_eval_range(c->caller, a.columns, "--columns", 1, INT64_MAX, &cols, e))
		rc = cmd_prefix(e, 2, "virtbuf dump: ");
	else
		rc = buffers_dump(c, w[0], n == 2 ? w[1] : NULL, (size_t)cols, e) ? 1 : 0;
	free(w);
	return rc;
}

static int vb_swap(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	if (argc != 4)
		return cmd_error(e, 2, "usage: virtbuf swap A B");
	return buffers_swap(c, argv[2], argv[3], e) ? 1 : 0;
}

struct delete_args {
	bool all;
};

static const struct opt delete_opts[] = {
        OPT_FLAG("-a", struct delete_args, all, "every virtual buffer"),
        OPT_END,
};

static const struct opt_cmd delete_spec = {
        "virtbuf delete",
        "virtbuf delete NAME... | virtbuf delete -a",
        "Delete virtual buffers; a buffer a running job uses is refused, and then none goes.",
        delete_opts,
        NULL,
        0,
};

static int vb_delete(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct delete_args a = {false};
	char **w;
	int n = opt_parse(&delete_spec, &a, argc - 2, argv + 2, &w, e), rc;

	if (n < 0)
		return opt_failed(n, &delete_spec, c->out);
	if (a.all == (n > 0))
		rc = cmd_error(e, 2, "usage: %s", delete_spec.usage);
	else if (a.all)
		rc = buffers_delete_all(c, e) ? 1 : 0;
	else
		rc = buffers_delete(c, w, (size_t)n, e) ? 1 : 0;
	free(w);
	return rc;
}

static int vb_list(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct buffer_info *all;
	size_t n;
	char tn[16];

	(void)argv;
	if (argc != 2)
		return cmd_error(e, 2, "usage: virtbuf list");
	n = buffers_list(c, &all);
	fprintf(c->out, "%-16s %-9s %12s %14s  %s\n", "NAME", "TYPE", "COUNT", "BYTES", "USERS");
	for (size_t i = 0; i < n; i++)
		fprintf(c->out, "%-16s %-9s %12zu %14zu  %s\n", all[i].name,
		        type_name(all[i].type, tn, sizeof(tn)), all[i].count, all[i].bytes,
		        all[i].users);
	buffers_list_free(all, n);
	return 0;
}

static const char *const virtbuf_ops[] = {"create", "fill", "dump", "swap", "delete", "list", NULL};

static int cmd_virtbuf_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	static const struct {
		const char *name;
		int (*fn)(struct run_ctx *, int, char **, struct cs_err *);
	} ops[] = {
	        {"create", vb_create}, {"fill", vb_fill},     {"dump", vb_dump},
	        {"swap", vb_swap},     {"delete", vb_delete}, {"list", vb_list},
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(argv[1], ops[i].name) == 0)
			return ops[i].fn(c, argc, argv, e);
	return cmd_error(e, 2,
	                 "virtbuf: unknown operation '%s' (create fill dump swap delete list)",
	                 argv[1]);
}

const struct carsh_cmd cmd_virtbuf = {
        .name = "virtbuf",
        .usage = "virtbuf create NAME TYPE COUNT | fill NAME FILE|-|--value V | "
                 "dump NAME [FILE|-] [--columns N] | swap A B | delete NAME...|-a | list",
        .summary = "virtual buffers in shared memory: create, fill, dump, swap, delete, list",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_virtbuf_exec,
        .subcommands = virtbuf_ops,
};
