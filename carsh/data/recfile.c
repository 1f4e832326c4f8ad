/* Struct streams by file format (data/recfile.h). */
#include "data/recfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "data/datafile.h"
#include "data/reccsv.h"
#include "data/recnpy.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/path.h"

static int record_format(const char *path, const struct cs_record *r, enum data_format *f,
                         struct cs_err *e)
{
	if (datafile_format(path, f, e))
		return -1;
	if (*f != DF_PGM)
		return 0;
	return err_set(e,
	               "%s: a stream of struct %s is read and written as CSV, .npy or raw (.raw, "
	               ".bin), not as .pgm",
	               path, r->name);
}

int recfile_format(const char *path, const struct cs_record *r, struct cs_err *e)
{
	enum data_format f;

	return record_format(path, r, &f, e);
}

static int size_error(const struct cs_record *r, size_t n, struct cs_err *e)
{
	return err_set(e, "%zu records of struct %s (%zu bytes each) do not fit in memory", n,
	               r->name, r->size);
}

/* A regular raw file's size in records' words, before the bytes are read. */
static int raw_size_check(const char *path, const struct cs_record *r, size_t n, size_t bytes,
                          struct cs_err *e)
{
	struct stat st;

	if (path_is_stdio(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size == bytes)
		return 0;
	return err_set(e, "%s: %lld bytes, expected %zu (%zu struct %s records of %zu bytes)", path,
	               (long long)st.st_size, bytes, n, r->name, r->size);
}

/* A .npy file's header, then exactly its records' bytes. */
static int read_npy(FILE *f, const char *name, const struct cs_record *r, void *dst, size_t n,
                    size_t bytes, struct cs_err *e)
{
	size_t found, got;

	if (recnpy_read_header(f, name, r, &found, e))
		return -1;
	if (found != n)
		return err_set(e, "%s: shape (%zu,) holds %zu record%s, expected %zu (struct %s)",
		               name, found, found, found == 1 ? "" : "s", n, r->name);
	got = fread(dst, 1, bytes, f);
	if (got != bytes)
		return err_set(e, "%s: %zu bytes of data, expected %zu (%zu struct %s records)",
		               name, got, bytes, n, r->name);
	return 0;
}

static int read_open(FILE *f, const char *name, enum data_format fmt, const struct cs_record *r,
                     void *dst, size_t n, size_t bytes, struct cs_err *e)
{
	return fmt == DF_NPY ? read_npy(f, name, r, dst, n, bytes, e)
	                     : reccsv_read(f, name, r, dst, n, NULL, e);
}

int recfile_read(const char *path, FILE *in, const struct cs_record *r, void *dst, size_t n,
                 struct cs_err *e)
{
	enum data_format f;
	size_t bytes;
	FILE *file;
	int rc;

	if (record_format(path, r, &f, e))
		return -1;
	if (size_mul(n, r->size, &bytes))
		return size_error(r, n, e);
	if (f == DF_RAW)
		return raw_size_check(path, r, n, bytes, e)
		               ? -1
		               : datafile_read(path, in, SC_UCHAR, dst, bytes, e);
	if (path_is_stdio(path))
		return read_open(in ? in : stdin, "<stdin>", f, r, dst, n, bytes, e);
	file = fopen(path, "re");
	if (!file)
		return err_errno(e, "%s", path);
	rc = read_open(file, path, f, r, dst, n, bytes, e);
	fclose(file);
	return rc;
}

int recfile_map(const char *path, const struct cs_record *r, size_t n, struct bin_map *m,
                struct cs_err *e)
{
	enum data_format f;
	size_t bytes;

	if (path_is_stdio(path) || record_format(path, r, &f, e) || f != DF_RAW)
		return 0;
	if (size_mul(n, r->size, &bytes))
		return size_error(r, n, e);
	if (raw_size_check(path, r, n, bytes, e))
		return -1;
	return datafile_map(path, SC_UCHAR, bytes, m, e);
}

static int count_open(FILE *f, const char *name, enum data_format fmt, const struct cs_record *r,
                      size_t *n, struct cs_err *e)
{
	struct stat st;
	int rc;

	if (fmt == DF_CSV || fmt == DF_NPY) {
		rc = fmt == DF_CSV ? reccsv_read(f, name, r, NULL, 0, n, e)
		                   : recnpy_read_header(f, name, r, n, e);
		rewind(f);
		return rc;
	}
	if (fstat(fileno(f), &st) != 0)
		return err_errno(e, "%s", name);
	if ((size_t)st.st_size % r->size)
		return err_set(e,
		               "%s: %lld bytes are not a whole number of struct %s records (%zu "
		               "bytes each)",
		               name, (long long)st.st_size, r->name, r->size);
	*n = (size_t)st.st_size / r->size;
	return 0;
}

int recfile_count(const char *path, FILE *in, const struct cs_record *r, size_t *n,
                  struct cs_err *e)
{
	enum data_format fmt;
	FILE *f;
	int rc;

	*n = 0;
	if (record_format(path, r, &fmt, e))
		return -1;
	if (path_is_stdio(path))
		return count_open(in, "<stdin>", fmt, r, n, e);
	rc = datafile_open_counted(path, &f, e);
	if (rc == 0) {
		rc = count_open(f, path, fmt, r, n, e);
		fclose(f);
	}
	return rc;
}

struct rec_out {
	const struct cs_record *r;
	const void *src;
	size_t n;
};

static int write_records(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct rec_out *o = arg;

	if (reccsv_write(f, name, o->r, o->src, o->n, e))
		return -1;
	return file_flush(f, name, e);
}

/* A .npy file: the header, then the records' bytes as they lie. */
static int write_npy(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct rec_out *o = arg;
	size_t len;
	char *header = recnpy_header(o->r, o->n, &len);
	bool ok = fwrite(header, 1, len, f) == len && fwrite(o->src, o->r->size, o->n, f) == o->n;

	free(header);
	if (!ok)
		return err_set(e, "%s: write error", name);
	return file_flush(f, name, e);
}

int recfile_write(const char *path, FILE *out, const struct cs_record *r, const void *src, size_t n,
                  struct cs_err *e)
{
	struct rec_out o = {r, src, n};
	enum data_format f;
	size_t bytes;

	if (record_format(path, r, &f, e))
		return -1;
	if (size_mul(n, r->size, &bytes))
		return size_error(r, n, e);
	if (f == DF_RAW)
		return datafile_write(path, out, SC_UCHAR, src, bytes, 1, e);
	if (path_is_stdio(path))
		return (f == DF_NPY ? write_npy : write_records)(out ? out : stdout, "<stdout>", &o,
		                                                 e);
	return atomic_write(path, f == DF_NPY ? write_npy : write_records, &o, e);
}
