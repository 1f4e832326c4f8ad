#include "util/parcopy.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define PARCOPY_MAX_THREADS 32

struct part {
	char *dst;
	const char *src;
	size_t n;
};

static void *copy_part(void *arg)
{
	struct part *p = arg;

	memcpy(p->dst, p->src, p->n);
	return NULL;
}

void par_memcpy(void *dst, const void *src, size_t n, unsigned max_threads)
{
	struct part parts[PARCOPY_MAX_THREADS];
	pthread_t th[PARCOPY_MAX_THREADS];
	bool started[PARCOPY_MAX_THREADS];
	size_t k = n / PARCOPY_MIN, each, at = 0;

	if (max_threads == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		max_threads = cores > 0 ? (unsigned)cores : 1;
	}
	if (k > max_threads)
		k = max_threads;
	if (k > PARCOPY_MAX_THREADS)
		k = PARCOPY_MAX_THREADS;
	if (k < 2) {
		memcpy(dst, src, n);
		return;
	}
	each = (n / k + 63) / 64 * 64; /* whole cache lines */
	for (size_t i = 0; i < k; i++, at += each) {
		size_t len;

		if (at > n)
			at = n;
		len = i + 1 == k || n - at < each ? n - at : each;

		parts[i] = (struct part){(char *)dst + at, (const char *)src + at, len};
		/* The caller's thread copies the first part itself. */
		started[i] = i > 0 && pthread_create(&th[i], NULL, copy_part, &parts[i]) == 0;
	}
	for (size_t i = 0; i < k; i++)
		if (!started[i])
			copy_part(&parts[i]);
	for (size_t i = 1; i < k; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}
