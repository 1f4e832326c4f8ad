#include "util/memfdarea.h"

#include <sys/mman.h>
#include <unistd.h>

void *memfd_area(const char *name, size_t bytes, const char *what, int *fd, struct cs_err *e)
{
	void *p;

	*fd = memfd_create(name, MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, (off_t)bytes) != 0) {
		err_errno(e, "cannot create %s", what);
		if (*fd >= 0)
			close(*fd);
		return NULL;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED) {
		err_errno(e, "cannot map %s", what);
		close(*fd);
		return NULL;
	}
	return p;
}
