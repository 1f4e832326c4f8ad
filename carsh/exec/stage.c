#include "exec/stage.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/csvio.h"
#include "data/datafile.h"
#include "data/fill.h"
#include "data/recfile.h"
#include "data/vbuf.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/clock.h"
#include "util/path.h"
#include "util/prefault.h"

/* Inputs are mapped read-only: a kernel run gone wrong cannot change a buffer it only
 * reads. */
static int map_buffer(struct kernel_arg *a, struct stream_bind *b, struct cs_err *e)
{
	a->host = vbuf_map(b->shm, a->bytes, a->kind != ARG_INPUT, e);
	if (!a->host)
		return err_prefix(e, "virtual buffer '%s': ", b->buffer);
	b->host_mapped = true;
	a->host_shared = true;
	a->host_start = true;
	return 0;
}

/* A count that is one parameter's name ("N"): a file of another length suggests its value. */
static bool is_param_name(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return *s == '\0';
}

/* After a failed read of a CSV file: where it failed only because it holds another number of
 * values and the count is one parameter, say which value of it fits (the file is read again
 * to learn its length: csvio says how many values it found only in words). */
/* How many elements a file holds: records for a struct stream, else values over the
 * width (0 when they do not make whole elements); -1 when it cannot be told. */
static int elements_in(const struct kernel_arg *a, const char *path, size_t *n)
{
	struct cs_err ignored;
	void *all;

	if (a->record)
		return recfile_count(path, NULL, a->record, n, &ignored) == 0 ? 0 : -1;
	if (csvio_read_all(path, a->type.scalar, &all, n, &ignored) != 0)
		return -1;
	free(all);
	*n = *n % a->type.width ? 0 : *n / a->type.width;
	return 0;
}

static int count_hint(const struct kernel_arg *a, const char *path, struct cs_err *e)
{
	struct stat sb;
	size_t n;
	char *msg;

	if (!is_param_name(a->count_expr) || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    elements_in(a, path, &n) != 0)
		return -1;
	if (n == 0 || n == a->count)
		return -1;
	msg = xstrdup(e->msg);
	err_set(e, "%s (count=\"%s\" with %s=%zu; set %s=%zu?)", msg, a->count_expr, a->count_expr,
	        a->count, a->count_expr, n);
	free(msg);
	return -1;
}

static int read_file(const struct job_plan *jp, struct kernel_arg *a, struct stream_bind *b,
                     struct cs_err *e)
{
	size_t scalars = a->count * a->type.width;
	enum data_format f;
	int rc = a->record ? recfile_read(b->path, jp->in, a->record, a->host, a->count, e)
	                   : datafile_read(b->path, jp->in, a->type.scalar, a->host, scalars, e);

	if (rc)
		return datafile_format(b->path, &f, e) == 0 && f == DF_CSV
		               ? count_hint(a, b->path, e)
		               : -1;
	return 0;
}

/* A .npy or raw input file is used where it lies, mapped (private: a kernel's writes to an
 * InOut stay in memory until written back): 1 when so, 0 when it must be read, -1 on an
 * error in the file. */
static int map_file(struct kernel_arg *a, struct stream_bind *b, struct cs_err *e)
{
	int rc = a->record ? recfile_map(b->path, a->record, a->count, &b->file_map, e)
	                   : datafile_map(b->path, a->type.scalar, a->count * a->type.width,
	                                  &b->file_map, e);

	if (rc == 1)
		a->host = b->file_map.data;
	return rc;
}

/* An output's fresh host array is written by the runtime's read back, which faults a page at
 * a time on one thread: its pages are populated over the cores first. */
static void populate(void *p, size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)p, to = from + bytes;

	if (page <= 0)
		return;
	from = (from + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
	if (from < to)
		prefault((void *)from, to - from, true);
}

static int stage_one(const struct job_plan *jp, struct kernel_arg *a, struct stream_bind *b,
                     struct cs_err *e)
{
	if (b->how == BIND_BUFFER)
		return map_buffer(a, b, e);
	if (b->how == BIND_DISCARD)
		return 0; /* the runtime reads nothing back into a NULL host buffer */
	if (b->how == BIND_FILE && arg_is_read(a->kind)) {
		int mapped = map_file(a, b, e);

		if (mapped != 0)
			return mapped == 1 ? 0 : -1;
	}
	a->host = data_alloc(a->count, type_size(a->type), a->name, e);
	if (!a->host)
		return -1;
	b->host_owned = true;
	if (b->how == BIND_FILL) {
		fill_par(a->type, a->host, a->count, b->fill);
		a->host_start = true;
	} else if (b->how == BIND_FILE && arg_is_read(a->kind))
		return read_file(jp, a, b, e);
	else
		populate(a->host, a->bytes);
	return 0;
}

/* Two streams cannot both read standard input: the second would see nothing. */
static int check_stdin(const struct job_plan *jp, struct cs_err *e)
{
	const char *first = NULL;

	for (size_t i = 0; i < jp->kp.nargs; i++) {
		const struct stream_bind *b = &jp->binds[i];

		if (!arg_is_read(jp->kp.args[i].kind) || b->how != BIND_FILE ||
		    !path_is_stdio(b->path))
			continue;
		if (first)
			return err_set(e, "streams '%s' and '%s' both read standard input ('-')",
			               first, jp->kp.args[i].name);
		first = jp->kp.args[i].name;
	}
	return 0;
}

/* An output file that will not be replaced is refused before the run, not after it. */
static int check_outputs(const struct job_plan *jp, struct cs_err *e)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		const struct stream_bind *b = &jp->binds[i];

		if (arg_is_written(jp->kp.args[i].kind) && b->how == BIND_FILE &&
		    ((jp->kp.args[i].record && recfile_format(b->path, jp->kp.args[i].record, e)) ||
		     atomic_writable(b->path, e)))
			return err_prefix(e, "stream '%s': ", jp->kp.args[i].name);
	}
	return 0;
}

static int stage(struct job_plan *jp, bool buffers, struct cs_err *e)
{
	if (check_stdin(jp, e) || check_outputs(jp, e))
		return -1;
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		struct kernel_arg *a = &jp->kp.args[i];

		if (!arg_is_stream(a->kind) || (!buffers && jp->binds[i].how == BIND_BUFFER))
			continue;
		if (stage_one(jp, a, &jp->binds[i], e)) {
			stage_release(jp);
			return err_prefix(e, "stream '%s': ", a->name);
		}
	}
	return 0;
}

static int write_file(const struct job_plan *jp, const struct kernel_arg *a,
                      const struct stream_bind *b, struct cs_err *e)
{
	size_t scalars = a->count * a->type.width;
	enum data_format f;

	if (a->record)
		return recfile_write(b->path, jp->out, a->record, a->host, a->count, e);
	if (datafile_format(b->path, &f, e))
		return -1;
	if (f == DF_PGM && !b->columns_given)
		return err_set(e,
		               "%s: a PGM image needs its width: give columns=\"WIDTH\" on "
		               "the <DataFile>, or %s=%s,columns=WIDTH on the command line",
		               b->path, a->name, b->path);
	return datafile_write(b->path, jp->out, a->type.scalar, a->host, scalars, b->columns, e);
}

int stage_in(struct job_plan *jp, struct cs_err *e)
{
	return stage(jp, true, e);
}

int stage_in_files(struct job_plan *jp, struct cs_err *e)
{
	return stage(jp, false, e);
}

int stage_out(struct job_plan *jp, struct cs_err *e)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		struct kernel_arg *a = &jp->kp.args[i];
		struct stream_bind *b = &jp->binds[i];

		if (!arg_is_written(a->kind) || b->how != BIND_FILE)
			continue;
		if (write_file(jp, a, b, e))
			return err_prefix(e, "stream '%s': ", a->name);
	}
	return 0;
}

void stage_release(struct job_plan *jp)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		struct kernel_arg *a = &jp->kp.args[i];
		struct stream_bind *b = &jp->binds[i];

		if (b->host_owned)
			free(a->host);
		else if (b->host_mapped)
			vbuf_unmap(a->host, a->bytes);
		if (b->host_owned || b->host_mapped || b->file_map.base) {
			a->host = NULL;
			a->host_start = false;
		}
		binio_unmap(&b->file_map);
		b->host_owned = b->host_mapped = false;
	}
}

double stage_files_ms(const struct job_plan *jp, double t0)
{
	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (jp->binds[i].how == BIND_FILE)
			return clock_ms() - t0;
	return 0;
}
