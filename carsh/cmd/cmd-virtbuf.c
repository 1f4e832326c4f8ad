/* virtbuf: create, fill, dump, swap, delete and list virtual buffers (DESIGN §4). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "runner/buffers.h"

static int vb_create(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct cs_type t;
	long long count;

	if (argc != 5)
		return cmd_error(e, 2, "usage: virtbuf create NAME TYPE COUNT");
	if (type_parse(argv[3], &t, e))
		return cmd_prefix(e, 1, "virtbuf create %s: ", argv[2]);
	if (scope_eval_range(c->caller, argv[4], "count", 1, INT64_MAX, &count, e))
		return cmd_prefix(e, 1, "virtbuf create %s: ", argv[2]);
	return buffers_create(c, argv[2], t, (size_t)count, e) ? 1 : 0;
}

static int vb_fill(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	if (argc == 5 && strcmp(argv[3], "--value") == 0)
		return buffers_fill_value(c, argv[2], argv[4], e) ? 1 : 0;
	if (argc != 4)
		return cmd_error(e, 2,
		                 "usage: virtbuf fill NAME FILE|- | virtbuf fill NAME --value V");
	return buffers_fill_file(c, argv[2], argv[3], e) ? 1 : 0;
}

/* --columns N anywhere after the name; taken out of argv. */
static int parse_columns(int *argc, char **argv, long long *cols, const struct run_ctx *c,
                         struct cs_err *e)
{
	for (int i = 3; i < *argc; i++) {
		if (strcmp(argv[i], "--columns") != 0)
			continue;
		if (i + 1 >= *argc)
			return err_set(e, "--columns needs a number");
		if (scope_eval_range(c->caller, argv[i + 1], "--columns", 1, INT64_MAX, cols, e))
			return -1;
		memmove(argv + i, argv + i + 2, (size_t)(*argc - i - 2) * sizeof(*argv));
		*argc -= 2;
		return 1;
	}
	return 0;
}

static int vb_dump(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	long long cols = 0;

	if (parse_columns(&argc, argv, &cols, c, e) < 0)
		return cmd_prefix(e, 2, "virtbuf dump: ");
	if (argc != 3 && argc != 4)
		return cmd_error(e, 2, "usage: virtbuf dump NAME [FILE|-] [--columns N]");
	return buffers_dump(c, argv[2], argc == 4 ? argv[3] : NULL, (size_t)cols, e) ? 1 : 0;
}

static int vb_swap(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	if (argc != 4)
		return cmd_error(e, 2, "usage: virtbuf swap A B");
	return buffers_swap(c, argv[2], argv[3], e) ? 1 : 0;
}

static int vb_delete(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	if (argc < 3)
		return cmd_error(e, 2, "usage: virtbuf delete NAME... | virtbuf delete -a");
	if (argc == 3 && strcmp(argv[2], "-a") == 0)
		return buffers_delete_all(c, e) ? 1 : 0;
	return buffers_delete(c, argv + 2, (size_t)argc - 2, e) ? 1 : 0;
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
};
