/* virtbuf: create, fill, dump, swap, delete and list virtual buffers (DESIGN §4). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "data/csvio.h"
#include "data/pgm.h"
#include "util/alloc.h"
#include "util/path.h"

static int vb_create(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct cs_type t;
	long long count;

	if (argc != 5)
		return cmd_error(e, 2, "usage: virtbuf create NAME TYPE COUNT");
	if (type_parse(argv[3], &t, e))
		return cmd_prefix(e, 1, "virtbuf create %s: ", argv[2]);
	if (scope_eval_range(c->caller, argv[4], "count", 1, INT64_MAX, &count, e)) {
		err_prefix(e, "virtbuf create %s: ", argv[2]);
		return 1;
	}
	if (vbuf_create(c->s->vbufs, argv[2], t, (size_t)count, e))
		return cmd_prefix(e, 1, "virtbuf create: ");
	return 0;
}

/* Host access to a buffer takes a hazard claim like a job, so it never races one. */
static struct claim *claim_buffer(struct cmd_ctx *c, const struct vbuf *v, bool writes,
                                  struct cs_err *e)
{
	struct exec_env env = cmd_exec_env(c);
	char *label = xasprintf("virtbuf %s %s", writes ? "fill" : "dump", v->name);
	struct claim *cl = claim_new(label);

	free(label);
	claim_use(cl, v->shm, v->name, writes);
	hazard_register(env.hz, cl);
	if (hazard_wait(env.hz, cl, NULL, NULL, env.interrupted) == 0)
		return cl;
	hazard_release(env.hz, cl);
	err_set(e, "interrupted while waiting for '%s'", v->name);
	return NULL;
}

static int read_values(const char *file, const char *value, const struct vbuf *v, void *dst,
                       struct cs_err *e)
{
	size_t scalars = v->count * v->type.width;
	unsigned char one[TYPE_MAX_BYTES];

	if (value) {
		if (vector_parse(v->type, value, one, e))
			return -1;
		type_fill(v->type, dst, v->count, one);
		return 0;
	}
	if (pgm_path(file))
		return pgm_read(file, v->type.scalar, dst, scalars, NULL, NULL, e);
	return csvio_read(file, v->type.scalar, dst, scalars, e);
}

/* With the thread executor a value fill of a buffer that lives on a device happens there,
 * queued like a job: 1 when done so, 0 on an error, -1 when the buffer is only in shared
 * memory (fill that). */
static int fill_on_device(struct cmd_ctx *c, const struct vbuf *v, const char *value,
                          struct cs_err *e)
{
	unsigned char one[TYPE_MAX_BYTES];
	struct claim *cl;
	int rc;

	if (vector_parse(v->type, value, one, e))
		return 0;
	cl = claim_buffer(c, v, true, e);
	if (!cl)
		return 0;
	rc = resident_fill(texec_resident(c->s->texec), v->shm, one, type_size(v->type), e);
	hazard_release(c->s->hz, cl);
	return rc == 1 ? 1 : rc == 0 ? -1 : 0;
}

/* The new contents are read in full before the buffer changes: a bad file leaves the buffer
 * as it was. */
static int vb_fill(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	bool by_value = argc == 5 && strcmp(argv[3], "--value") == 0;
	struct vbuf v;
	struct claim *cl = NULL;
	void *tmp = NULL, *map = NULL;
	int rc = 1;

	if (argc != 4 && !by_value)
		return cmd_error(e, 2,
		                 "usage: virtbuf fill NAME FILE|- | virtbuf fill NAME --value V");
	if (vbuf_lookup(c->s->vbufs, argv[2], &v, e))
		return cmd_prefix(e, 1, "virtbuf fill: ");
	if (by_value && c->s->texec) {
		rc = fill_on_device(c, &v, argv[4], e);
		if (rc >= 0) {
			vbuf_entry_free(&v);
			return rc ? 0 : cmd_prefix(e, 1, "virtbuf fill %s: ", argv[2]);
		}
		rc = 1;
	}
	tmp = data_alloc(v.count, type_size(v.type), v.name, e);
	if (tmp &&
	    read_values(by_value ? NULL : argv[3], by_value ? argv[4] : NULL, &v, tmp, e) == 0 &&
	    (cl = claim_buffer(c, &v, true, e)) && (map = vbuf_map(v.shm, v.bytes, true, e))) {
		memcpy(map, tmp, v.bytes);
		if (c->s->texec)
			resident_host_wrote(texec_resident(c->s->texec), v.shm);
		rc = 0;
	}
	if (rc)
		err_prefix(e, "virtbuf fill %s: ", v.name);
	vbuf_unmap(map, v.bytes);
	hazard_release(c->s->hz, cl);
	free(tmp);
	vbuf_entry_free(&v);
	return rc;
}

static int parse_columns(int *argc, char **argv, long long *cols, const struct cmd_ctx *c,
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

static int write_values(struct cmd_ctx *c, const char *file, const struct vbuf *v, const void *src,
                        long long cols, bool cols_given, struct cs_err *e)
{
	size_t scalars = v->count * v->type.width;

	if (file && pgm_path(file)) {
		if (!cols_given)
			return err_set(e, "%s: a PGM image needs its width: add --columns WIDTH",
			               file);
		return pgm_write(file, v->type.scalar, src, scalars, (size_t)cols, e);
	}
	if (!file || path_is_stdio(file))
		return csvio_write_stream(c->out, "<stdout>", v->type.scalar, src, scalars,
		                          (size_t)cols, e);
	return csvio_write(file, v->type.scalar, src, scalars, (size_t)cols, e);
}

/* With the thread executor the current data may be on a device. */
static int to_host(struct cmd_ctx *c, const struct vbuf *v, struct cs_err *e)
{
	return c->s->texec ? resident_to_host(texec_resident(c->s->texec), v->shm, e) : 0;
}

static int vb_dump(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	long long cols = 0;
	int given;
	struct vbuf v;
	struct claim *cl = NULL;
	void *map = NULL;
	int rc = 1;

	given = parse_columns(&argc, argv, &cols, c, e);
	if (given < 0)
		return cmd_prefix(e, 2, "virtbuf dump: ");
	if (argc != 3 && argc != 4)
		return cmd_error(e, 2, "usage: virtbuf dump NAME [FILE|-] [--columns N]");
	if (vbuf_lookup(c->s->vbufs, argv[2], &v, e))
		return cmd_prefix(e, 1, "virtbuf dump: ");
	if (!given)
		cols = v.type.width;
	if ((cl = claim_buffer(c, &v, false, e)) && to_host(c, &v, e) == 0 &&
	    (map = vbuf_map(v.shm, v.bytes, false, e)) &&
	    write_values(c, argc == 4 ? argv[3] : NULL, &v, map, cols, given, e) == 0)
		rc = 0;
	if (rc)
		err_prefix(e, "virtbuf dump %s: ", v.name);
	vbuf_unmap(map, v.bytes);
	hazard_release(c->s->hz, cl);
	vbuf_entry_free(&v);
	return rc;
}

static int vb_swap(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	if (argc != 4)
		return cmd_error(e, 2, "usage: virtbuf swap A B");
	if (vbuf_swap(c->s->vbufs, argv[2], argv[3], e))
		return cmd_prefix(e, 1, "virtbuf swap: ");
	return 0;
}

/* A buffer a registered job reads or writes cannot go: the job mapped it by name. */
static int check_unused(struct cmd_ctx *c, const char *name, struct cs_err *e)
{
	struct vbuf v;
	char user[512];
	int rc = 0;

	if (vbuf_lookup(c->s->vbufs, name, &v, e))
		return cmd_prefix(e, 1, "virtbuf delete: ");
	if (hazard_user(c->s->hz, v.shm, user, sizeof(user)))
		rc = cmd_error(e, 1, "virtbuf delete %s: in use by %s; run 'sync' first", name,
		               user);
	vbuf_entry_free(&v);
	return rc;
}

static int delete_one(struct cmd_ctx *c, const char *name, struct cs_err *e)
{
	struct vbuf v;

	if (c->s->texec && vbuf_lookup(c->s->vbufs, name, &v, e) == 0) {
		resident_forget(texec_resident(c->s->texec), v.shm);
		vbuf_entry_free(&v);
	}
	if (vbuf_delete(c->s->vbufs, name, e))
		return cmd_prefix(e, 1, "virtbuf delete: ");
	return 0;
}

/* All names are checked before any buffer goes, so a refusal deletes nothing. */
static int vb_delete(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	char **names = argv + 2;
	size_t n = (size_t)argc - 2;
	bool all = argc == 3 && strcmp(argv[2], "-a") == 0;
	int rc = 0;

	if (argc < 3)
		return cmd_error(e, 2, "usage: virtbuf delete NAME... | virtbuf delete -a");
	if (all)
		n = vbuf_names(c->s->vbufs, &names);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = check_unused(c, names[i], e);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = delete_one(c, names[i], e);
	if (all) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
	return rc;
}

static int vb_list(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct vbuf *all;
	size_t n;
	char tn[16], users[512];

	(void)argv;
	if (argc != 2)
		return cmd_error(e, 2, "usage: virtbuf list");
	n = vbuf_list(c->s->vbufs, &all);
	fprintf(c->out, "%-16s %-9s %12s %14s  %s\n", "NAME", "TYPE", "COUNT", "BYTES", "USERS");
	for (size_t i = 0; i < n; i++) {
		hazard_users(c->s->hz, all[i].shm, users, sizeof(users));
		fprintf(c->out, "%-16s %-9s %12zu %14zu  %s\n", all[i].name,
		        type_name(all[i].type, tn, sizeof(tn)), all[i].count, all[i].bytes, users);
		vbuf_entry_free(&all[i]);
	}
	free(all);
	return 0;
}

static int cmd_virtbuf_exec(struct cmd_ctx *c, int argc, char **argv, struct cs_err *e)
{
	static const struct {
		const char *name;
		int (*fn)(struct cmd_ctx *, int, char **, struct cs_err *);
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
