#include "util/prefault.h"

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
};

static void *populate_part(void *arg)
{
	struct part *p = arg;

	/* A failure is deliberately left to the first touch (see prefault.h). */
	(void)madvise(p->from, p->len, p->advice);
	return NULL;
}

void prefault(void *p, size_t bytes, bool writable)
{
	struct part parts[PARRUN_MAX];
	long page_size = sysconf(_SC_PAGESIZE);
	size_t page = page_size > 0 ? (size_t)page_size : 4096;
	size_t k, each;

	if (!p || bytes < PART_MIN || (uintptr_t)p % page != 0)
		return;
	k = par_parts(bytes, PART_MIN);
	each = (bytes / k + page - 1) / page * page;
	for (size_t i = 0; i < k; i++) {
		size_t at = i * each < bytes ? i * each : bytes;

		size_t len = i + 1 == k || bytes - at < each ? bytes - at : each;

		parts[i] = (struct part){(char *)p + at, len,
		                         writable ? MADV_POPULATE_WRITE : MADV_POPULATE_READ};
	}
	par_run(populate_part, parts, sizeof(parts[0]), k);
}
