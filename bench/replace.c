/*
 * What replacing a 16 MiB output costs, call after call, by the ways a writer can do it: a
 * temporary file renamed over the old one (ext4 then writes the new file's blocks out at
 * once, auto_da_alloc, and frees the old file's), and the two exchanged (renameat2's
 * RENAME_EXCHANGE) and the old one unlinked, which util/atomicfile.c does. The reference: a
 * new file of the same size. It chose how carsh replaces files (docs/formats.md).
 *
 *   cc -O2 -o replace bench/replace.c && ./replace DIR     (DIR on the file system to judge)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SIZE  ((size_t)16 << 20)
#define CALLS 8

static char *data;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void write_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	for (size_t done = 0; fd >= 0 && done < SIZE;) {
		ssize_t n = write(fd, data + done, SIZE - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	if (fd < 0 || close(fd) != 0) {
		perror(path);
		exit(1);
	}
}

enum way { NEW, RENAME, EXCHANGE };

/* One call's output in place by the way asked; its time. */
static double one(enum way way, const char *out, const char *tmp)
{
	double t0;

	if (way == NEW)
		unlink(out);
	t0 = now_ms();
	write_file(way == NEW ? out : tmp);
	if (way == RENAME && rename(tmp, out) != 0)
		perror("rename");
	if (way == EXCHANGE) {
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_EXCHANGE) != 0)
			perror("renameat2");
		unlink(tmp);
	}
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {"a new file", "renamed over", "exchanged, unlinked"};
	const char *dir = argc > 1 ? argv[1] : ".";
	char out[4096], tmp[4096];

	snprintf(out, sizeof out, "%s/out.pgm", dir);
	snprintf(tmp, sizeof tmp, "%s/out.pgm.tmp", dir);
	data = malloc(SIZE);
	if (!data)
		return 1;
	memset(data, 7, SIZE);
	for (int way = NEW; way <= EXCHANGE; way++) {
		printf("%-20s", names[way]);
		for (int c = 0; c < CALLS; c++)
			printf(" %6.2f", one((enum way)way, out, tmp));
		printf(" ms\n");
	}
	unlink(out);
	free(data);
	return 0;
}
