/* CaravelaMPI ping-pong (carsh.h, docs/api.md; 004 §4.1): rank 0 sends v = 0, 1, ..., N-1
 * to rank 1; rank 1 doubles what it receives (flowmodels/scale.xml, A=2) and sends it back;
 * rank 0 adds 1 (flowmodels/vadd.xml with b = 1) and sends it on; after ROUNDS rounds rank 0
 * holds v = 2^ROUNDS (i + 1) - 1, which it checks. Each side is one Recv-Calculate-Send a
 * round: rank 1's asynchronous (irecvsend, then wait), rank 0's synchronous.
 *   cc pingpong.c $(pkg-config --cflags --libs carsh)
 *   mpirun -np 2 ./a.out FLOWMODELS_DIR */
#include <carsh.h>
#include <stdio.h>

#define N      1024
#define ROUNDS 10

static float v[N], w[N], one[N];

static int fail(int rank, const char *what, const char *msg)
{
	fprintf(stderr, "pingpong: rank %d: %s: %s\n", rank, what, msg);
	return 1;
}

static int open_fm(carsh_machine *m, const char *dir, const char *file, carsh_flowmodel **fm)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return carsh_flowmodel_from_file(m, path, fm) ||
	       carsh_flowmodel_set_param(*fm, "N", "1024");
}

/* Rank 1: receive v into x, y = 2x, send y back; ROUNDS times. */
static int doubler(carsh_machine *m, const char *dir)
{
	struct carsh_message in = {.stream = "x", .rank = 0}, out = {.stream = "y", .rank = 0};
	carsh_flowmodel *fm;
	carsh_request *req;

	if (open_fm(m, dir, "scale.xml", &fm) || carsh_flowmodel_set_param(fm, "A", "2") ||
	    carsh_flowmodel_bind_memory(fm, "x", v, sizeof(v)) ||
	    carsh_flowmodel_bind_memory(fm, "y", w, sizeof(w)))
		return fail(1, "scale.xml",
		            fm ? carsh_flowmodel_last_error(fm) : carsh_machine_last_error(m));
	for (int r = 0; r < ROUNDS; r++)
		if (carsh_mpi_irecvsend(fm, &in, 1, &out, 1, &req) || carsh_mpi_wait(&req))
			return fail(1, "irecvsend", carsh_mpi_last_error());
	carsh_flowmodel_free(fm);
	return 0;
}

/* Rank 0: send v, then each round receive into a, c = a + 1, send c (the last round keeps
 * it: Recv-Calculate). */
static int adder(carsh_machine *m, const char *dir)
{
	struct carsh_message first = {.data = v, .bytes = sizeof(v), .rank = 1};
	struct carsh_message in = {.stream = "a", .rank = 1}, out = {.stream = "c", .rank = 1};
	carsh_flowmodel *fm;
	int bad = 0, rc;

	for (int i = 0; i < N; i++)
		v[i] = (float)i, one[i] = 1.0f;
	if (open_fm(m, dir, "vadd.xml", &fm) ||
	    carsh_flowmodel_bind_memory(fm, "a", w, sizeof(w)) ||
	    carsh_flowmodel_bind_memory(fm, "b", one, sizeof(one)) ||
	    carsh_flowmodel_bind_memory(fm, "c", v, sizeof(v)))
		return fail(0, "vadd.xml",
		            fm ? carsh_flowmodel_last_error(fm) : carsh_machine_last_error(m));
	if (carsh_mpi_send(NULL, &first, 1))
		return fail(0, "send", carsh_mpi_last_error());
	for (int r = 0; r < ROUNDS; r++) {
		rc = r < ROUNDS - 1 ? carsh_mpi_recvsend(fm, &in, 1, &out, 1)
		                    : carsh_mpi_recv(fm, &in, 1);
		if (rc)
			return fail(0, "recvsend", carsh_mpi_last_error());
	}
	for (int i = 0; i < N; i++) /* the closed form: v -> 2v + 1, ROUNDS times */
		bad += v[i] != (float)((1 << ROUNDS) * (i + 1) - 1);
	printf("pingpong: %d rounds, %d of %d wrong\n", ROUNDS, bad, N);
	carsh_flowmodel_free(fm);
	return bad != 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	carsh_machine *m;
	int rank, size, rc = 0;

	if (carsh_mpi_init(&rank, &size))
		return fail(-1, "carsh_mpi_init", carsh_mpi_last_error());
	if (size < 2) {
		fprintf(stderr, "pingpong: needs 2 ranks (mpirun -np 2), not %d\n", size);
		carsh_mpi_finalize();
		return 2;
	}
	if (carsh_machine_open(NULL, &m))
		rc = fail(rank, "machine", carsh_machine_last_error(m));
	else if (rank < 2)
		rc = rank == 0 ? adder(m, dir) : doubler(m, dir);
	carsh_machine_free(m);
	if (carsh_mpi_finalize())
		rc = fail(rank, "carsh_mpi_finalize", carsh_mpi_last_error());
	return rc;
}
