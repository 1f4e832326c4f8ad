/* A 3-stage meta-pipeline (004 §4.2.3) built in code through libcarsh (docs/api.md):
 *   in --> scale (x2) --> offset (+1) --> square --> out
 * cc pipeline.c $(pkg-config --cflags --libs carsh) && ./a.out */
#include <carsh.h>
#include <stdio.h>

#define N 1024

/* One element-wise flow-model: OUT[i] = EXPR over IN[i], written inline. */
static const char *stage_xml(char *buf, size_t n, const char *kernel, const char *expr)
{
	snprintf(buf, n,
	         "<FlowModel name=\"%s\"><Param name=\"N\" value=\"%d\"/>"
	         "<Program><Source>__kernel void %s(__global const float *in, __global float *out)"
	         "{ size_t i = get_global_id(0); float v = in[i]; out[i] = %s; }</Source>"
	         "<Kernel name=\"%s\"/></Program><WorkSize global=\"N\"/>"
	         "<Arguments><Input name=\"in\" type=\"float\" count=\"N\"/>"
	         "<Output name=\"out\" type=\"float\" count=\"N\"/></Arguments></FlowModel>",
	         kernel, N, kernel, expr, kernel);
	return buf;
}

int main(void)
{
	static const char *const names[3] = {"scale", "offset", "square"};
	static const char *const exprs[3] = {"2.0f * v", "v + 1.0f", "v * v"};
	static float in[N], out[N];
	carsh_machine *m;
	carsh_pipeline *p;
	carsh_flowmodel *fm[3];
	char xml[1024];
	int entrance, exit_port, bad = 0, rc = 0;

	if (carsh_machine_open(NULL, &m) != 0) {
		fprintf(stderr, "pipeline: %s\n", carsh_machine_last_error(m));
		return 1;
	}
	rc = carsh_pipeline_new(m, &p);
	for (int s = 0; s < 3 && rc == 0; s++) {
		rc = carsh_flowmodel_from_string(m, stage_xml(xml, sizeof(xml), names[s], exprs[s]),
		                                 names[s], &fm[s]);
		if (rc == 0) {
			rc = carsh_pipeline_add(p, names[s], fm[s]);
			carsh_flowmodel_free(fm[s]); /* the pipeline holds it now */
		}
	}
	if (rc != 0) {
		fprintf(stderr, "pipeline: %s%s\n", carsh_machine_last_error(m),
		        carsh_pipeline_last_error(p));
		return 1;
	}
	for (int i = 0; i < N; i++)
		in[i] = (float)(i % 100);
	if (carsh_pipeline_connect(p, "scale", "out", "offset", "in", CARSH_PORT_INTERMEDIATE, 1,
	                           NULL) ||
	    carsh_pipeline_connect(p, "offset", "out", "square", "in", CARSH_PORT_INTERMEDIATE, 1,
	                           NULL) ||
	    carsh_pipeline_entrance(p, "scale", "in", 1, &entrance) ||
	    carsh_pipeline_exit(p, "square", "out", 1, &exit_port) || carsh_pipeline_implement(p) ||
	    carsh_pipeline_send(p, entrance, in, sizeof(in)) || carsh_pipeline_run(p, 1) ||
	    carsh_pipeline_receive(p, exit_port, out, sizeof(out), NULL)) {
		fprintf(stderr, "pipeline: %s\n", carsh_pipeline_last_error(p));
		return 1;
	}
	for (int i = 0; i < N; i++) { /* the C reference */
		float v = 2.0f * in[i] + 1.0f;

		bad += out[i] != v * v;
	}
	printf("pipeline: %d of %d wrong\n", bad, N);
	carsh_pipeline_free(p);
	carsh_machine_free(m);
	return bad != 0;
}
