/* CaravelaMPI's calls on two ranks (tests/api/mpi.sh): streams bound to carsh_buffers (the
 * staged path), carsh_mpi_test driving a request to its end, Calculate-Send, and the
 * refusals with their codes and messages. Prints "check_mpi: N failed" on rank 0; the
 * expected values are computed here in C. Usage: mpirun -np 2 check_mpi FLOWMODELS_DIR */
#include <carsh.h>
#include <stdio.h>
#include <string.h>

#define N 256

static int failed;

static void check(int rank, int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "check_mpi: rank %d: %s (last error: %s)\n", rank, what,
		        carsh_mpi_last_error());
		failed++;
	}
}

/* The message ends with msg (a flow-model's path comes first). */
static void check_error(int rank, int rc, int want, const char *msg)
{
	const char *got = carsh_mpi_last_error();
	size_t n = strlen(got), k = strlen(msg);
	char what[512];

	snprintf(what, sizeof(what), "expected %d '%s', got %d '%s'", want, msg, rc,
	         carsh_mpi_last_error());
	check(rank, rc == want && n >= k && strcmp(got + n - k, msg) == 0, what);
}

static carsh_flowmodel *scale(carsh_machine *m, const char *dir)
{
	carsh_flowmodel *fm = NULL;
	char path[4096];

	snprintf(path, sizeof(path), "%s/scale.xml", dir);
	if (carsh_flowmodel_from_file(m, path, &fm) || carsh_flowmodel_set_param(fm, "N", "256") ||
	    carsh_flowmodel_set_param(fm, "A", "3"))
		return NULL;
	return fm;
}

/* Rank 1: y = 3x on buffers, x received and y sent through the staged copies; a test loop. */
static void rank1(carsh_machine *m, carsh_flowmodel *fm)
{
	struct carsh_message in = {.stream = "x", .rank = 0, .tag = 7};
	struct carsh_message out = {.stream = "y", .rank = 0, .tag = 8};
	carsh_buffer *bx, *by;
	carsh_request *req;
	int done = 0, rc = 0;

	carsh_buffer_new(m, N * sizeof(float), &bx);
	carsh_buffer_new(m, N * sizeof(float), &by);
	carsh_flowmodel_bind_buffer(fm, "x", bx);
	carsh_flowmodel_bind_buffer(fm, "y", by);
	check(1, carsh_mpi_irecvsend(fm, &in, 1, &out, 1, &req) == 0, "irecvsend on buffers");
	while (!done && rc == 0)
		rc = carsh_mpi_test(&req, &done);
	check(1, rc == 0 && req == NULL, "carsh_mpi_test to the end frees the request");
	carsh_buffer_free(bx);
	carsh_buffer_free(by);
}

/* Rank 0: x = i sent as the caller's bytes; 3x received; then y = 3x computed here and sent
 * (Calculate-Send) for rank 1 to check nothing: it was already checked above. */
static void rank0(carsh_flowmodel *fm)
{
	static float x[N], y[N], got[N];
	struct carsh_message to1 = {.data = x, .bytes = sizeof(x), .rank = 1, .tag = 7};
	struct carsh_message from1 = {.data = got, .bytes = sizeof(got), .rank = 1, .tag = 8};
	struct carsh_message bad;
	carsh_request *req;
	int bad_values = 0;

	for (int i = 0; i < N; i++)
		x[i] = (float)i;
	check(0, carsh_mpi_irecv(NULL, &from1, 1, &req) == 0, "irecv of the caller's bytes");
	check_error(0, carsh_mpi_finalize(), CARSH_E_STATE,
	            "carsh_mpi_finalize: requests are pending: carsh_mpi_wait for them first");
	check(0, carsh_mpi_send(NULL, &to1, 1) == 0, "send of the caller's bytes");
	check(0, carsh_mpi_wait(&req) == 0 && req == NULL, "wait");
	for (int i = 0; i < N; i++)
		bad_values += got[i] != 3.0f * (float)i;
	check(0, bad_values == 0, "rank 1's y = 3x through buffers");

	carsh_flowmodel_bind_memory(fm, "x", x, sizeof(x));
	carsh_flowmodel_bind_memory(fm, "y", y, sizeof(y));
	bad = (struct carsh_message){.stream = "y", .rank = 2};
	check_error(0, carsh_mpi_send(fm, &bad, 1), CARSH_E_ARG,
	            "a message to or from rank 2: the ranks are 0 to 1");
	bad = (struct carsh_message){.stream = "y", .rank = 1, .tag = 40000};
	check_error(0, carsh_mpi_send(fm, &bad, 1), CARSH_E_ARG,
	            "a message tagged 40000: tags are 0 to 32767");
	bad = (struct carsh_message){.stream = "y", .rank = 1};
	check_error(0, carsh_mpi_recv(fm, &bad, 1), CARSH_E_ARG,
	            "scale.xml: stream 'y' is an Output: a message is received into an Input or "
	            "InOut");
	check_error(0, carsh_mpi_send(NULL, &bad, 1), CARSH_E_ARG,
	            "a message names stream 'y', but the request has no flow-model");
	bad = (struct carsh_message){.stream = "z", .rank = 1};
	check_error(0, carsh_mpi_send(fm, &bad, 1), CARSH_E_NAME,
	            "scale.xml: no stream 'z' (streams: x y)");
	check(0, carsh_mpi_isend(fm, NULL, 0, &req) == 0, "isend with no message: a fire");
	check_error(0, carsh_mpi_isend(fm, NULL, 0, &(carsh_request *){NULL}), CARSH_E_STATE,
	            "scale.xml: a request on it is pending: carsh_mpi_wait for it first");
	check(0, carsh_mpi_wait(&req) == 0 && y[5] == 15.0f, "Calculate-Send fired: y = 3x");
	printf("check_mpi: %d failed\n", failed);
}

int main(int argc, char **argv)
{
	carsh_machine *m;
	carsh_flowmodel *fm;
	int rank, size;

	if (carsh_mpi_init(&rank, &size) || size != 2) {
		fprintf(stderr, "check_mpi: needs 2 ranks: %s\n", carsh_mpi_last_error());
		return 2;
	}
	carsh_machine_open(NULL, &m);
	if (!(fm = scale(m, argc > 1 ? argv[1] : "."))) {
		fprintf(stderr, "check_mpi: scale.xml: %s\n", carsh_machine_last_error(m));
		return 1;
	}
	if (rank == 0)
		rank0(fm);
	else
		rank1(m, fm);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
	check(rank, carsh_mpi_finalize() == 0, "finalize");
	return failed != 0;
}
