/* saxpy on the program's own arrays through libcarsh (docs/api.md):
 *   cc saxpy.c $(pkg-config --cflags --libs carsh) && ./a.out FLOWMODELS_DIR/saxpy.xml [server]
 * (server: on a worker of the user's carsh server, carsh_machine_open_at) */
#include <carsh.h>
#include <math.h>
#include <stdio.h>

#define N 4096

static float x[N], y[N];

static int fail(const char *what, const char *msg)
{
	fprintf(stderr, "saxpy: %s: %s\n", what, msg);
	return 1;
}

int main(int argc, char **argv)
{
	carsh_machine *m;
	carsh_flowmodel *fm;
	int bad = 0;

	for (int i = 0; i < N; i++)
		x[i] = (float)i, y[i] = 1.0f;
	if (carsh_machine_open_at(argc > 2 ? argv[2] : "local", NULL, &m) != 0)
		return fail("machine", carsh_machine_last_error(m));
	if (carsh_flowmodel_from_file(m, argc > 1 ? argv[1] : "saxpy.xml", &fm) != 0)
		return fail("flow-model", carsh_machine_last_error(m));
	if (carsh_flowmodel_set_param(fm, "N", "4096") || carsh_flowmodel_set_param(fm, "A", "2") ||
	    carsh_flowmodel_bind_memory(fm, "x", x, sizeof(x)) ||
	    carsh_flowmodel_bind_memory(fm, "y", y, sizeof(y)) || carsh_flowmodel_fire(fm))
		return fail("fire", carsh_flowmodel_last_error(fm));
	for (int i = 0; i < N; i++) /* the C reference: y = 2x + 1 */
		bad += fabsf(y[i] - (2.0f * (float)i + 1.0f)) > 1e-3f;
	printf("saxpy: %d of %d wrong\n", bad, N);
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
	return bad != 0;
}
