/*
 * partition: one data-parallel flow-model over every device of the machine, scheduled by
 * LogFit (003 §4) or a baseline of 003 §5.1 (engines/partition/partition.h, docs/partition.md). It runs
 * on the thread executor's runtime: OpenCL then lives in the shell's process, so the shell
 * switches to the thread executor for good (as `set exec=thread` would), since forking jobs
 * from a process whose OpenCL runtime has started its threads is not safe.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/options.h"
#include "engines/partition/partition.h"
#include "model/exe.h"
#include "model/filecache.h"
#include "model/planner.h"
#include "util/alloc.h"
#include "util/path.h"

struct part_cmd {
	struct part_opts o;
	bool share_given;
	const char *trace;
	bool json;
	bool no_progress;
	const char *file;
	int nwords;
	char **words;    /* NAME=VALUE and STREAM=FILE after the file, in order */
	char **operands; /* the file, then the words */
};

static int set_sched(void *args, const char *v, struct cs_err *e)
{
	struct part_cmd *pc = args;

	if (sched_parse(v, &pc->o.sched))
		return err_set(e, "expected logfit, static, concord, hdss, cpu or gpu");
	return 0;
}

static int set_share(void *args, const char *v, struct cs_err *e)
{
	struct part_cmd *pc = args;

	pc->share_given = true;
	if (strcmp(v, "auto") == 0) {
		pc->o.gpu_share = PART_SHARE_AUTO;
		return 0;
	}
	if (opt_percent(v, &pc->o.gpu_share, e))
		return err_set(e, "expected a percentage from 0 to 100 or 'auto'");
	return 0;
}

static const struct opt part_opts[] = {
        OPT_CALL("--sched", set_sched, "S",
                 "logfit (default), static, concord, hdss, cpu (the cores alone), gpu"),
        OPT_UINT("--threads", struct part_cmd, o.threads, "N", 4096,
                 "the GPU and N-1 cores (1: the GPU alone); default: all"),
        OPT_CALL("--gpu-share", set_share, "P",
                 "static: the GPU's percentage, or auto (default): profile 0-100 %"),
        OPT_UINT("--steps", struct part_cmd, o.steps, "S", 1e9,
                 "time steps, swapping the executable's swap pairs between them"),
        OPT_STRING("--trace", struct part_cmd, trace, "F.csv",
                   "one row per chunk: step, device, offset, size, start, end,\n"
                   "throughput, phase"),
        OPT_FLAG("--json", struct part_cmd, json, "the summary as one JSON line"),
        OPT_STRING("--gpu", struct part_cmd, o.gpu, "G",
                   "auto, none, cpu (a core stands in for the GPU), or a device selector"),
        OPT_FLAG("--no-progress", struct part_cmd, no_progress,
                 "no progress bar (it is drawn only on a terminal)"),
        OPT_END,
};

static const char usage_text[] =
        "partition [--sched logfit|static|concord|hdss|cpu|gpu] [--threads N] "
        "[--gpu-share P|auto] [--steps S] [--trace FILE.csv] [--json] "
        "[--gpu auto|none|cpu|SELECTOR] [--no-progress] EXE.xml [NAME=VALUE | "
        "STREAM=FILE]...";

static const struct opt_cmd part_spec = {
        "partition",
        usage_text,
        "Runs the flow-model's 1-D work space in chunks on the GPU and on single-core\n"
        "sub-devices of the CPU, one host thread each (003).",
        part_opts,
        "See docs/partition.md.",
        0,
};

/* Returns 0, OPT_HELP or -1. */
static int parse_args(struct part_cmd *pc, int argc, char **argv, struct cs_err *e)
{
	int n;

	pc->o.sched = SCHED_LOGFIT;
	pc->o.gpu_share = PART_SHARE_AUTO;
	n = opt_parse(&part_spec, pc, argc - 1, argv + 1, &pc->operands, e);
	if (n < 0)
		return n;
	if (n == 0)
		return err_set(e, "partition: no executable given (usage: partition [OPTIONS] "
		                  "EXE.xml [NAME=VALUE]...)");
	pc->file = pc->operands[0];
	pc->words = pc->operands + 1;
	pc->nwords = n - 1;
	if (pc->share_given && pc->o.sched != SCHED_STATIC)
		return err_set(e, "partition: --gpu-share is for --sched static");
	return 0;
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

/* The summary goes to standard output unless a stream writes there. */
static bool writes_stdout(const struct job_plan *jp)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		enum arg_kind k = jp->kp.args[i].kind;

		if ((k == ARG_OUTPUT || k == ARG_INOUT) && jp->binds[i].how == BIND_FILE &&
		    path_is_stdio(jp->binds[i].path))
			return true;
	}
	return false;
}

static void add_stats(struct run_ctx *c, const struct part_result *r)
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
	snprintf(st.device, sizeof(st.device), "partition: %s%s%u CPU core%s", r->gpu ? "gpu" : "",
	         r->gpu ? " + " : "", r->ncpu, r->ncpu == 1 ? "" : "s");
	stats_add(c->stats, &st);
}

static int run_partition(struct run_ctx *c, struct part_cmd *pc, const struct exe *exe,
                         struct params *args, struct cs_err *e)
{
	struct scope scope;
	struct plan_env penv;
	struct job_plan *jp;
	struct part_stream *ps;
	struct part_env env;
	struct part_result res;
	struct texec *t;
	int rc;

	scope_init(&scope);
	scope_push(&scope, args);
	scope_append(&scope, c->caller);
	penv = (struct plan_env){&scope, c->s->device_cli, session_resolve_buffer, c->s, true};
	if (plan_exe(exe, &penv, &jp, e))
		return cmd_prefix(e, 1, "partition: ");
	ps = xcalloc(jp->kp.nargs ? jp->kp.nargs : 1, sizeof(*ps));
	if (stream_parts(exe, &scope, ps, e)) {
		free(ps);
		job_plan_free(jp);
		return cmd_prefix(e, 1, "partition: ");
	}
	/* From here OpenCL lives in this process: the shell stays on the thread executor. */
	c->s->thread_mode = true;
	t = session_texec(c->s);
	env = (struct part_env){texec_session(t), texec_resident(t), run_exec_env(c)};
	jp->in = c->in;
	jp->out = c->out;
	pc->o.progress = !pc->no_progress && !c->detached && isatty(STDERR_FILENO);
	rc = partition_run(&env, jp, ps, &pc->o, &res, e);
	if (rc == 0) {
		FILE *f = writes_stdout(jp) ? stderr : c->out;

		if (pc->json)
			part_print_json(f, &res);
		else
			part_print_summary(f, &res);
		add_stats(c, &res);
		if (pc->trace && part_write_trace(pc->trace, &res, e))
			rc = cmd_prefix(e, 1, "partition: --trace %s: ", pc->trace);
		part_result_free(&res);
	} else {
		cmd_prefix(e, rc, "partition: %s: ", jp->kp.label);
	}
	free(ps);
	job_plan_free(jp);
	return rc;
}

static void print_help(FILE *f)
{
	opt_help(f, &part_spec);
}

static int cmd_partition_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct part_cmd pc;
	struct params args = PARAMS_INIT;
	const struct flowmodel *fm;
	const struct exe *exe = NULL;
	struct exe *wrap = NULL;
	const char *root;
	int rc = 1;

	memset(&pc, 0, sizeof(pc));
	rc = parse_args(&pc, argc, argv, e);
	if (rc) {
		free(pc.operands);
		return opt_failed(rc, &part_spec, c->out);
	}
	root = filecache_root(pc.file, e);
	if (!root)
		goto fail;
	if (strcmp(root, "FlowModel") == 0) {
		fm = filecache_flowmodel(pc.file, e);
		exe = wrap = fm ? exe_wrap_shared_flowmodel(fm) : NULL;
	} else if (strcmp(root, "CarshExe") == 0) {
		exe = filecache_exe(pc.file, e);
	} else {
		err_set(e,
		        "%s: <%s> files cannot be partitioned (expected <CarshExe> or <FlowModel>)",
		        pc.file, root);
		goto fail;
	}
	if (!exe || session_read_words(wrap, pc.nwords, pc.words, &args, e) ||
	    (wrap && exe_check_bindings(wrap, true, e)))
		goto fail;
	rc = run_partition(c, &pc, exe, &args, e);
	goto out;
fail:
	rc = cmd_prefix(e, 1, "partition: ");
out:
	exe_free(wrap);
	params_free(&args);
	free(pc.operands);
	return rc;
}

const struct carsh_cmd cmd_partition = {
        .name = "partition",
        .usage = usage_text,
        .summary = "run a data-parallel flow-model on the GPU and every CPU core, chunks "
                   "scheduled by LogFit or a baseline (runs on the thread executor)",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_partition_exec,
        .help = print_help,
};
