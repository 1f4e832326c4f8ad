/*
 * The reference of bench/mpi.sh: BYTES bytes sent back and forth between ranks 0 and 1
 * with bare MPI_Send/MPI_Recv, COUNT one-way messages after one untimed round; rank 0 prints
 * the milliseconds per one-way message. The buffer is touched first, as a virtual buffer's
 * pages are.
 *
 * The buffer is malloc's, or with "shm" a POSIX shared-memory object's, as a virtual
 * buffer is (docs/scale-out.md "Where the time goes"): where transparent huge pages are
 * "always", malloc's 64 MiB gets 2 MiB pages and a shared-memory object (tmpfs, whose huge
 * pages are off by default) 4 KiB ones, and Open MPI's single copy between processes (CMA)
 * took half the time with the larger pages on the development VM.
 *
 *   mpirun -np 2 bench/mpi_bare BYTES COUNT [shm]
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void check(int rc, const char *call)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "mpi_bare: %s failed (%d)\n", call, rc);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* One message from `from` to the other rank, in pieces of at most 1 GiB (an int count). */
static void one_way(char *buf, size_t bytes, int rank, int from)
{
	const size_t piece = (size_t)1 << 30;

	for (size_t at = 0; at < bytes; at += piece) {
		int len = (int)(bytes - at < piece ? bytes - at : piece);

		if (rank == from)
			check(MPI_Send(buf + at, len, MPI_BYTE, 1 - from, 1, MPI_COMM_WORLD),
			      "MPI_Send");
		else
			check(MPI_Recv(buf + at, len, MPI_BYTE, from, 1, MPI_COMM_WORLD,
			               MPI_STATUS_IGNORE),
			      "MPI_Recv");
	}
}

/* A shared-memory object of this rank's, mapped and already unlinked (nothing is left
 * behind). */
static char *shm_buffer(size_t bytes, int rank)
{
	char name[64];
	char *p;
	int fd;

	snprintf(name, sizeof(name), "/mpi_bare.%d.%d", (int)getpid(), rank);
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return NULL;
	shm_unlink(name);
	if (ftruncate(fd, (off_t)bytes) != 0 || posix_fallocate(fd, 0, (off_t)bytes) != 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
	size_t bytes;
	long count;
	int rank, size;
	double t0;
	char *buf;
	bool shm;

	check(MPI_Init(&argc, &argv), "MPI_Init");
	check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
	check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
	shm = argc == 4 && strcmp(argv[3], "shm") == 0;
	if (argc < 3 || argc > 3 + shm || size != 2) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 mpi_bare BYTES COUNT [shm]\n");
		MPI_Finalize();
		return 2;
	}
	bytes = strtoull(argv[1], NULL, 10);
	count = strtol(argv[2], NULL, 10);
	buf = shm ? shm_buffer(bytes ? bytes : 1, rank) : malloc(bytes ? bytes : 1);
	if (!buf)
		check(MPI_ERR_NO_MEM, "malloc");
	memset(buf, rank + 1, bytes);
	one_way(buf, bytes, rank, 0);
	one_way(buf, bytes, rank, 1);
	check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	t0 = MPI_Wtime();
	for (long i = 0; i < count; i++)
		one_way(buf, bytes, rank, (int)(i % 2));
	if (rank == 0)
		printf("%.3f\n", (MPI_Wtime() - t0) * 1e3 / (double)(count ? count : 1));
	if (shm)
		munmap(buf, bytes ? bytes : 1);
	else
		free(buf);
	check(MPI_Finalize(), "MPI_Finalize");
	return 0;
}
