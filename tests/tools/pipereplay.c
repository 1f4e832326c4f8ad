/*
 * The pipeline engine's model (engines/pipeline/pipemodel.c) replayed offline: one
 * training's measurements in, every configuration's predicted throughput out, so that
 * bench/pipeline-model.py can compare a build's model with recorded measurements without
 * running a stream (docs/pipeline.md, "Checking the model offline").
 *
 *   pipereplay MEAS.txt     prints "config,predicted,gpu_share" per configuration: the
 *                           throughput (items/s) and the GPU (or GPU-CPU) path's share of
 *                           it, in pm_enumerate's order, then "baseline,CONFIG" and
 *                           "chosen,CONFIG" (the choice for throughput, pm_choose)
 *
 * MEAS.txt holds one record per line, times in milliseconds, '#' lines ignored:
 *   shape S NC GPU GPU_OK          stages, CPU cores, 1 with a GPU, the GPU-capable stages' mask
 *   stage K CG MG GPU H2D D2H CG_IN CG_OUT MG_IN MG_OUT     Tables I and II, stage K from 0
 *   cgn N T [STAGE_0 .. STAGE_S-1] T^CG(N) and, where measured, each stage's mean time in it
 *   gpu_host U                     the share of a core the GPU's thread keeps busy
 *   beside N STAGE_0 .. STAGE_S-1  the CG experiment beside the GPU: N CPU threads, each
 *                                  stage's mean time
 *   beside_gpu T [MEDIAN ALONE]    the GPU's feeder's mean item in it, and where measured its
 *                                  median item in it and alone before it (not in the model)
 *   serial IN OUT                  the serial stages' times per item
 *   buffer B BYTES                 item buffer B's size (B from 0, in order)
 *   flow K READS WRITES            the buffers stage K reads and writes, bit b for buffer b
 *   sink MASK                      the buffer the Output stage reads, as a bit
 * Without buffer lines the moves are charged per stage (engines/pipeline/pipemove.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/pipeline/pipeconf.h"
#include "engines/pipeline/pipemodel.h"
#include "util/alloc.h"

static int bad(const char *path, unsigned line, const char *what)
{
	fprintf(stderr, "pipereplay: %s:%u: %s\n", path, line, what);
	return 2;
}

/* Fields after the keyword, as numbers (ms become seconds where ms is set). */
static int numbers(char *rest, double *v, int max, bool ms)
{
	int n = 0;
	char *end;

	for (char *tok = strtok(rest, " \t\n"); tok && n < max; tok = strtok(NULL, " \t\n")) {
		v[n] = strtod(tok, &end);
		if (*end)
			return -1;
		v[n] *= ms ? 1e-3 : 1;
		n++;
	}
	return n;
}

static int put_stage(struct pm_meas *m, const double *v, int n)
{
	unsigned k = (unsigned)(v[0] * 1e3 + 0.5);
	struct pm_stage *st;

	if (n != 10 || k >= m->sh.s)
		return -1;
	st = &m->st[k];
	st->t_cg = m->t_cgn_stage[1][k] = v[1];
	st->t_mg = v[2];
	st->t_g = v[3];
	st->h2d_g = v[4];
	st->d2h_g = v[5];
	st->h2d_cg = v[6];
	st->d2h_cg = v[7];
	st->h2d_mg = v[8];
	st->d2h_mg = v[9];
	return 0;
}

static int put_cgn(struct pm_meas *m, const double *v, int n)
{
	unsigned t = (unsigned)(v[0] * 1e3 + 0.5);

	if (n < 2 || t < 1 || t > pm_max_threads(&m->sh) || (n != 2 && n != 2 + (int)m->sh.s))
		return -1;
	m->t_cgn[t] = v[1];
	for (int k = 2; k < n; k++)
		m->t_cgn_stage[t][k - 2] = v[k];
	return 0;
}

static int put_beside(struct pm_meas *m, const double *v, int n)
{
	unsigned t = (unsigned)(v[0] * 1e3 + 0.5);

	if (n != 1 + (int)m->sh.s || t < 1 || t > m->sh.nc)
		return -1;
	m->beside_n = t;
	for (int k = 1; k < n; k++)
		m->t_beside_stage[k - 1] = v[k];
	return 0;
}

/* The buffer, flow and sink records: sizes in bytes and masks of buffers, not times. */
static int put_flow(struct pm_meas *m, const char *key, char *rest)
{
	struct pm_flow *f = &m->flow;
	unsigned long long v[3];
	int n = 0;
	char *end;

	for (char *tok = strtok(rest, " \t\n"); tok && n < 3; tok = strtok(NULL, " \t\n")) {
		v[n++] = strtoull(tok, &end, 10);
		if (*end)
			return -1;
	}
	if (strcmp(key, "buffer") == 0 && n == 2 && v[0] == f->nb && v[0] < PIPE_MAX_BUFFERS) {
		f->bytes[f->nb++] = (double)v[1];
		return 0;
	}
	if (strcmp(key, "flow") == 0 && n == 3 && v[0] < m->sh.s) {
		f->rd[v[0]] = v[1];
		f->wr[v[0]] = v[2];
		return 0;
	}
	if (strcmp(key, "sink") == 0 && n == 1) {
		f->sink = v[0];
		return 0;
	}
	return -1;
}

static int record(struct pm_meas *m, char *line)
{
	double v[2 + PIPE_MAX_STAGES + 1];
	char *key = strtok(line, " \t\n"), *rest = key ? key + strlen(key) + 1 : NULL;
	int n;

	if (!key || key[0] == '#')
		return 0;
	if (strcmp(key, "shape") == 0) {
		if (numbers(rest, v, 4, false) != 4 || v[0] < 1 || v[0] > PIPE_MAX_STAGES ||
		    v[1] < 1 || v[1] > PM_MAX_CORES)
			return -1;
		m->sh = (struct pm_shape){(unsigned)v[0], (unsigned)v[1], v[2] != 0,
		                          (uint32_t)v[3]};
		return 0;
	}
	if (m->sh.s == 0)
		return -1; /* the shape comes first */
	if (strcmp(key, "buffer") == 0 || strcmp(key, "flow") == 0 || strcmp(key, "sink") == 0)
		return put_flow(m, key, rest);
	n = numbers(rest, v, (int)(sizeof(v) / sizeof(v[0])), true);
	if (n < 0)
		return -1;
	if (strcmp(key, "stage") == 0)
		return put_stage(m, v, n);
	if (strcmp(key, "cgn") == 0)
		return put_cgn(m, v, n);
	if (strcmp(key, "beside") == 0)
		return put_beside(m, v, n);
	if (strcmp(key, "beside_gpu") == 0 && (n == 1 || n == 3)) {
		m->t_gpu_fed = v[0];
		m->t_gpu_fed_median = n == 3 ? v[1] : 0;
		m->t_gpu_alone = n == 3 ? v[2] : 0;
		return 0;
	}
	if (strcmp(key, "gpu_host") == 0 && n == 1) {
		m->gpu_host = v[0] * 1e3;
		return 0;
	}
	if (strcmp(key, "serial") == 0 && n == 2) {
		m->t_in = v[0];
		m->t_out = v[1];
		return 0;
	}
	return -1;
}

static int predict_all(const struct pm_meas *m)
{
	struct pm_config *c, base = pm_baseline(m);
	size_t n = pm_enumerate(&m->sh, &c), pick;
	struct pm_pred *p = xcalloc(n, sizeof(*p));
	char name[PM_NAME_MAX];

	for (size_t i = 0; i < n; i++) {
		pm_predict(m, &c[i], &p[i]);
		printf("%s,%.9g,%.9g\n", pm_config_name(&m->sh, &c[i], name, sizeof(name)),
		       p[i].lambda, p[i].p_gpu);
	}
	printf("baseline,%s\n", pm_config_name(&m->sh, &base, name, sizeof(name)));
	pick = pm_choose(c, p, n, PM_THROUGHPUT, PM_CHOICE_TOLERANCE, m->sh.nc);
	printf("chosen,%s\n", pm_config_name(&m->sh, &c[pick], name, sizeof(name)));
	free(p);
	free(c);
	return 0;
}

int main(int argc, char **argv)
{
	static struct pm_meas m;
	char line[4096];
	unsigned no = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: pipereplay MEAS.txt\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		no++;
		if (record(&m, line) != 0) {
			fclose(f);
			return bad(argv[1], no,
			           "not a record of the format (see the header of "
			           "tests/tools/pipereplay.c)");
		}
	}
	fclose(f);
	if (m.sh.s == 0)
		return bad(argv[1], no, "no shape line");
	return predict_all(&m);
}
