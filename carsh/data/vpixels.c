/* A virtual buffer's 8-bit pixels kept beside it (data/vpixels.h). */
#include "data/vpixels.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/pixels.h"
#include "data/vbuf.h"
#include "util/alloc.h"

char *vpixels_name(const char *shm)
{
	/* "-8" keeps the name's "<prefix><pid>-" start: the stale sweep finds it. */
	return xasprintf("%s-8", shm);
}

/* The object made, n bytes long (its pages kept when it had that size already). */
static int make(const char *name, size_t n, struct cs_err *e)
{
	int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
	struct stat st;
	int rc = 0;

	if (fd < 0)
		return err_errno(e, "cannot open shared memory %s", name);
	if (fstat(fd, &st) != 0 || ((size_t)st.st_size != n && ftruncate(fd, (off_t)n) != 0))
		rc = err_errno(e, "cannot size shared memory %s", name);
	close(fd);
	return rc;
}

unsigned char *vpixels_map(const char *shm, size_t n, bool create, bool writable, struct cs_err *e)
{
	char *name = vpixels_name(shm);
	unsigned char *p = NULL;

	if (!create || make(name, n, e) == 0)
		p = vbuf_map(name, n, writable, e);
	free(name);
	return p;
}

/* The number of pixels the object holds (its size). */
static int count(const char *shm, size_t *n, struct cs_err *e)
{
	char *name = vpixels_name(shm);
	int fd = shm_open(name, O_RDONLY, 0);
	struct stat st;
	int rc = 0;

	if (fd < 0 || fstat(fd, &st) != 0)
		rc = err_errno(e, "cannot open shared memory %s", name);
	else
		*n = (size_t)st.st_size;
	if (fd >= 0)
		close(fd);
	free(name);
	return rc;
}

int vpixels_widen(const char *shm, enum scalar s, struct cs_err *e)
{
	size_t n = 0;
	unsigned char *px = count(shm, &n, e) ? NULL : vpixels_map(shm, n, false, false, e);
	void *map = px ? vbuf_map(shm, n * scalar_size(s), true, e) : NULL;

	if (map)
		pixels_from_samples(s, px, 1, n, map);
	vbuf_unmap(map, n * scalar_size(s));
	vbuf_unmap(px, n);
	return map ? 0 : -1;
}

void vpixels_unlink(const char *shm)
{
	char *name = vpixels_name(shm);

	(void)shm_unlink(name); /* most buffers have none */
	free(name);
}
