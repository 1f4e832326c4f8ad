/*
 * Raw and .npy data: the bytes are the stream's scalars as the host holds them (CarSh runs on
 * little-endian hosts only, as OpenCL's x86 and ARM devices are), so reading is a copy or a
 * mapping and writing one fwrite(), after the header is checked or made (data/npy.c).
 */
#include "data/binio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/npy.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/parcopy.h"
#include "util/prefault.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "binary streams assume a little-endian host"
#endif

/* "1024 float values" for messages. */
static const char *values_text(enum scalar s, size_t n, char *buf, size_t cap)
{
	snprintf(buf, cap, "%zu %s value%s", n, scalar_name(s), n == 1 ? "" : "s");
	return buf;
}

/* The .npy header at the start of `have` bytes: checked, *offset set to the data. */
static int npy_checked(const unsigned char *p, size_t have, enum scalar s, size_t n, size_t *offset,
                       struct cs_err *e)
{
	struct npy_header h;
	size_t size;

	if (npy_header_size(p, have, &size, e))
		return -1;
	if (size > have)
		return err_set(e, "truncated .npy header (%zu bytes, the header says %zu)", have,
		               size);
	if (npy_parse(p, size, &h, e) || npy_check(&h, s, n, e))
		return -1;
	*offset = h.data_offset;
	return 0;
}

/* The data's place in a whole file of len bytes, whose first `have` bytes are at p: checked
 * against n scalars of kind s. */
static int locate_in(const unsigned char *p, size_t have, size_t len, enum bin_kind k,
                     enum scalar s, size_t n, size_t *offset, struct cs_err *e)
{
	size_t want = n * scalar_size(s);
	char what[64];

	*offset = 0;
	if (k == BIN_NPY && npy_checked(p, have, s, n, offset, e))
		return -1;
	if (len - *offset != want)
		return err_set(e, "%s%zu bytes, expected %zu (%s)", k == BIN_NPY ? "data of " : "",
		               len - *offset, want, values_text(s, n, what, sizeof(what)));
	return 0;
}

static int locate(const unsigned char *p, size_t len, enum bin_kind k, enum scalar s, size_t n,
                  size_t *offset, struct cs_err *e)
{
	return locate_in(p, len, len, k, s, n, offset, e);
}

/* The file's pages mapped private and writable, populated while read-only: populating a
 * writable private mapping would take every page's copy-on-write up front (a copy of the
 * whole file before anyone writes), where read-only it maps the page cache as it is and a
 * page is copied only when a kernel's InOut writes it. A large file is populated over the
 * cores (prefault), not by MAP_POPULATE on this thread. */
static void *map_pages(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);

	if (p != MAP_FAILED)
		prefault(p, len, false);
	if (p != MAP_FAILED && mprotect(p, len, PROT_READ | PROT_WRITE) != 0) {
		int saved = errno;

		munmap(p, len);
		errno = saved;
		return MAP_FAILED;
	}
	return p;
}

/* 1 mapped, 0 not a regular file, -1 error (e without the file's name). */
static int map_file(const char *path, struct bin_map *m, struct cs_err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return err_errno(e, "%s", path);
	if (fstat(fd, &st) != 0) {
		err_errno(e, "%s", path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	m->len = (size_t)st.st_size;
	m->base = m->len ? map_pages(fd, m->len) : NULL;
	close(fd);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return err_errno(e, "%s: cannot map", path);
	}
	return 1;
}

int binio_map(const char *path, enum bin_kind k, enum scalar s, size_t n, struct bin_map *m,
              struct cs_err *e)
{
	size_t offset;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = map_file(path, m, e);
	if (rc <= 0)
		return rc;
	if (locate(m->base, m->len, k, s, n, &offset, e)) {
		binio_unmap(m);
		return err_prefix(e, "%s: ", path);
	}
	m->data = (char *)m->base + offset;
	return 1;
}

void binio_unmap(struct bin_map *m)
{
	if (m->base)
		munmap(m->base, m->len);
	memset(m, 0, sizeof(*m));
}

/* The header's bytes (a .npy's, at most its largest size; none for raw) read and checked:
 * *offset at the data. */
static int check_head(int fd, size_t len, enum bin_kind k, enum scalar s, size_t n, size_t *offset,
                      struct cs_err *e)
{
	size_t have = k == BIN_NPY ? len : 0;
	unsigned char *head;
	int rc;

	if (have > NPY_PRELUDE_MAX + NPY_DICT_MAX)
		have = NPY_PRELUDE_MAX + NPY_DICT_MAX;
	head = xmalloc(have ? have : 1);
	if (have && par_pread(fd, head, have, 0, 1) != 0)
		rc = errno ? err_errno(e, "read") : err_set(e, "the file ended while read");
	else
		rc = locate_in(head, have, len, k, s, n, offset, e);
	free(head);
	return rc;
}

int binio_open(const char *path, enum bin_kind k, enum scalar s, size_t n, struct bin_file *bf,
               struct cs_err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(bf, 0, sizeof(*bf));
	bf->fd = -1;
	if (fd < 0)
		return err_errno(e, "%s", path);
	if (fstat(fd, &st) != 0) {
		err_errno(e, "%s", path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	if (check_head(fd, (size_t)st.st_size, k, s, n, &bf->offset, e)) {
		close(fd);
		return err_prefix(e, "%s: ", path);
	}
	bf->fd = fd;
	bf->bytes = n * scalar_size(s);
	bf->path = xstrdup(path);
	return 1;
}

int binio_read_into(const struct bin_file *bf, void *dst, struct cs_err *e)
{
	if (par_pread(bf->fd, dst, bf->bytes, (off_t)bf->offset, 0) == 0)
		return 0;
	if (errno)
		return err_errno(e, "%s", bf->path);
	return err_set(e, "%s: the file ended while it was read (changed since it was checked?)",
	               bf->path);
}

void binio_close(struct bin_file *bf)
{
	if (bf->fd >= 0)
		close(bf->fd);
	free(bf->path);
	memset(bf, 0, sizeof(*bf));
	bf->fd = -1;
}

/* Exactly want bytes from a stream, and then its end. */
static int read_exact(FILE *f, const char *name, void *dst, size_t want, const char *what,
                      struct cs_err *e)
{
	size_t got = fread(dst, 1, want, f);

	if (got < want && ferror(f))
		return err_errno(e, "%s", name);
	if (got < want)
		return err_set(e, "%s: %zu bytes of data, expected %zu (%s): a short read", name,
		               got, want, what);
	if (fgetc(f) != EOF)
		return err_set(e, "%s: more than %zu bytes of data (%s)", name, want, what);
	return 0;
}

/* The header from a stream: the prelude, then the dict it announces, parsed into *h. */
static int read_npy_dict(FILE *f, const char *name, struct npy_header *h, struct cs_err *e)
{
	unsigned char *head = xmalloc(NPY_PRELUDE_MAX + NPY_DICT_MAX);
	size_t have = fread(head, 1, 10, f), size;
	int rc = -1;

	if (have == 10 && head[6] > 1)
		have += fread(head + 10, 1, 2, f);
	if (npy_header_size(head, have, &size, e) == 0) {
		have += fread(head + have, 1, size - have, f);
		if (size > have)
			err_set(e, "truncated .npy header (%zu bytes, the header says %zu)", have,
			        size);
		else
			rc = npy_parse(head, size, h, e);
	}
	free(head);
	return rc ? err_prefix(e, "%s: ", name) : 0;
}

static int read_npy_header(FILE *f, const char *name, enum scalar s, size_t n, struct cs_err *e)
{
	struct npy_header h;

	if (read_npy_dict(f, name, &h, e))
		return -1;
	return npy_check(&h, s, n, e) ? err_prefix(e, "%s: ", name) : 0;
}

static int read_stream(FILE *f, const char *name, enum bin_kind k, enum scalar s, void *dst,
                       size_t n, struct cs_err *e)
{
	char what[64];

	if (k == BIN_NPY && read_npy_header(f, name, s, n, e))
		return -1;
	return read_exact(f, name, dst, n * scalar_size(s), values_text(s, n, what, sizeof(what)),
	                  e);
}

int binio_read(const char *path, FILE *in, const char *name, enum bin_kind k, enum scalar s,
               void *dst, size_t n, struct cs_err *e)
{
	struct bin_file bf;
	FILE *f;
	int rc;

	if (!path)
		return read_stream(in, name, k, s, dst, n, e);
	rc = binio_open(path, k, s, n, &bf, e);
	if (rc < 0)
		return -1;
	if (rc == 1) {
		rc = binio_read_into(&bf, dst, e);
		binio_close(&bf);
		return rc;
	}
	f = fopen(path, "rbe");
	if (!f)
		return err_errno(e, "%s", path);
	rc = read_stream(f, path, k, s, dst, n, e);
	fclose(f);
	return rc;
}

struct bin_out {
	enum bin_kind k;
	enum scalar s;
	const void *src;
	size_t n, columns;
};

static int write_data(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	const struct bin_out *o = arg;
	size_t bytes = o->n * scalar_size(o->s);
	char head[NPY_WRITE_MAX];

	if (o->k == BIN_NPY) {
		size_t len = npy_header_make(o->s, o->n, o->columns, head);

		if (fwrite(head, 1, len, f) != len)
			return err_errno(e, "%s", name);
	}
	if (fwrite(o->src, 1, bytes, f) != bytes)
		return err_errno(e, "%s", name);
	return file_flush(f, name, e);
}

int binio_write(const char *path, FILE *out, enum bin_kind k, enum scalar s, const void *src,
                size_t n, size_t columns, struct cs_err *e)
{
	struct bin_out o = {k, s, src, n, columns};

	if (!path)
		return write_data(out, "<stdout>", &o, e);
	return atomic_write(path, write_data, &o, e);
}

int binio_count(FILE *f, const char *name, enum bin_kind k, enum scalar s, size_t *n,
                struct cs_err *e)
{
	size_t size = scalar_size(s);
	struct npy_header h;
	struct stat st;

	if (fstat(fileno(f), &st) != 0)
		return err_errno(e, "%s", name);
	if (k == BIN_NPY) {
		rewind(f);
		if (read_npy_dict(f, name, &h, e))
			return -1;
		if (npy_check(&h, s, h.count, e))
			return err_prefix(e, "%s: ", name);
		*n = h.count;
	} else if ((uintmax_t)st.st_size % size)
		return err_set(e,
		               "%s: %jd bytes are not a whole number of %s values (%zu bytes each)",
		               name, (intmax_t)st.st_size, scalar_name(s), size);
	else
		*n = (size_t)st.st_size / size;
	rewind(f);
	return 0;
}
