/*
 * The embedding API's meta-pipelines (004 §4.2.3-4.2.4; carsh.h, docs/api.md). The stages
 * and connections are kept as a pipeline graph (model/graph.h), so that implementing one
 * checks it as `graph check` checks a <CarshGraph>: 004 §4.2.1's conditions
 * (graph_validate) and Algorithm 1 (deadlock_find: every cycle needs an INITONCE
 * connection). Each stage's streams are buffers of the pipeline (004 Figure 16: an output
 * and the input it feeds are two buffers, the data copied from one to the other on the
 * device), so that nothing crosses to the host but what is sent and received.
 */
#include <stdlib.h>
#include <string.h>

#include "api/api-int.h"
#include "graph/deadlock.h"
#include "graph/validate.h"
#include "model/graph.h"
#include "util/alloc.h"

enum link_what { LINK_EDGE, LINK_ENTRANCE, LINK_EXIT };

/* A connection or a port; its index is its port number. */
struct link {
	enum link_what what;
	enum carsh_port_kind kind;
	size_t from, to; /* stages: an entrance has only to, an exit only from */
	size_t out_arg, in_arg;
	long limit;
	size_t bytes;       /* what crosses: the smaller of the two streams */
	carsh_buffer *exit; /* an exit's copy of the output, taken after a limit-th run */
	bool sent;          /* an entrance or INITONCE port: data waiting to be taken */
	bool fresh;         /* an exit: taken since the last receive */
};

struct stage {
	char *name;
	carsh_flowmodel *fm;
	long runs;
	carsh_buffer **bufs; /* per argument, the pipeline's buffer of a connected stream */
};

struct carsh_pipeline {
	pthread_mutex_t lock;
	carsh_machine *m;
	struct graph *g; /* node i is stage i */
	struct stage *stages;
	size_t nstages;
	struct link *links;
	size_t nlinks;
	size_t *order; /* the stages, producers before consumers (INITONCE edges left out) */
	bool implemented;
	long iterations;
	struct cs_err err;
};

int carsh_pipeline_new(carsh_machine *m, carsh_pipeline **out)
{
	carsh_pipeline *p;
	int rc;

	if (!m || !out)
		return m ? machine_failf(m, CARSH_E_ARG, "carsh_pipeline_new: out is NULL")
		         : CARSH_E_ARG;
	*out = NULL;
	pthread_mutex_lock(&m->lock);
	rc = m->ops->local_only(&m->err, "carsh_pipeline_new");
	pthread_mutex_unlock(&m->lock);
	if (rc)
		return rc;
	p = xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	p->m = m;
	machine_ref(m);
	p->g = graph_new("pipeline");
	free(p->g->file);
	p->g->file = xstrdup("pipeline");
	*out = p;
	return 0;
}

const char *carsh_pipeline_last_error(const carsh_pipeline *p)
{
	return p ? p->err.msg : "no pipeline (NULL)";
}

void carsh_pipeline_free(carsh_pipeline *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstages; i++) {
		struct stage *s = &p->stages[i];

		for (size_t a = 0; s->bufs && a < s->fm->fm->nargs; a++)
			carsh_buffer_free(s->bufs[a]);
		free(s->bufs);
		pthread_mutex_lock(&s->fm->lock);
		s->fm->in_pipeline = false;
		pthread_mutex_unlock(&s->fm->lock);
		carsh_flowmodel_free(s->fm);
		free(s->name);
	}
	for (size_t i = 0; i < p->nlinks; i++)
		carsh_buffer_free(p->links[i].exit);
	free(p->stages);
	free(p->links);
	free(p->order);
	graph_free(p->g);
	pthread_mutex_destroy(&p->lock);
	carsh_machine_free(p->m);
	free(p);
}

/* ---- building ---- */

static int not_implemented(carsh_pipeline *p, const char *what)
{
	if (!p->implemented)
		return 0;
	return api_fail(&p->err, CARSH_E_STATE, "%s: the pipeline is implemented already", what);
}

int carsh_pipeline_add(carsh_pipeline *p, const char *name, carsh_flowmodel *fm)
{
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = not_implemented(p, "carsh_pipeline_add");
	if (rc == 0 && (!name || !fm))
		rc = api_fail(&p->err, CARSH_E_ARG, "carsh_pipeline_add: %s is NULL",
		              name ? "the flow-model" : "the name");
	else if (rc == 0 && !graph_name_valid(name))
		rc = api_fail(
		        &p->err, CARSH_E_ARG,
		        "carsh_pipeline_add: stage name '%s': letters, digits, '_' and '-' only",
		        name);
	else if (rc == 0 && graph_find_node(p->g, name) >= 0)
		rc = api_fail(&p->err, CARSH_E_ARG,
		              "carsh_pipeline_add: a stage '%s' exists already", name);
	else if (rc == 0 && fm->m != p->m)
		rc = api_fail(&p->err, CARSH_E_ARG,
		              "carsh_pipeline_add: stage '%s': the flow-model is another machine's",
		              name);
	if (rc == 0) {
		p->stages = xrealloc(p->stages, (p->nstages + 1) * sizeof(*p->stages));
		p->stages[p->nstages++] = (struct stage){.name = xstrdup(name), .fm = fm};
		flowmodel_ref(fm);
		graph_add_node(p->g, name, NULL);
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static int find_stage(carsh_pipeline *p, const char *name, size_t *i)
{
	long n = name ? graph_find_node(p->g, name) : -1;

	if (n < 0)
		return api_fail(&p->err, CARSH_E_NAME, "pipeline: no stage '%s'",
		                name ? name : "(NULL)");
	*i = (size_t)n;
	return 0;
}

/* The stream of a stage, of a kind that can be read (input) or written (!input). */
static int find_stream(carsh_pipeline *p, size_t st, const char *stream, bool input, size_t *arg)
{
	carsh_flowmodel *fm = p->stages[st].fm;
	enum arg_kind k;
	int rc;

	pthread_mutex_lock(&fm->lock);
	rc = fm_stream_locked(fm, stream, arg, &p->err);
	pthread_mutex_unlock(&fm->lock);
	if (rc)
		return err_prefix(&p->err, "pipeline: stage '%s': ", p->stages[st].name), rc;
	k = fm->fm->args[*arg].kind;
	if (input ? arg_is_read(k) : arg_is_written(k))
		return 0;
	return api_fail(&p->err, CARSH_E_NAME, "pipeline: stage '%s': stream '%s' is an %s, not %s",
	                p->stages[st].name, stream, arg_kind_name(k),
	                input ? "an input (Input or InOut)" : "an output (Output or InOut)");
}

/* An input may be fed once: by one connection or one entrance. */
static int input_free(carsh_pipeline *p, size_t st, size_t arg)
{
	for (size_t i = 0; i < p->nlinks; i++)
		if (p->links[i].what != LINK_EXIT && p->links[i].to == st &&
		    p->links[i].in_arg == arg)
			return api_fail(&p->err, CARSH_E_ARG,
			                "pipeline: stage '%s': input '%s' is fed already",
			                p->stages[st].name, p->stages[st].fm->fm->args[arg].name);
	return 0;
}

/* A connected or port stream is the pipeline's buffer: one the caller bound would be
 * replaced at implement without a word (its memory never written, its data never sent), so
 * it is refused. A buffer this pipeline bound at an implement that failed later is its own. */
static int caller_bound(carsh_pipeline *p, size_t st, size_t arg)
{
	const struct stage *s = &p->stages[st];
	carsh_flowmodel *fm = s->fm;
	enum fm_bind how;
	bool ours;

	pthread_mutex_lock(&fm->lock);
	how = fm->streams[arg].how;
	ours = how == FM_BUFFER && s->bufs && s->bufs[arg] && fm->streams[arg].buf == s->bufs[arg];
	pthread_mutex_unlock(&fm->lock);
	if (how == FM_UNBOUND || ours)
		return 0;
	return api_fail(&p->err, CARSH_E_STATE,
	                "pipeline: stage '%s': stream '%s' is bound to the caller's %s, but a "
	                "connected or port stream is the pipeline's own buffer: leave it unbound "
	                "and send its first data to an INITONCE or ENTRANCE port",
	                s->name, fm->fm->args[arg].name,
	                how == FM_MEMORY ? "memory (carsh_flowmodel_bind_memory)"
	                                 : "buffer (carsh_flowmodel_bind_buffer)");
}

/* An InOut connected to itself would copy its buffer onto itself (CL_MEM_COPY_OVERLAP at
 * the first run): an InOut keeps its data from one run to the next by itself. */
static int not_self(carsh_pipeline *p, const struct link *l)
{
	if (l->from != l->to || l->out_arg != l->in_arg)
		return 0;
	return api_fail(
	        &p->err, CARSH_E_ARG,
	        "pipeline: stage '%s': the InOut '%s' is connected to itself; an InOut "
	        "keeps its data from one run to the next already: give its first data by an "
	        "ENTRANCE port (a limit beyond the runs sends it once) or a binding",
	        p->stages[l->from].name, p->stages[l->from].fm->fm->args[l->in_arg].name);
}

static int add_link(carsh_pipeline *p, struct link l, int *port)
{
	if (l.limit < 1)
		return api_fail(&p->err, CARSH_E_ARG,
		                "pipeline: iteration limit %ld: it must be at least 1", l.limit);
	p->links = xrealloc(p->links, (p->nlinks + 1) * sizeof(*p->links));
	p->links[p->nlinks] = l;
	if (port)
		*port = (int)p->nlinks;
	p->nlinks++;
	return 0;
}

static int connect_locked(carsh_pipeline *p, const char *from, const char *output, const char *to,
                          const char *input, enum carsh_port_kind kind, long limit, int *port)
{
	struct link l = {.what = LINK_EDGE, .kind = kind, .limit = limit};
	int rc = not_implemented(p, "carsh_pipeline_connect");

	if (rc == 0 && kind != CARSH_PORT_INTERMEDIATE && kind != CARSH_PORT_INITONCE)
		rc = api_fail(&p->err, CARSH_E_ARG,
		              "carsh_pipeline_connect: port kind %d: "
		              "CARSH_PORT_INTERMEDIATE or CARSH_PORT_INITONCE",
		              (int)kind);
	if (rc == 0)
		rc = find_stage(p, from, &l.from) || find_stage(p, to, &l.to) ? CARSH_E_NAME : 0;
	if (rc == 0)
		rc = find_stream(p, l.from, output, false, &l.out_arg);
	if (rc == 0)
		rc = find_stream(p, l.to, input, true, &l.in_arg);
	if (rc == 0)
		rc = not_self(p, &l);
	if (rc == 0)
		rc = input_free(p, l.to, l.in_arg);
	if (rc == 0)
		rc = caller_bound(p, l.from, l.out_arg);
	if (rc == 0)
		rc = caller_bound(p, l.to, l.in_arg);
	if (rc == 0)
		rc = add_link(p, l, port);
	if (rc == 0) {
		size_t ed = graph_add_edge(p->g, l.from, l.to,
		                           kind == CARSH_PORT_INITONCE ? EDGE_INITONCE
		                                                       : EDGE_INTERMEDIATE);

		p->g->edges[ed].limit = limit;
		p->g->edges[ed].output = xstrdup(output);
		p->g->edges[ed].input = xstrdup(input);
	}
	return rc;
}

int carsh_pipeline_connect(carsh_pipeline *p, const char *from, const char *output, const char *to,
                           const char *input, enum carsh_port_kind kind, long limit, int *port)
{
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = connect_locked(p, from, output, to, input, kind, limit, port);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static int port_locked(carsh_pipeline *p, enum link_what what, const char *stage,
                       const char *stream, long limit, int *port)
{
	struct link l = {.what = what, .limit = limit};
	size_t st = 0;
	int rc = not_implemented(p, what == LINK_EXIT ? "carsh_pipeline_exit"
	                                              : "carsh_pipeline_entrance");

	if (rc == 0)
		rc = find_stage(p, stage, &st);
	if (rc == 0)
		rc = find_stream(p, st, stream, what == LINK_ENTRANCE,
		                 what == LINK_ENTRANCE ? &l.in_arg : &l.out_arg);
	if (rc == 0 && what == LINK_ENTRANCE)
		rc = input_free(p, st, l.in_arg);
	if (rc == 0)
		rc = caller_bound(p, st, what == LINK_ENTRANCE ? l.in_arg : l.out_arg);
	l.from = l.to = st;
	if (rc == 0)
		rc = add_link(p, l, port);
	if (rc == 0 && what == LINK_EXIT)
		graph_add_exit(p->g, st);
	return rc;
}

int carsh_pipeline_entrance(carsh_pipeline *p, const char *stage, const char *input, long limit,
                            int *port)
{
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = port_locked(p, LINK_ENTRANCE, stage, input, limit, port);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

int carsh_pipeline_exit(carsh_pipeline *p, const char *stage, const char *output, long limit,
                        int *port)
{
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = port_locked(p, LINK_EXIT, stage, output, limit, port);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* ---- implementing ---- */

static int check_model(carsh_pipeline *p)
{
	struct deadlock d;
	int rc = 0;

	if (!p->nstages)
		return api_fail(&p->err, CARSH_E_STATE,
		                "pipeline: no stage: carsh_pipeline_add first");
	if (!p->g->nexits)
		return api_fail(&p->err, CARSH_E_STATE,
		                "pipeline: no EXIT port, so nothing it computes is output (004 "
		                "§4.2.1): carsh_pipeline_exit first");
	if (graph_validate(p->g, &p->err))
		return CARSH_E_STATE;
	if (deadlock_find(p->g, &d, &p->err))
		return CARSH_E_STATE;
	if (d.nopen) {
		char *c = cycle_text(p->g, &d.first_open);

		rc = api_fail(&p->err, CARSH_E_STATE,
		              "pipeline: the cycle %s has no INITONCE connection, so it can never "
		              "start (004 Algorithm 1): make one of its connections "
		              "CARSH_PORT_INITONCE",
		              c);
		free(c);
	}
	deadlock_free(&d);
	return rc;
}

/* Kahn's order over the INTERMEDIATE connections; INITONCE ones are fed from the run
 * before (or from the data sent). check_model has refused a cycle without one. */
static void order_stages(carsh_pipeline *p)
{
	size_t *indeg = xcalloc(p->nstages, sizeof(*indeg)), n = 0;

	p->order = xrealloc(p->order, p->nstages * sizeof(*p->order));
	for (size_t i = 0; i < p->nlinks; i++)
		if (p->links[i].what == LINK_EDGE && p->links[i].kind == CARSH_PORT_INTERMEDIATE)
			indeg[p->links[i].to]++;
	while (n < p->nstages) {
		size_t s = 0;

		while (s < p->nstages && indeg[s] != 0)
			s++;
		indeg[s] = (size_t)-1; /* taken */
		p->order[n++] = s;
		for (size_t i = 0; i < p->nlinks; i++)
			if (p->links[i].what == LINK_EDGE && p->links[i].from == s &&
			    p->links[i].kind == CARSH_PORT_INTERMEDIATE)
				indeg[p->links[i].to]--;
	}
	free(indeg);
}

static size_t arg_bytes(const struct stage *s, size_t arg)
{
	return s->fm->jp->kp.args[arg].bytes;
}

static int stage_buffer(carsh_pipeline *p, size_t st, size_t arg, carsh_buffer **out)
{
	struct stage *s = &p->stages[st];
	int rc;

	if (!s->bufs)
		s->bufs = xcalloc(s->fm->fm->nargs, sizeof(*s->bufs));
	if (!s->bufs[arg] && (rc = carsh_buffer_new(p->m, arg_bytes(s, arg), &s->bufs[arg])) != 0)
		return api_fail(&p->err, rc, "pipeline: stage '%s': %s", s->name,
		                carsh_machine_last_error(p->m));
	if (out)
		*out = s->bufs[arg];
	return 0;
}

static int link_buffers(carsh_pipeline *p, struct link *l)
{
	carsh_buffer *out = NULL, *in = NULL;
	int rc = 0;

	if (l->what != LINK_ENTRANCE)
		rc = stage_buffer(p, l->from, l->out_arg, &out);
	if (rc == 0 && l->what != LINK_EXIT)
		rc = stage_buffer(p, l->to, l->in_arg, &in);
	if (rc)
		return rc;
	l->bytes = out ? out->bytes : in->bytes;
	if (in && in->bytes < l->bytes) /* 004 §4.2.2: the smaller buffer's size */
		l->bytes = in->bytes;
	if (l->what == LINK_EXIT && !l->exit && (rc = carsh_buffer_new(p->m, l->bytes, &l->exit)))
		return api_fail(&p->err, rc, "pipeline: %s", carsh_machine_last_error(p->m));
	return 0;
}

/* Every stream of the stage: the pipeline's buffer, or the caller's binding. */
static int bind_stage(carsh_pipeline *p, struct stage *s)
{
	carsh_flowmodel *fm = s->fm;
	int rc = 0;

	pthread_mutex_lock(&fm->lock);
	for (size_t a = 0; a < fm->fm->nargs && rc == 0; a++) {
		if (!arg_is_stream(fm->fm->args[a].kind))
			continue;
		if (s->bufs && s->bufs[a] && fm->streams[a].how != FM_UNBOUND &&
		    fm->streams[a].buf != s->bufs[a])
			rc = api_fail(
			        &p->err, CARSH_E_STATE,
			        "pipeline: stage '%s': stream '%s' was bound by the caller after "
			        "it was connected or made a port; such a stream is the pipeline's "
			        "own buffer: leave it unbound",
			        s->name, fm->fm->args[a].name);
		else if (s->bufs && s->bufs[a])
			rc = fm_bind_buffer_locked(fm, a, s->bufs[a], &p->err);
		else if (fm->streams[a].how == FM_UNBOUND)
			rc = api_fail(
			        &p->err, CARSH_E_STATE,
			        "pipeline: stage '%s': stream '%s' is not connected, not a port "
			        "and not bound",
			        s->name, fm->fm->args[a].name);
	}
	fm->in_pipeline = rc == 0;
	pthread_mutex_unlock(&fm->lock);
	return rc;
}

int carsh_pipeline_implement(carsh_pipeline *p)
{
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = not_implemented(p, "carsh_pipeline_implement");
	if (rc == 0)
		rc = check_model(p);
	for (size_t i = 0; i < p->nlinks && rc == 0; i++)
		rc = link_buffers(p, &p->links[i]);
	for (size_t i = 0; i < p->nstages && rc == 0; i++)
		rc = bind_stage(p, &p->stages[i]);
	if (rc == 0) {
		order_stages(p);
		p->implemented = true;
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* ---- running ---- */

static int find_port(carsh_pipeline *p, int port, bool exit, struct link **l)
{
	if (!p->implemented)
		return api_fail(&p->err, CARSH_E_STATE,
		                "pipeline: not implemented: carsh_pipeline_implement first");
	if (port < 0 || (size_t)port >= p->nlinks)
		return api_fail(&p->err, CARSH_E_NAME, "pipeline: no port %d", port);
	*l = &p->links[port];
	if (exit ? (*l)->what == LINK_EXIT
	         : (*l)->what == LINK_ENTRANCE ||
	                    ((*l)->what == LINK_EDGE && (*l)->kind == CARSH_PORT_INITONCE))
		return 0;
	return api_fail(&p->err, CARSH_E_NAME, "pipeline: port %d is not %s", port,
	                exit ? "an EXIT port" : "an ENTRANCE or INITONCE port");
}

static int port_size(carsh_pipeline *p, int port, size_t want, size_t bytes)
{
	if (bytes == want)
		return 0;
	return api_fail(&p->err, CARSH_E_SIZE, "pipeline: port %d carries %zu bytes, not %zu", port,
	                want, bytes);
}

int carsh_pipeline_send(carsh_pipeline *p, int port, const void *data, size_t bytes)
{
	struct link *l;
	carsh_buffer *b;
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = find_port(p, port, false, &l);
	if (rc == 0) {
		b = p->stages[l->to].bufs[l->in_arg];
		rc = port_size(p, port, b->bytes, bytes);
	}
	if (rc == 0 && (rc = carsh_buffer_write(b, 0, data, bytes)) != 0)
		api_fail(&p->err, rc, "pipeline: port %d: %s", port,
		         carsh_machine_last_error(p->m));
	if (rc == 0)
		l->sent = true;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static const char *link_text(const carsh_pipeline *p, const struct link *l, char *buf, size_t n)
{
	const struct stage *s = &p->stages[l->what == LINK_EXIT ? l->from : l->to];
	size_t arg = l->what == LINK_EXIT ? l->out_arg : l->in_arg;

	snprintf(buf, n, "%s %s.%s",
	         l->what == LINK_ENTRANCE ? "ENTRANCE"
	         : l->what == LINK_EXIT   ? "EXIT"
	                                  : "INITONCE",
	         s->name, s->fm->fm->args[arg].name);
	return buf;
}

/* The data the stage's next run takes: an entrance's every limit-th run, an INITONCE
 * connection's before the first. */
static bool wanted_now(const struct link *l, size_t st, long runs)
{
	if (l->to != st)
		return false;
	if (l->what == LINK_ENTRANCE)
		return runs % l->limit == 0;
	return l->what == LINK_EDGE && l->kind == CARSH_PORT_INITONCE && runs == 0;
}

static int take_inputs(carsh_pipeline *p, size_t st)
{
	long runs = p->stages[st].runs;
	char text[300];

	/* all there before any is taken: a refused run leaves what was sent */
	for (size_t i = 0; i < p->nlinks; i++)
		if (wanted_now(&p->links[i], st, runs) && !p->links[i].sent)
			return api_fail(&p->err, CARSH_E_STATE,
			                "pipeline: iteration %ld: port %zu (%s) waits for data: "
			                "carsh_pipeline_send first",
			                p->iterations + 1, i,
			                link_text(p, &p->links[i], text, sizeof(text)));
	for (size_t i = 0; i < p->nlinks; i++)
		if (wanted_now(&p->links[i], st, runs))
			p->links[i].sent = false;
	return 0;
}

/* After the stage's run: what its connections and exits carry on this run, copied on the
 * device behind it. */
static int pass_outputs(carsh_pipeline *p, size_t st)
{
	struct stage *s = &p->stages[st];
	cl_command_queue q = machine_queue(p->m, false);

	for (size_t i = 0; i < p->nlinks; i++) {
		struct link *l = &p->links[i];
		cl_mem dst;
		cl_int err;

		if (l->what == LINK_ENTRANCE || l->from != st || s->runs % l->limit != 0)
			continue;
		dst = l->what == LINK_EXIT ? l->exit->mem : p->stages[l->to].bufs[l->in_arg]->mem;
		err = clEnqueueCopyBuffer(q, s->bufs[l->out_arg]->mem, dst, 0, 0, l->bytes, 0, NULL,
		                          NULL);
		if (err != CL_SUCCESS)
			return api_fail(&p->err, CARSH_E_DEVICE,
			                "pipeline: stage '%s': copying '%s': %s", s->name,
			                s->fm->fm->args[l->out_arg].name, rt_cl_error_name(err));
		l->fresh = l->fresh || l->what == LINK_EXIT;
	}
	return 0;
}

static int run_stage(carsh_pipeline *p, size_t st)
{
	struct stage *s = &p->stages[st];
	int rc = take_inputs(p, st);

	if (rc)
		return rc;
	pthread_mutex_lock(&s->fm->lock);
	rc = fm_fire_locked(s->fm, &p->err);
	pthread_mutex_unlock(&s->fm->lock);
	if (rc) {
		err_prefix(&p->err, "pipeline: stage '%s': ", s->name);
		return rc;
	}
	s->runs++;
	return pass_outputs(p, st);
}

int carsh_pipeline_run(carsh_pipeline *p, long iterations)
{
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = p->implemented ? 0
	                    : api_fail(&p->err, CARSH_E_STATE,
	                               "pipeline: not implemented: carsh_pipeline_implement first");
	if (rc == 0 && iterations < 0)
		rc = api_fail(&p->err, CARSH_E_ARG, "pipeline: %ld iterations", iterations);
	for (long it = 0; rc == 0 && it < iterations; it++) {
		for (size_t i = 0; i < p->nstages && rc == 0; i++)
			rc = run_stage(p, p->order[i]);
		p->iterations += rc == 0;
	}
	if (clFinish(machine_queue(p->m, false)) != CL_SUCCESS && rc == 0)
		rc = api_fail(&p->err, CARSH_E_DEVICE, "pipeline: the device failed");
	pthread_mutex_unlock(&p->lock);
	return rc;
}

int carsh_pipeline_receive(carsh_pipeline *p, int port, void *data, size_t bytes, int *fresh)
{
	struct link *l;
	int rc;

	if (!p)
		return CARSH_E_ARG;
	pthread_mutex_lock(&p->lock);
	rc = find_port(p, port, true, &l);
	if (rc == 0)
		rc = port_size(p, port, l->bytes, bytes);
	if (rc == 0 && (rc = carsh_buffer_read(l->exit, 0, data, bytes)) != 0)
		api_fail(&p->err, rc, "pipeline: port %d: %s", port,
		         carsh_machine_last_error(p->m));
	if (rc == 0) {
		if (fresh)
			*fresh = l->fresh;
		l->fresh = false;
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}
