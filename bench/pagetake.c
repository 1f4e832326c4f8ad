/*
 * How fast 64 MiB of new shared memory (a memfd, as a new virtual buffer's object) can be
 * taken and written, by the ways a fill could do it, over 1 to 16 threads: a byte written a
 * page, MADV_POPULATE_WRITE, a memcpy into the new pages, a pread of a file into them,
 * populating first and copying after, each of the last two after a posix_fallocate of the
 * object, the pread again where the mapping asks for huge pages (MADV_HUGEPAGE: taken only
 * where /sys/kernel/mm/transparent_hugepage/shmem_enabled is advise, within_size or always),
 * pwrite and sendfile into the object (no clearing of the new pages, but one writer at a time
 * on its inode), and a share written by pwrite beside preads of the rest. It chose how
 * `virtbuf fill B x.npy` reads (docs/benchmarks.md, "Data in and out"): each thread preads
 * its part, taking its pages as it copies.
 *
 *   cc -O2 -pthread -o pagetake bench/pagetake.c && ./pagetake     (Linux 5.14 or later)
 *   PAGETAKE_SHM=1 ./pagetake                                        (objects in /dev/shm)
 *
 * Each line: the best and the mean of five runs, and what freeing the object took.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define SIZE    ((size_t)64 << 20)
#define RUNS    5
#define THREADS 16

static double mixed_share = 0.25; /* MIXED: the share part 0 writes */

enum way { TOUCH, POPULATE, COPY, PREAD, POPULATE_COPY, PWRITE, SENDFILE, MIXED };

struct part {
	enum way way;
	char *dst;
	const char *src; /* COPY, POPULATE_COPY: the source at the same offset */
	int fd;          /* PREAD, SENDFILE: the file, read at the part's offset */
	int obj;         /* PWRITE, SENDFILE: the object, written at the part's offset */
	size_t offset, n;
};

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *work(void *arg)
{
	struct part *p = arg;

	switch (p->way) {
	case TOUCH:
		for (size_t i = 0; i < p->n; i += 4096)
			p->dst[i] = 1;
		break;
	case POPULATE_COPY:
		if (madvise(p->dst, p->n, MADV_POPULATE_WRITE) != 0)
			perror("madvise");
		/* fall through */
	case COPY:
		memcpy(p->dst, p->src, p->n);
		break;
	case POPULATE:
		if (madvise(p->dst, p->n, MADV_POPULATE_WRITE) != 0)
			perror("madvise");
		break;
	case PWRITE: /* from the source (the file's mapping in a fill) into the object's pages */
		for (size_t done = 0; done < p->n;) {
			ssize_t put = pwrite(p->obj, p->src + done, p->n - done,
			                     (off_t)(p->offset + done));

			if (put <= 0) {
				perror("pwrite");
				break;
			}
			done += (size_t)put;
		}
		break;
	case SENDFILE: {
		char self[64];
		int out;
		off_t in_at = (off_t)p->offset;

		/* a description of its own, so that each part writes at its own position */
		snprintf(self, sizeof self, "/proc/self/fd/%d", p->obj);
		out = open(self, O_WRONLY);
		if (out < 0 || lseek(out, (off_t)p->offset, SEEK_SET) < 0) {
			perror("open object");
			break;
		}
		for (size_t done = 0; done < p->n;) {
			ssize_t put = sendfile(out, p->fd, &in_at, p->n - done);

			if (put <= 0) {
				perror("sendfile");
				break;
			}
			done += (size_t)put;
		}
		close(out);
		break;
	}
	case MIXED: /* part 0 (by run_once) was made PWRITE; the others read */
	case PREAD:
		for (size_t done = 0; done < p->n;) {
			ssize_t got =
			        pread(p->fd, p->dst + done, p->n - done, (off_t)(p->offset + done));

			if (got <= 0) {
				perror("pread");
				break;
			}
			done += (size_t)got;
		}
		break;
	}
	return NULL;
}

/* A new object: a memfd, or with PAGETAKE_SHM set a file of /dev/shm as a buffer's (a tmpfs
 * mount takes huge pages by its own huge= option, a memfd by shmem_enabled). */
static int new_object(void)
{
	char path[] = "/dev/shm/pagetake-XXXXXX";
	int fd;

	if (!getenv("PAGETAKE_SHM"))
		return memfd_create("pagetake", MFD_CLOEXEC);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* One run: a new object (reserved first when fallocate), taken the way asked by threads
 * threads; its time, and in *free_ms the time to unmap and free it. */
static double run_once(enum way way, unsigned threads, bool reserve, bool huge, const char *src,
                       int fd, double *free_ms)
{
	pthread_t th[THREADS];
	bool started[THREADS];
	struct part parts[THREADS];
	size_t each = SIZE / threads;
	double t0 = now_ms(), t;
	int obj = new_object();
	char *p;

	if (obj < 0 || ftruncate(obj, SIZE) != 0 || (reserve && posix_fallocate(obj, 0, SIZE))) {
		perror("memfd");
		exit(1);
	}
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, obj, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	if (huge && madvise(p, SIZE, MADV_HUGEPAGE) != 0)
		perror("madvise MADV_HUGEPAGE");
	size_t first = way == MIXED && threads > 1 ? (size_t)(SIZE * mixed_share) / 4096 * 4096 : 0;

	if (first)
		each = (SIZE - first) / (threads - 1);
	for (unsigned i = 0; i < threads; i++) {
		size_t at = first && i ? first + (i - 1) * each : i * each;
		size_t n = first && i == 0 ? first : i + 1 == threads ? SIZE - at : each;

		parts[i] = (struct part){first && i == 0 ? PWRITE : way,
		                         p + at,
		                         src ? src + at : NULL,
		                         fd,
		                         obj,
		                         at,
		                         n};
		started[i] = pthread_create(&th[i], NULL, work, &parts[i]) == 0;
		if (!started[i])
			work(&parts[i]);
	}
	for (unsigned i = 0; i < threads; i++)
		if (started[i])
			pthread_join(th[i], NULL);
	t = now_ms() - t0;
	t0 = now_ms();
	munmap(p, SIZE);
	close(obj);
	*free_ms = now_ms() - t0;
	return t;
}

static void measure(const char *label, enum way way, bool reserve, bool huge, const char *src,
                    int fd)
{
	static const unsigned counts[] = {1, 2, 4, 8, 16};

	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		double best = 1e30, sum = 0, free_ms = 0;

		for (int r = 0; r < RUNS; r++) {
			double t = run_once(way, counts[c], reserve, huge, src, fd, &free_ms);

			best = t < best ? t : best;
			sum += t;
		}
		printf("%-26s threads %2u: best %6.2f ms, mean %6.2f ms (free %5.2f ms)\n", label,
		       counts[c], best, sum / RUNS, free_ms);
	}
}

int main(void)
{
	char *src = malloc(SIZE), path[] = "/tmp/pagetake-XXXXXX", *map;
	int fd = mkstemp(path);

	if (!src || fd < 0) {
		perror("setup");
		return 1;
	}
	for (size_t i = 0; i < SIZE; i++)
		src[i] = (char)(i * 7);
	if (write(fd, src, SIZE) != (ssize_t)SIZE) {
		perror("write");
		return 1;
	}
	unlink(path); /* the page cache keeps it while fd is open */
	map = mmap(NULL, SIZE, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap file");
		return 1;
	}
	measure("touch a byte a page", TOUCH, false, false, NULL, -1);
	measure("MADV_POPULATE_WRITE", POPULATE, false, false, NULL, -1);
	measure("memcpy into new pages", COPY, false, false, src, -1);
	measure("pread into new pages", PREAD, false, false, NULL, fd);
	measure("pread into huge pages", PREAD, false, true, NULL, fd);
	measure("memcpy into huge pages", COPY, false, true, src, -1);
	measure("pwrite from the file's map", PWRITE, false, false, map, -1);
	measure("sendfile, a part a thread", SENDFILE, false, false, NULL, fd);
	for (mixed_share = 0.15; mixed_share < 0.5; mixed_share += 0.1) {
		char label[64];

		snprintf(label, sizeof label, "pwrite %.2f, pread rest", mixed_share);
		measure(label, MIXED, false, false, map, fd);
	}
	measure("populate, then memcpy", POPULATE_COPY, false, false, src, -1);
	measure("fallocate, memcpy", COPY, true, false, src, -1);
	measure("fallocate, pread", PREAD, true, false, NULL, fd);
	munmap(map, SIZE);
	close(fd);
	free(src);
	return 0;
}
