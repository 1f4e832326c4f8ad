/* bench/api.sh's measured side: saxpy fired FIRES times on the program's own arrays through
 * libcarsh's embedding API on a local machine (mode "api") or on a machine of the user's
 * carsh server (mode "server": carsh_machine_open_at("server"), CARSH_EXE naming the carsh),
 * or the same run through the session API, one carsh_run_string of `run saxpy.xml
 * x=buffer:X y=buffer:Y` per fire on the thread executor (mode "session"); or fired on a
 * local machine without waiting, one carsh_flowmodel_wait at the end (mode "queue"). The
 * first fire (the build) is not timed.
 *   api_loop api|queue|server|session SAXPY.xml N FIRES  ->  prints the loop's milliseconds */
#include <carsh.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int api(const char *where, bool queue, const char *fm_path, size_t n, long fires)
{
	size_t bytes = n * sizeof(float);
	carsh_machine *m;
	carsh_flowmodel *fm = NULL;
	char count[32];
	float *x, *y;
	double t0 = 0;
	int rc;

	if (posix_memalign((void **)&x, 4096, bytes) || posix_memalign((void **)&y, 4096, bytes))
		return 1;
	for (size_t i = 0; i < n; i++)
		x[i] = (float)(i % 8) * 0.25f, y[i] = 1.0f;
	snprintf(count, sizeof(count), "%zu", n);
	rc = carsh_machine_open_at(where, NULL, &m);
	if (rc == 0)
		rc = carsh_flowmodel_from_file(m, fm_path, &fm);
	if (rc) {
		fprintf(stderr, "api_loop: %s\n", carsh_machine_last_error(m));
		return 1;
	}
	rc = carsh_flowmodel_set_param(fm, "N", count) || carsh_flowmodel_set_param(fm, "A", "1") ||
	     carsh_flowmodel_bind_memory(fm, "x", x, bytes) ||
	     carsh_flowmodel_bind_memory(fm, "y", y, bytes);
	for (long f = -1; f < fires && rc == 0; f++) {
		if (f == 0)
			t0 = now_ms();
		rc = queue && f >= 0 ? carsh_flowmodel_fire_async(fm) : carsh_flowmodel_fire(fm);
	}
	if (rc == 0 && queue)
		rc = carsh_flowmodel_wait(fm);
	if (rc) {
		fprintf(stderr, "api_loop: %s\n", carsh_flowmodel_last_error(fm));
		return 1;
	}
	struct carsh_stats st;
	carsh_flowmodel_stats(fm, &st);
	printf("%.3f\t%s\n", now_ms() - t0, st.device);
	for (size_t i = 0; i < n; i++)
		if (y[i] != 1.0f + (float)(fires + 1) * x[i]) {
			fprintf(stderr, "api_loop: y[%zu] = %g\n", i, (double)y[i]);
			return 1;
		}
	carsh_flowmodel_free(fm);
	carsh_machine_free(m);
	return 0;
}

/* Y after the fires, dumped by the session itself: every element 1 + (fires + 1) / 4. */
static int check_session(struct carsh_session *s, size_t n, long fires)
{
	char path[] = "/tmp/api_loop.XXXXXX", cmd[128];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	size_t good = 0;
	float v;

	snprintf(cmd, sizeof(cmd), "virtbuf dump Y > %s", path);
	if (f && carsh_run_string(s, cmd, NULL, 1) == 0)
		while (fscanf(f, "%f", &v) == 1)
			good += v == 1.0f + (float)(fires + 1) * 0.25f;
	if (f)
		fclose(f);
	unlink(path);
	if (good == n)
		return 0;
	fprintf(stderr, "api_loop: session: %zu of %zu elements of Y right\n", good, n);
	return 1;
}

static int session(const char *fm_path, size_t n, long fires)
{
	struct carsh_options opt = {.thread_exec = true};
	struct carsh_session *s;

	/* Another carsh starting removes the virtual buffers of masters whose name lacks
	 * "carsh" (data/vbuf.c, master_alive: a pid reused by another program); see
	 * docs/api.md, "Sessions in another program". */
	prctl(PR_SET_NAME, "carsh-api-loop");
	s = carsh_session_new(&opt);
	char setup[256], line[4096];
	double t0 = 0;
	int rc;

	snprintf(setup, sizeof(setup),
	         "virtbuf create X float %zu; virtbuf create Y float %zu; "
	         "virtbuf fill X --value 0.25; virtbuf fill Y --value 1",
	         n, n);
	snprintf(line, sizeof(line), "run %s x=buffer:X y=buffer:Y N=%zu A=1", fm_path, n);
	rc = carsh_run_string(s, setup, NULL, 1);
	for (long f = -1; f < fires && rc == 0; f++) {
		if (f == 0)
			t0 = now_ms();
		rc = carsh_run_string(s, line, NULL, 1);
	}
	if (rc == 0)
		printf("%.3f\n", now_ms() - t0);
	if (rc == 0)
		rc = check_session(s, n, fires);
	return carsh_session_end(s) || rc;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: api_loop api|queue|server|session SAXPY.xml N FIRES\n");
		return 2;
	}
	if (strcmp(argv[1], "session") == 0)
		return session(argv[2], strtoul(argv[3], NULL, 10), atol(argv[4]));
	return api(strcmp(argv[1], "server") == 0 ? "server" : "local",
	           strcmp(argv[1], "queue") == 0, argv[2], strtoul(argv[3], NULL, 10),
	           atol(argv[4]));
}
