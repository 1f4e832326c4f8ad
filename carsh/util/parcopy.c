#include "util/parcopy.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define PARCOPY_MAX_THREADS 32

/* One thread's part: a copy from src, or a read of fd from offset when src is NULL. */
struct part {
	char *dst;
	const char *src;
	size_t n;
	int fd;
	off_t offset;
	int err; /* the read's errno; -1 for a short read */
};

static void read_part(struct part *p)
{
	size_t done = 0;

	while (done < p->n) {
		ssize_t got = pread(p->fd, p->dst + done, p->n - done, p->offset + (off_t)done);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			p->err = got < 0 ? errno : -1;
			return;
		}
		done += (size_t)got;
	}
}

static void *copy_part(void *arg)
{
	struct part *p = arg;

	if (p->src)
		memcpy(p->dst, p->src, p->n);
	else
		read_part(p);
	return NULL;
}

/* How many parts for n bytes: one per online core (or max_threads), none under
 * PARCOPY_MIN a part. */
static size_t part_count(size_t n, unsigned max_threads)
{
	size_t k = n / PARCOPY_MIN;

	if (max_threads == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);

		max_threads = cores > 0 ? (unsigned)cores : 1;
	}
	if (k > max_threads)
		k = max_threads;
	if (k > PARCOPY_MAX_THREADS)
		k = PARCOPY_MAX_THREADS;
	return k ? k : 1;
}

/* Runs parts[0..k) over k threads (the caller's takes the first; a part whose thread cannot
 * be started is done by the caller's too, so the work always completes). */
static void run_parts(struct part *parts, size_t k)
{
	pthread_t th[PARCOPY_MAX_THREADS];
	bool started[PARCOPY_MAX_THREADS];

	for (size_t i = 0; i < k; i++)
		started[i] = i > 0 && pthread_create(&th[i], NULL, copy_part, &parts[i]) == 0;
	for (size_t i = 0; i < k; i++)
		if (!started[i])
			copy_part(&parts[i]);
	for (size_t i = 1; i < k; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

/* Splits [0, n) into k parts of whole cache lines (the last takes the rest). */
static void split(struct part *parts, size_t k, char *dst, const char *src, size_t n, int fd,
                  off_t offset)
{
	size_t each = (n / k + 63) / 64 * 64, at = 0;

	for (size_t i = 0; i < k; i++, at += each) {
		size_t len;

		if (at > n)
			at = n;
		len = i + 1 == k || n - at < each ? n - at : each;
		parts[i] = (struct part){dst + at, src ? src + at : NULL, len,
		                         fd,       offset + (off_t)at,    0};
	}
}

void par_memcpy(void *dst, const void *src, size_t n, unsigned max_threads)
{
	struct part parts[PARCOPY_MAX_THREADS];
	size_t k = part_count(n, max_threads);

	if (k < 2) {
		memcpy(dst, src, n);
		return;
	}
	split(parts, k, dst, src, n, -1, 0);
	run_parts(parts, k);
}

int par_pread(int fd, void *dst, size_t n, off_t offset, unsigned max_threads)
{
	struct part parts[PARCOPY_MAX_THREADS];
	size_t k = part_count(n, max_threads);

	split(parts, k, dst, NULL, n, fd, offset);
	run_parts(parts, k);
	for (size_t i = 0; i < k; i++)
		if (parts[i].err) {
			errno = parts[i].err > 0 ? parts[i].err : 0;
			return -1;
		}
	return 0;
}
