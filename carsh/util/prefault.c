#include "util/prefault.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/parrun.h"

/* Fewer bytes than this a part are not worth a thread; smaller mappings fault cheaply. */
#define PART_MIN ((size_t)8 << 20)

struct part {
	char *from;
	size_t len;
	int advice;
	int err; /* the errno of a failure, or 0 */
};

static void *populate_part(void *arg)
{
	struct part *p = arg;

	p->err = madvise(p->from, p->len, p->advice) == 0 ? 0 : errno;
	return NULL;
}

/* Over the cores in parts of at least PART_MIN: 0, or the errno of a part that failed. */
static int populate(void *p, size_t bytes, bool writable, size_t page)
{
	struct part parts[PARRUN_MAX];
	size_t k, each;

	k = par_parts(bytes, PART_MIN);
	each = (bytes / k + page - 1) / page * page;
	for (size_t i = 0; i < k; i++) {
		size_t at = i * each < bytes ? i * each : bytes;

		size_t len = i + 1 == k || bytes - at < each ? bytes - at : each;

		parts[i] = (struct part){(char *)p + at, len,
		                         writable ? MADV_POPULATE_WRITE : MADV_POPULATE_READ, 0};
	}
	par_run(populate_part, parts, sizeof(parts[0]), k);
	for (size_t i = 0; i < k; i++)
		if (parts[i].err)
			return parts[i].err;
	return 0;
}

static size_t page_size(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (size_t)n : 4096;
}

void prefault(void *p, size_t bytes, bool writable)
{
	size_t page = page_size();

	/* A failure is deliberately left to the first touch (see prefault.h). */
	if (p && bytes >= PART_MIN && (uintptr_t)p % page == 0)
		(void)populate(p, bytes, writable, page);
}

int prefault_checked(void *p, size_t bytes, bool writable)
{
	size_t page = page_size();
	int err;

	if (!p || bytes == 0)
		return 0;
	if ((uintptr_t)p % page != 0) {
		errno = EINVAL;
		return -1;
	}
	err = populate(p, bytes, writable, page);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
