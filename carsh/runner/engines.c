/* The adaptive engines run for the shell (runner/engines.h). */
#include "runner/engines.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/filecache.h"
#include "model/pipeplan.h"
#include "model/planner.h"
#include "runner/buffers.h"
#include "runner/engineproc.h"
#include "runtime/abortnote.h"
#include "mpi/partranks.h"
#include "mpi/placement.h"
#include "runner/run.h"
#include "runner/stats.h"
#include "util/alloc.h"
#include "util/path.h"
#include "mpi/ranks.h"

/* From here OpenCL lives in this process (the engine's child under the process executor,
 * runner/engineproc.h, else the shell): it stays on the thread executor. */
static struct texec *thread_executor(struct run_ctx *c)
{
	c->s->thread_mode = true;
	return session_texec(c->s);
}

static int partition_failed(struct cs_err *e)
{
	err_prefix(e, "partition: ");
	return 1;
}

/* partition= and unit= of each argument, unit evaluated in the planner's scope. */
static int stream_parts(const struct exe *exe, const struct scope *caller, struct part_stream *ps,
                        struct cs_err *e)
{
	const struct flowmodel *fm = exe->fm;
	struct scope sc;

	scope_init(&sc);
	scope_push(&sc, &exe->params);
	scope_append(&sc, caller);
	scope_push(&sc, &fm->params);
	for (size_t i = 0; i < fm->nargs; i++) {
		const struct fm_arg *a = &fm->args[i];
		long long unit = 1;

		ps[i].block = a->partition == PART_BLOCK;
		if (a->unit && scope_eval_range(&sc, a->unit, "unit", 1, INT32_MAX, &unit, e))
			return err_prefix(e, "%s:%d: <%s name=\"%s\">: ", fm->file, a->line,
			                  arg_kind_name(a->kind), a->name);
		ps[i].unit = (size_t)unit;
	}
	return 0;
}

static bool writes_stdout(const struct job_plan *jp)
{
	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (arg_is_written(jp->kp.args[i].kind) && jp->binds[i].how == BIND_FILE &&
		    path_is_stdio(jp->binds[i].path))
			return true;
	return false;
}

static void partition_stats(struct run_ctx *c, const struct part_result *r)
{
	struct run_stats st;

	memset(&st, 0, sizeof(st));
	st.wall_ms = r->setup_ms + r->time_ms;
	st.build_ms = r->build_ms;
	for (unsigned i = 0; i < r->ndev; i++) {
		st.kernel_ms += r->dev[i].busy_ms;
		st.h2d_ms += r->dev[i].copy_ms;
		st.launches += (long long)r->dev[i].chunks;
	}
	if (r->ngpu > 1)
		snprintf(st.device, sizeof(st.device), "partition: %u GPUs + %u CPU core%s",
		         r->ngpu, r->ncpu, r->ncpu == 1 ? "" : "s");
	else
		snprintf(st.device, sizeof(st.device), "partition: %s%s%u CPU core%s",
		         r->gpu ? "gpu" : "", r->gpu ? " + " : "", r->ncpu,
		         r->ncpu == 1 ? "" : "s");
	stats_add(c->stats, &st);
}

static int partition_exe(struct run_ctx *c, const struct loaded_exe *l, struct part_opts *o,
                         struct part_result *res, bool *stdout_taken, struct cs_err *e);

/* In the shell's own process a driver's abort ends carsh: it is said first (runtime/
 * abortnote.h). In an engine's child the shell says it (runner/engineproc.h). */
static bool abort_note_arm(const char *what)
{
	if (engine_apart_child())
		return false;
	rt_abort_note_arm(what);
	return true;
}

/* The knowledge base, or NULL with the reason in warn. */
static struct part_kb *kb_here(char *warn, size_t n)
{
	char *path = kb_default_path();
	struct part_kb *kb;

	if (!path) {
		snprintf(warn, n, "no cache directory for the knowledge base");
		return NULL;
	}
	kb = kb_open(path);
	free(path);
	snprintf(warn, n, "%s", kb->warning);
	return kb;
}

static void kb_close(struct part_kb *kb, char *warn, size_t n)
{
	struct cs_err e;

	if (kb && kb_save(kb, &e) && !warn[0])
		snprintf(warn, n, "the knowledge base was not saved: %s", e.msg);
	kb_free(kb);
}

/* LogFit and Marrow learn: they start from the knowledge base and keep what they learnt in
 * it (001 §3.2). Without a cache directory they run without one. */
static int partition_learning(struct run_ctx *c, const struct loaded_exe *l, struct part_opts *o,
                              struct part_result *res, bool *stdout_taken, struct cs_err *e)
{
	char warn[sizeof(res->kb_warning)] = "";
	struct part_kb *kb = kb_here(warn, sizeof(warn));
	int rc;

	if (!kb)
		warn[0] = '\0'; /* no cache: nothing to say */
	o->kb = kb;
	rc = partition_exe(c, l, o, res, stdout_taken, e);
	o->kb = NULL;
	if (rc == 0)
		kb_close(kb, warn, sizeof(warn));
	else
		kb_free(kb);
	if (rc == 0)
		snprintf(res->kb_warning, sizeof(res->kb_warning), "%s", warn);
	return rc;
}

/* The engine on a plan whose buffers are claimed around it. Across MPI ranks every rank
 * runs its part (mpi/partranks.h): what the plan reads is brought to every rank first,
 * and rank 0 delivers what it writes. */
static int partition_plan(struct run_ctx *c, struct job_plan *jp, const struct part_stream *ps,
                          const struct part_opts *o, struct part_result *res, struct cs_err *e)
{
	struct texec *t = thread_executor(c);
	struct part_env env = {texec_session(t), c->interrupted};
	struct part_ranks *pr = part_ranks_new();
	struct part_opts ro = *o;
	struct claim *cl = NULL;
	int rc;

	if (pr) {
		buffers_place_everywhere(c, jp);
		ro.share = part_ranks_share(pr);
	}
	rc = buffers_claim_plan(c, jp, &cl, e);
	if (rc && pr) /* the other ranks are at the end of the engine's setup */
		rc = ro.share->ready(ro.share->arg, rc, 0, 0, 0, e);
	if (rc == 0) {
		char *what = xasprintf("partition: %s", jp->kp.label);
		bool noted;

		jp->in = c->in;
		jp->out = c->out;
		engine_apart_writes(jp);
		noted = abort_note_arm(what);
		rc = partition_run(&env, jp, ps, &ro, res, e);
		if (noted)
			rt_abort_note_disarm();
		free(what);
		buffers_release_plan(c, jp, cl);
	}
	if (pr) {
		rc = ranks_agree(rc, e); /* rank 0's delivery */
		if (rc == 0)
			part_ranks_result(pr, res);
		part_ranks_free(pr);
	}
	if (rc == 0)
		partition_stats(c, res);
	return rc;
}

static int partition_exe(struct run_ctx *c, const struct loaded_exe *l, struct part_opts *o,
                         struct part_result *res, bool *stdout_taken, struct cs_err *e)
{
	struct scope scope;
	struct plan_env penv;
	struct job_plan *jp;
	struct part_stream *ps;
	int rc;

	scope_init(&scope);
	scope_push(&scope, &l->args);
	scope_append(&scope, c->caller);
	penv = (struct plan_env){&scope, c->s->device_cli, session_resolve_buffer, c->s, true};
	if (plan_exe(l->exe, &penv, &jp, e))
		return partition_failed(e);
	ps = xcalloc(jp->kp.nargs ? jp->kp.nargs : 1, sizeof(*ps));
	if (stream_parts(l->exe, &scope, ps, e))
		rc = partition_failed(e);
	else if ((rc = partition_plan(c, jp, ps, o, res, e)) != 0) {
		err_prefix(e, "partition: %s: ", jp->kp.label);
	}
	*stdout_taken = writes_stdout(jp);
	free(ps);
	job_plan_free(jp);
	return rc;
}

int run_partition(struct run_ctx *c, const char *path, int n, char **words, struct part_opts *o,
                  struct part_result *res, bool *stdout_taken, struct cs_err *e)
{
	const char *root = filecache_root(path, e);
	struct loaded_exe l;
	int rc;

	if (!root)
		return partition_failed(e);
	if (strcmp(root, "FlowModel") != 0 && strcmp(root, "CarshExe") != 0) {
		err_set(e,
		        "%s: <%s> files cannot be partitioned (expected <CarshExe> or <FlowModel>)",
		        path, root);
		return partition_failed(e);
	}
	if (exe_load(path, root, n, words, &l, e))
		return partition_failed(e);
	/* Across ranks each rank learns on another part of the space at each step: the
	 * knowledge base (keyed by one machine's devices and the whole space) stays out. */
	if ((o->sched == SCHED_LOGFIT || o->sched == SCHED_MARROW) && ranks_size() == 1)
		rc = partition_learning(c, &l, o, res, stdout_taken, e);
	else
		rc = partition_exe(c, &l, o, res, stdout_taken, e);
	exe_loaded_free(&l);
	return rc;
}

int partition_profile_show(FILE *f, char *warn, size_t n, struct cs_err *e)
{
	struct part_kb *kb = kb_here(warn, n);

	if (!kb)
		return err_set(e, "partition: --profile: %s (CARSH_NO_CACHE=1, or no HOME)", warn);
	warn[0] = '\0';
	if (kb->warning[0])
		snprintf(warn, n, "%s", kb->warning);
	kb_print(f, kb);
	kb_free(kb);
	return 0;
}

/* The flow-model file of an executable or flow-model file, absolute, in model. */
static int model_of(const char *path, char *model, struct cs_err *e)
{
	const char *root = filecache_root(path, e);
	struct loaded_exe l;
	int rc;

	if (!root)
		return -1;
	if (strcmp(root, "FlowModel") != 0 && strcmp(root, "CarshExe") != 0)
		return err_set(e, "%s: <%s> is not an executable or a flow-model", path, root);
	/* A flow-model is its own file: loaded as an executable it would want its streams. */
	if (strcmp(root, "FlowModel") == 0)
		return realpath(path, model) ? 0 : err_set(e, "%s: cannot resolve", path);
	if (exe_load(path, root, 0, NULL, &l, e))
		return -1;
	rc = realpath(l.exe->fm->file, model) ? 0 : err_set(e, "%s: cannot resolve", path);
	exe_loaded_free(&l);
	return rc;
}

int partition_profile_forget(const char *path, size_t *gone, char *warn, size_t n, struct cs_err *e)
{
	char model[PATH_MAX];
	struct part_kb *kb;

	if (path && model_of(path, model, e))
		return err_prefix(e, "partition: --profile forget: ");
	kb = kb_here(warn, n);
	if (!kb)
		return err_set(e, "partition: --profile: %s (CARSH_NO_CACHE=1, or no HOME)", warn);
	*gone = kb_forget(kb, path ? model : NULL);
	kb_close(kb, warn, n);
	return 0;
}

static void pipeline_stats(struct run_ctx *c, const struct pipe_result *r)
{
	struct run_stats st;

	memset(&st, 0, sizeof(st));
	st.wall_ms = r->setup_ms + r->time_ms;
	st.build_ms = r->build_ms;
	snprintf(st.device, sizeof(st.device), "pipeline: %u CPU core%s%s", r->sh.nc,
	         r->sh.nc == 1 ? "" : "s",
	         r->standin ? " + a core as GPU" : (r->sh.gpu ? " + GPU" : ""));
	stats_add(c->stats, &st);
}

int run_pipeline(struct run_ctx *c, const char *path, const struct params *args,
                 struct pipe_opts *o, pipe_report report, void *arg, struct cs_err *e)
{
	struct pipe_desc *d = NULL;
	struct pipe_plan *pp = NULL;
	struct pipe_result res;
	struct pipe_env env;
	int rc = 1;

	if (placement_one_rank(NULL, e) || pipe_desc_read(path, &d, e) ||
	    pipe_plan_new(d, args, c->caller, &pp, e)) {
		err_prefix(e, "pipeline: ");
	} else {
		char *what = xasprintf("pipeline: %s", pp->d->name);
		bool noted;

		env = (struct pipe_env){texec_session(thread_executor(c)), c->interrupted};
		noted = abort_note_arm(what);
		rc = pipeline_run(&env, pp, o, &res, e);
		if (noted)
			rt_abort_note_disarm();
		free(what);
		if (rc) {
			err_prefix(e, "pipeline: %s: ", pp->d->name);
		} else {
			report(c, &res, arg);
			pipeline_stats(c, &res);
			pipe_result_free(&res);
		}
	}
	pipe_plan_free(pp);
	pipe_desc_free(d);
	return rc;
}
