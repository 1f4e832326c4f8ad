/* The typed buffer service (runner/buffers.h). */
#include "runner/buffers.h"

#include "runner/buffers-int.h"
#include "runner/bufhost.h"
#include "mpi/replicas.h"
#include "mpi/ranks.h"

#include <stdlib.h>
#include <string.h>

#include "data/datafile.h"
#include "data/fill.h"
#include "data/pgm.h"
#include "data/vpixels.h"
#include "exec/devpixels.h"
#include "exec/homes.h"
#include "exec/executor.h"
#include "data/vhome.h"
#include "exec/hazard.h"
#include "exec/resident.h"
#include "exec/workers.h"
#include "util/alloc.h"
#include "util/parcopy.h"
#include "util/path.h"

int buffers_create(struct run_ctx *c, const char *name, struct cs_type type, size_t count,
                   struct cs_err *e)
{
	static const unsigned char zeros[4];
	struct vbuf v;

	if (vbuf_create(c->s->vbufs, name, type, count, e))
		return err_prefix(e, "virtbuf create: ");
	/* A new object reads as zeros: a device copy is made by a fill there. */
	if (vbuf_lookup(c->s->vbufs, name, &v, e) == 0) {
		buffers_host_filled(c, &v, zeros, v.bytes % 4 ? 1 : 4);
		vbuf_entry_free(&v);
	}
	if (c->s->replicas)
		replicas_add(c->s->replicas, name);
	return 0;
}

int buffers_parse_type(const char *text, struct cs_type *t, struct cs_err *e)
{
	if (strncmp(text, "struct", 6) == 0 && (text[6] == ' ' || text[6] == '\0'))
		return err_set(e,
		               "'%s': a virtual buffer holds a stream of structs as its bytes: "
		               "create it as uchar with the stream's count times the struct's "
		               "size (docs/formats.md, \"Structs\")",
		               text);
	return type_parse(text, t, e);
}

static int read_values(const char *file, const struct vbuf *v, void *dst, struct cs_err *e)
{
	return datafile_read(file, NULL, v->type.scalar, dst, v->count * v->type.width, e);
}

/* With the thread executor a value fill of a buffer that lives on a device happens there,
 * queued like a job: *done says whether it did (false: the buffer is only in shared memory,
 * fill that). 0, or -1 with e. */
static int fill_on_device(struct run_ctx *c, const struct vbuf *v, const char *value, bool *done,
                          struct cs_err *e)
{
	unsigned char one[TYPE_MAX_BYTES];
	struct claim *cl;
	int rc;

	*done = false;
	if (vector_parse(v->type, value, one, e))
		return -1;
	cl = buffers_claim_one(c, v, true, e);
	if (!cl)
		return -1;
	rc = resident_fill(buffers_resident(c), v->shm, one, type_size(v->type), e);
	hazard_release(c->s->hz, cl);
	if (rc != 0 && rc != 1)
		return -1;
	*done = rc == 1;
	return 0;
}

/* A .npy or raw file checked first, then read straight into the buffer over the cores: 1
 * done, 0 not such a file, -1 error. */
static int fill_binary(struct run_ctx *c, const struct vbuf *v, const char *file, struct cs_err *e)
{
	struct bin_file bf;
	struct claim *cl = NULL;
	void *map = NULL;
	int rc = datafile_open(file, v->type.scalar, v->count * v->type.width, &bf, e);

	if (rc != 1)
		return rc;
	rc = -1;
	/* Mapped lazily: the reading threads take the pages as they copy, which is faster than
	 * populating them first and copying after (64 MiB on 16 cores: 13 ms against 18). */
	if ((cl = buffers_claim_one(c, v, true, e)) &&
	    (map = vbuf_map_lazy(v->shm, v->bytes, true, e))) {
		rc = binio_read_into(&bf, map, e) ? -1 : 1;
		/* Written, also by a read that failed part way: the table must not say that an
		 * older copy elsewhere is still the same as shared memory. */
		buffers_host_wrote(c, v);
	}
	vbuf_unmap(map, v->bytes);
	hazard_release(c->s->hz, cl);
	binio_close(&bf);
	return rc;
}

struct pixels_target {
	struct run_ctx *c;
	const struct vbuf *v;
	size_t n;
	struct claim *cl;
	unsigned char *map;
};

/* The buffer's pixels, claimed once the whole raster is good. */
static unsigned char *pixels_target(void *arg, struct cs_err *e)
{
	struct pixels_target *t = arg;

	t->cl = buffers_claim_one(t->c, t->v, true, e);
	if (t->cl)
		t->map = vpixels_map(t->v->shm, t->n, true, true, e);
	return t->map;
}

/* The buffer's new data is its pixels, widened: for the thread executor's copies, or else
 * for the table of homes. */
static void host_pixels(struct run_ctx *c, const struct vbuf *v)
{
	if (buffers_resident(c)) {
		resident_host_pixels(buffers_resident(c), v->shm, v->bytes, v->type.scalar);
		vhome_host_wrote(c->s->homes, v->shm);
	} else {
		vhome_host_pixels(c->s->homes, v->shm, v->type.scalar);
	}
}

/* Where warm workers or the thread executor run the jobs (both widen the samples on their
 * devices, and see every write), an 8-bit P5 picture's samples are kept as they are, beside
 * the buffer (data/vpixels.h): its own pages are not written until a host reader needs
 * them. 1 done, 0 not so (fill it in place), -1 error. */
static int fill_pixels(struct run_ctx *c, const struct vbuf *v, const char *file, struct cs_err *e)
{
	struct pixels_target t = {c, v, v->count * v->type.width, NULL, NULL};
	int rc;

	if ((!c->s->workers && !buffers_resident(c)) || !devpixels_widens(v->type.scalar))
		return 0;
	rc = pgm_read_samples(file, v->type.scalar, t.n, pixels_target, &t, e);
	if (rc == 0)
		host_pixels(c, v);
	vbuf_unmap(t.map, t.n);
	hazard_release(c->s->hz, t.cl);
	return rc == 0 ? 1 : rc == 1 ? 0 : -1;
}

/* A PGM file is read straight into the buffer (pgm_read writes its destination only when
 * the whole image is good): 1 done, 0 not a PGM file, -1 error. The buffer's mapping is
 * populated first: its pages faulted one at a time by the conversion's threads took longer
 * (4096², 2 cores: 30-37 ms a fill against 12-24). */
static int fill_in_place(struct run_ctx *c, const struct vbuf *v, const char *file,
                         struct cs_err *e)
{
	enum data_format f;
	struct claim *cl = NULL;
	void *map = NULL;
	int rc = -1;

	if (path_is_stdio(file) || datafile_format(file, &f, e) || f != DF_PGM)
		return 0;
	rc = fill_pixels(c, v, file, e);
	if (rc != 0)
		return rc;
	rc = -1;
	if ((cl = buffers_claim_one(c, v, true, e)) &&
	    (map = vbuf_map(v->shm, v->bytes, true, e)) &&
	    datafile_read(file, NULL, v->type.scalar, map, v->count * v->type.width, e) == 0) {
		buffers_host_wrote(c, v);
		rc = 1;
	}
	vbuf_unmap(map, v->bytes);
	hazard_release(c->s->hz, cl);
	return rc;
}

/* Whether shared memory holds one already, so that a fill with it writes nothing (a new
 * buffer's zeros filled with 0, say). Only where the table of homes sees every write: warm
 * workers report theirs, where a forked job (CARSH_WORKERS=fresh) or the thread executor
 * writes shared memory on its own. */
static bool holds_already(struct run_ctx *c, const struct vbuf *v, const unsigned char *one)
{
	return c->s->workers && !c->s->texec &&
	       vhome_holds_value(c->s->homes, v->shm, one, type_size(v->type));
}

/* Up to this size a value fill is written from a copy on the stack: setting up and tearing
 * down a mapping of the object (and its page fault) costs more (a batch's one-int flags). */
#define SMALL_FILL 4096

static int fill_value_small(const struct vbuf *v, const unsigned char *one, struct cs_err *e)
{
	unsigned char data[SMALL_FILL];

	type_fill(v->type, data, v->count, one);
	return vbuf_write(v->shm, data, v->count * type_size(v->type), e);
}

/* The value over the cores, straight into the mapped buffer. */
static int fill_value_large(const struct vbuf *v, const unsigned char *one, struct cs_err *e)
{
	void *map = vbuf_map_lazy(v->shm, v->bytes, true, e);

	if (!map)
		return -1;
	fill_par(v->type, map, v->count, one);
	vbuf_unmap(map, v->bytes);
	return 0;
}

/* A value fill needs no copy of the contents first: the value is parsed, then written
 * straight into the buffer over the cores. */
static int fill_value_host(struct run_ctx *c, const struct vbuf *v, const char *value,
                           struct cs_err *e)
{
	unsigned char one[TYPE_MAX_BYTES];
	struct claim *cl;
	bool kept = false;
	int rc;

	if (vector_parse(v->type, value, one, e) || !(cl = buffers_claim_one(c, v, true, e)))
		return -1;
	/* Between a window's jobs the table alone takes the value: the jobs after it fill
	 * their device copies, and shared memory is written when a host reader needs it. */
	if (holds_already(c, v, one))
		rc = 0;
	else if ((kept = buffers_host_valued(c, v, one, type_size(v->type))))
		rc = 0;
	else if (v->count * type_size(v->type) <= SMALL_FILL)
		rc = fill_value_small(v, one, e);
	else
		rc = fill_value_large(v, one, e);
	if (rc == 0 && !kept)
		buffers_host_filled(c, v, one, type_size(v->type));
	hazard_release(c->s->hz, cl);
	return rc;
}

/* The new contents are read in full before the buffer changes. */
static int fill_host(struct run_ctx *c, const struct vbuf *v, const char *file, const char *value,
                     struct cs_err *e)
{
	struct claim *cl = NULL;
	void *tmp, *map = NULL;
	int rc;

	if (value)
		return fill_value_host(c, v, value, e);
	rc = fill_binary(c, v, file, e);
	if (rc == 0)
		rc = fill_in_place(c, v, file, e);
	if (rc != 0)
		return rc == 1 ? 0 : -1;
	rc = -1;
	tmp = data_alloc(v->count, type_size(v->type), v->name, e);
	if (tmp && read_values(file, v, tmp, e) == 0 && (cl = buffers_claim_one(c, v, true, e)) &&
	    (map = vbuf_map(v->shm, v->bytes, true, e))) {
		par_memcpy(map, tmp, v->bytes, 0);
		buffers_host_wrote(c, v);
		rc = 0;
	}
	vbuf_unmap(map, v->bytes);
	hazard_release(c->s->hz, cl);
	free(tmp);
	return rc;
}

static int fill(struct run_ctx *c, const char *name, const char *file, const char *value,
                struct cs_err *e)
{
	struct vbuf v;
	bool on_device = false;
	int rc = 0;

	if (vbuf_lookup(c->s->vbufs, name, &v, e))
		return err_prefix(e, "virtbuf fill: ");
	if (value && buffers_resident(c))
		rc = fill_on_device(c, &v, value, &on_device, e);
	if (rc == 0 && !on_device)
		rc = fill_host(c, &v, file, value, e);
	if (rc)
		err_prefix(e, "virtbuf fill %s: ", v.name);
	vbuf_entry_free(&v);
	return rc;
}

/* Under MPI a file is read by rank 0 alone (it may be standard input), and its data is
 * current there only. */
int buffers_fill_file(struct run_ctx *c, const char *name, const char *file, struct cs_err *e)
{
	int rc;

	if (!c->s->replicas)
		return fill(c, name, file, NULL, e);
	rc = ranks_agree(ranks_rank() == 0 ? fill(c, name, file, NULL, e) : 0, e);
	if (rc == 0)
		replicas_wrote(c->s->replicas, name, 0);
	return rc;
}

/* Under MPI every rank sets its own copy: nothing moves. */
int buffers_fill_value(struct run_ctx *c, const char *name, const char *value, struct cs_err *e)
{
	int rc = fill(c, name, NULL, value, e);

	if (rc == 0 && c->s->replicas)
		replicas_wrote(c->s->replicas, name, -1);
	return rc;
}

static int write_values(struct run_ctx *c, const char *file, const struct vbuf *v, const void *src,
                        size_t columns, struct cs_err *e)
{
	size_t scalars = v->count * v->type.width;
	size_t cols = columns ? columns : (size_t)v->type.width;

	enum data_format f;

	if (file && datafile_format(file, &f, e))
		return -1;
	if (file && f == DF_PGM && !columns)
		return err_set(e, "%s: a PGM image needs its width: add --columns WIDTH", file);
	return datafile_write(file ? file : "-", c->out, v->type.scalar, src, scalars, cols, e);
}

/* A PGM dump from the buffer's pixels, where they hold its data narrowed (exec/homes.h):
 * then neither its shared memory nor a float copy on the host is needed. 1 done, 0 not so,
 * -1 error. */
static int dump_pixels(struct run_ctx *c, const struct vbuf *v, const char *file, size_t columns,
                       struct cs_err *e)
{
	size_t n = v->count * v->type.width;
	enum data_format f;
	unsigned char *px;
	int rc;

	if (!file || !columns || (!c->s->workers && !buffers_resident(c)) || path_is_stdio(file) ||
	    datafile_format(file, &f, e) || f != DF_PGM)
		return 0;
	if (buffers_resident(c))
		rc = resident_dump_pixels(buffers_resident(c), v->shm, v->type.scalar == SC_FLOAT,
		                          e);
	else
		rc = homes_pixels(c->s->homes, c->s->workers, v->shm, v->name,
		                  v->type.scalar == SC_FLOAT, e);
	if (rc != 1)
		return rc;
	px = vpixels_map(v->shm, n, false, false, e);
	rc = px && pgm_write_pixels(file, px, n, columns, e) == 0 ? 1 : -1;
	vbuf_unmap(px, n);
	return rc;
}

static int dump(struct run_ctx *c, const char *name, const char *file, size_t columns,
                struct cs_err *e)
{
	struct vbuf v;
	struct claim *cl = NULL;
	void *map = NULL;
	int rc = -1;

	if (vbuf_lookup(c->s->vbufs, name, &v, e))
		return err_prefix(e, "virtbuf dump: ");
	if ((cl = buffers_claim_one(c, &v, false, e)) &&
	    (rc = dump_pixels(c, &v, file, columns, e)) == 0) {
		rc = -1;
		if (buffers_host_current(c, &v, e) == 0 &&
		    (map = vbuf_map(v.shm, v.bytes, false, e)) &&
		    write_values(c, file, &v, map, columns, e) == 0)
			rc = 0;
	} else if (rc == 1) {
		rc = 0;
	}
	if (rc)
		err_prefix(e, "virtbuf dump %s: ", v.name);
	vbuf_unmap(map, v.bytes);
	hazard_release(c->s->hz, cl);
	vbuf_entry_free(&v);
	return rc;
}

/* Under MPI rank 0 writes, from a copy brought from the rank that holds the data. */
int buffers_dump(struct run_ctx *c, const char *name, const char *file, size_t columns,
                 struct cs_err *e)
{
	char *names[] = {(char *)name};

	if (!c->s->replicas)
		return dump(c, name, file, columns, e);
	buffers_bring(c, names, 1, 0);
	return ranks_agree(ranks_rank() == 0 ? dump(c, name, file, columns, e) : 0, e);
}

int buffers_fill_here(struct run_ctx *c, const char *name, const char *file, const char *value,
                      struct cs_err *e)
{
	return fill(c, name, file, value, e);
}

int buffers_dump_here(struct run_ctx *c, const char *name, const char *file, size_t columns,
                      struct cs_err *e)
{
	return dump(c, name, file, columns, e);
}

int buffers_swap(struct run_ctx *c, const char *a, const char *b, struct cs_err *e)
{
	if (vbuf_swap(c->s->vbufs, a, b, e))
		return err_prefix(e, "virtbuf swap: ");
	if (c->s->replicas)
		replicas_swap(c->s->replicas, a, b);
	return 0;
}

/* A buffer a registered job reads or writes cannot go: the job mapped it by name. */
static int check_unused(struct run_ctx *c, const char *name, struct cs_err *e)
{
	struct vbuf v;
	char user[512];
	int rc = 0;

	if (vbuf_lookup(c->s->vbufs, name, &v, e))
		return err_prefix(e, "virtbuf delete: ");
	if (hazard_user(c->s->hz, v.shm, user, sizeof(user)))
		rc = err_set(e, "virtbuf delete %s: in use by %s; run 'sync' first", name, user);
	vbuf_entry_free(&v);
	return rc;
}

static int delete_one(struct run_ctx *c, const char *name, struct cs_err *e)
{
	struct vbuf v;

	if (vbuf_lookup(c->s->vbufs, name, &v, e) == 0) {
		if (buffers_resident(c))
			resident_forget(buffers_resident(c), v.shm);
		vhome_forget(c->s->homes, v.shm);
		if (c->s->workers)
			workers_drop_everywhere(c->s->workers, v.shm);
		vbuf_entry_free(&v);
	}
	if (vbuf_delete(c->s->vbufs, name, e))
		return err_prefix(e, "virtbuf delete: ");
	if (c->s->replicas)
		replicas_remove(c->s->replicas, name);
	return 0;
}

int buffers_delete(struct run_ctx *c, char *const *names, size_t n, struct cs_err *e)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = check_unused(c, names[i], e);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = delete_one(c, names[i], e);
	return rc;
}

int buffers_delete_all(struct run_ctx *c, struct cs_err *e)
{
	char **names;
	size_t n = vbuf_names(c->s->vbufs, &names);
	int rc = buffers_delete(c, names, n, e);

	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int buffers_claim_plan(struct run_ctx *c, const struct job_plan *jp, struct claim **cl,
                       struct cs_err *e)
{
	struct exec_env env = run_exec_env(c);
	int rc = run_window_drain(c, e);

	if (rc)
		return rc;
	rc = exec_claim_foreground(&env, jp, cl, e);
	for (size_t i = 0; rc == 0 && i < jp->kp.nargs; i++) {
		const struct stream_bind *b = &jp->binds[i];
		struct vbuf v = {.name = b->buffer, .shm = b->shm};

		if (b->how == BIND_BUFFER && b->shm && arg_is_read(jp->kp.args[i].kind) &&
		    buffers_host_current(c, &v, e)) {
			err_prefix(e, "stream '%s': ", jp->kp.args[i].name);
			buffers_release_plan(c, jp, *cl);
			rc = 1;
		}
	}
	return rc;
}

void buffers_release_plan(struct run_ctx *c, const struct job_plan *jp, struct claim *cl)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		const struct stream_bind *b = &jp->binds[i];
		struct vbuf v = {.name = b->buffer, .shm = b->shm};

		if (b->how == BIND_BUFFER && b->shm && arg_is_written(jp->kp.args[i].kind))
			buffers_host_wrote(c, &v);
	}
	hazard_release(c->s->hz, cl);
}

size_t buffers_list(struct run_ctx *c, struct buffer_info **out)
{
	struct vbuf *all;
	size_t n = vbuf_list(c->s->vbufs, &all);

	*out = xcalloc(n ? n : 1, sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		struct buffer_info *b = &(*out)[i];

		b->name = all[i].name;
		all[i].name = NULL;
		b->type = all[i].type;
		b->count = all[i].count;
		b->bytes = all[i].bytes;
		hazard_users(c->s->hz, all[i].shm, b->users, sizeof(b->users));
		vbuf_entry_free(&all[i]);
	}
	free(all);
	return n;
}

void buffers_list_free(struct buffer_info *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i].name);
	free(list);
}
