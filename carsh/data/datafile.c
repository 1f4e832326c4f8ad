/* Data files: each format's reader and writer, chosen by name (data/datafile.h). */
#include "data/datafile.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "data/csvio.h"
#include "data/pgm.h"
#include "util/path.h"

struct format_name {
	const char *name;
	enum data_format f;
};

static const struct format_name names[] = {
        {"csv", DF_CSV}, {"npy", DF_NPY}, {"raw", DF_RAW}, {"bin", DF_RAW}, {"pgm", DF_PGM},
};

static int by_name(const char *name, enum data_format *f)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcasecmp(name, names[i].name) == 0) {
			*f = names[i].f;
			return 0;
		}
	}
	return -1;
}

int datafile_format(const char *path, enum data_format *f, struct cs_err *e)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');

	*f = DF_CSV;
	if (path_is_stdio(path)) {
		if (path[1] == ':' && by_name(path + 2, f))
			return err_set(e, "'%s': unknown format '%s' (formats: csv npy raw pgm)",
			               path, path + 2);
		return 0;
	}
	if (dot && by_name(dot + 1, f))
		*f = DF_CSV;
	return 0;
}

static enum bin_kind bin_kind(enum data_format f)
{
	return f == DF_NPY ? BIN_NPY : BIN_RAW;
}

int datafile_read(const char *path, FILE *in, enum scalar s, void *dst, size_t n, struct cs_err *e)
{
	bool std = path_is_stdio(path);
	enum data_format f;

	if (datafile_format(path, &f, e))
		return -1;
	if (!in)
		in = stdin;
	switch (f) {
	case DF_PGM:
		return std ? pgm_read_stream(in, "<stdin>", s, dst, n, NULL, NULL, e)
		           : pgm_read(path, s, dst, n, NULL, NULL, e);
	case DF_NPY:
	case DF_RAW:
		return binio_read(std ? NULL : path, in, "<stdin>", bin_kind(f), s, dst, n, e);
	case DF_CSV:
		break;
	}
	return std ? csvio_read_stream(in, "<stdin>", s, dst, n, e)
	           : csvio_read(path, s, dst, n, e);
}

static int count_open(FILE *f, const char *name, enum data_format fmt, enum scalar s, size_t *n,
                      void **values, struct cs_err *e)
{
	void *all;
	int rc;

	if (fmt == DF_NPY || fmt == DF_RAW)
		return binio_count(f, name, bin_kind(fmt), s, n, e);
	rc = csvio_read_all_stream(f, name, s, &all, n, e);
	if (rc == 0 && values)
		*values = all;
	else if (rc == 0)
		free(all);
	rewind(f);
	return rc;
}

int datafile_count_values(const char *path, FILE *in, enum scalar s, size_t *n, void **values,
                          struct cs_err *e)
{
	enum data_format fmt;
	FILE *f;
	int rc;

	*n = 0;
	if (values)
		*values = NULL;
	if (datafile_format(path, &fmt, e))
		return -1;
	if (fmt == DF_PGM)
		return 1;
	if (path_is_stdio(path))
		return count_open(in, "<stdin>", fmt, s, n, values, e);
	rc = datafile_open_counted(path, &f, e);
	if (rc == 0) {
		rc = count_open(f, path, fmt, s, n, values, e);
		fclose(f);
	}
	return rc;
}

int datafile_open_counted(const char *path, FILE **f, struct cs_err *e)
{
	struct stat st;

	*f = fopen(path, "rbe");
	if (!*f)
		return err_errno(e, "%s", path);
	/* A pipe or a device read here would be empty for the job. */
	if (fstat(fileno(*f), &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	fclose(*f);
	*f = NULL;
	return 1;
}

int datafile_count(const char *path, FILE *in, enum scalar s, size_t *n, struct cs_err *e)
{
	return datafile_count_values(path, in, s, n, NULL, e);
}

int datafile_map(const char *path, enum scalar s, size_t n, struct bin_map *m, struct cs_err *e)
{
	enum data_format f;

	if (path_is_stdio(path) || datafile_format(path, &f, e) || (f != DF_NPY && f != DF_RAW))
		return 0;
	return binio_map(path, bin_kind(f), s, n, m, e);
}

int datafile_open(const char *path, enum scalar s, size_t n, struct bin_file *bf, struct cs_err *e)
{
	enum data_format f;

	if (path_is_stdio(path) || datafile_format(path, &f, e) || (f != DF_NPY && f != DF_RAW))
		return 0;
	return binio_open(path, bin_kind(f), s, n, bf, e);
}

int datafile_write(const char *path, FILE *out, enum scalar s, const void *src, size_t n,
                   size_t columns, struct cs_err *e)
{
	bool std = path_is_stdio(path);
	enum data_format f;

	if (datafile_format(path, &f, e))
		return -1;
	if (!out)
		out = stdout;
	switch (f) {
	case DF_PGM:
		return std ? pgm_write_stream(out, "<stdout>", s, src, n, columns, e)
		           : pgm_write(path, s, src, n, columns, e);
	case DF_NPY:
	case DF_RAW:
		return binio_write(std ? NULL : path, out, bin_kind(f), s, src, n, columns, e);
	case DF_CSV:
		break;
	}
	return std ? csvio_write_stream(out, "<stdout>", s, src, n, columns, e)
	           : csvio_write(path, s, src, n, columns, e);
}
