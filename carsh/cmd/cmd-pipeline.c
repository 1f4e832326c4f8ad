/*
 * pipeline: a stream of items through a linear pipeline of flow-models, mapped onto the CPU
 * cores and the GPU by the configuration the analytical model of 000 predicts best, or by
 * one given (engines/pipeline/pipeline.h, docs/pipeline.md), run by runner/engines.h on the
 * thread executor's runtime.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "runner/engineproc.h"
#include "runner/engines.h"
#include "util/alloc.h"

struct pipe_cmd {
	struct pipe_opts o;
	bool json;
	bool no_progress;
	const char *file;
	struct params args; /* NAME=VALUE after the file */
};

static int set_criterion(void *args, const char *v, struct cs_err *e)
{
	struct pipe_cmd *pc = args;

	if (pm_criterion_parse(v, &pc->o.crit))
		return err_set(e, "expected throughput, energy or tpe (throughput/energy)");
	return 0;
}

static int set_overhead(void *args, const char *v, struct cs_err *e)
{
	struct pipe_cmd *pc = args;
	char *end;
	double p = strtod(v, &end);

	if (end != v && strcmp(end, "%") == 0)
		p /= 100.0;
	else if (end == v || *end)
		p = -1;
	if (!(p > 0 && p < 1))
		return err_set(e,
		               "expected a fraction between 0 and 1 (0.05) or a percentage (5%%)");
	pc->o.overhead = p;
	return 0;
}

static const struct opt pipe_opts[] = {
        OPT_CALL("--criterion", set_criterion, "C",
                 "throughput (default), energy (J/item) or tpe (throughput/energy);\n"
                 "energy and tpe need RAPL (and NVML with a GPU)"),
        OPT_CALL("--overhead", set_overhead, "F",
                 "training overhead bound, 0 < F < 1 or 5% (0.05)"),
        OPT_STRING("--config", struct pipe_cmd, o.config, "C",
                   "run one configuration, no training: DP-CG[:THREADS], DP-MG,\n"
                   "CP-CG[:THREADS][:STAGES], CP-MG[::STAGES] (STAGES: one 0/1 per\n"
                   "stage, 1 = GPU when idle); or baseline (train, then each stage on the\n"
                   "device where it ran faster, without falling back)"),
        OPT_UINT("--tokens", struct pipe_cmd, o.tokens, "N", 4096,
                 "items in flight (default 2(nC+1))"),
        OPT_FLAG("--explain", struct pipe_cmd, o.explain,
                 "print the measurements and every configuration's prediction"),
        OPT_FLAG("--validate", struct pipe_cmd, o.validate,
                 "also run every configuration and the baseline, and print\n"
                 "measured against predicted"),
        OPT_UINT("--validate-items", struct pipe_cmd, o.val_items, "N", 1e9,
                 "with --validate: each run takes items 0 .. N-1 (default: all)"),
        OPT_REAL("--validate-seconds", struct pipe_cmd, o.val_secs, "S", 3600,
                 "with --validate: each run takes items for S seconds at most"),
        OPT_FLAG("--json", struct pipe_cmd, json, "the report as one JSON object"),
        OPT_STRING("--gpu", struct pipe_cmd, o.gpu, "G",
                   "auto (default), none, cpu (a CPU core stands in), or a device\n"
                   "selector as <Device select> takes"),
        OPT_REAL("--tdp", struct pipe_cmd, o.tdp, "W", 1e6,
                 "the power budget in watts (default: the counters' limits)"),
        OPT_FLAG("--no-progress", struct pipe_cmd, no_progress,
                 "no progress line (there is one only on a terminal)"),
        OPT_END,
};

static const char usage_text[] =
        "pipeline [--criterion throughput|energy|tpe] [--overhead 0.05] "
        "[--config DP-CG|DP-MG|CP-CG|CP-MG[:THREADS][:STAGES]|baseline] [--tokens N] "
        "[--explain] [--validate [--validate-items N] [--validate-seconds S]] [--json] "
        "[--gpu auto|none|cpu|SELECTOR] [--tdp W] [--no-progress] PIPE.xml "
        "[NAME=VALUE]...";

static const char about[] =
        "Run a stream of items through a <CarshPipeline>: without --config, train on the\n"
        "first items (CG with 1 .. nC+1 threads, the GPU, MG), predict every\n"
        "configuration with the trained performance model and run the best; train\n"
        "again when the throughput changes and the overhead bound allows.";

static int parse_word(struct pipe_cmd *pc, const char *w, struct cs_err *e)
{
	const char *eq = strchr(w, '=');
	char *name;
	int rc = 0;

	if (!pc->file && !eq) {
		pc->file = w;
		return 0;
	}
	if (!eq || eq == w)
		return err_set(e, "pipeline: '%s': expected NAME=VALUE after the pipeline file", w);
	name = xstrndup(w, (size_t)(eq - w));
	if (!param_name_valid(name))
		rc = err_set(e, "pipeline: '%s' is not a valid parameter name", name);
	else
		params_set(&pc->args, name, eq + 1, "command line");
	free(name);
	return rc;
}

static int check_words(struct pipe_cmd *pc, int n, char **words, struct cs_err *e)
{
	for (int i = 0; i < n; i++)
		if (parse_word(pc, words[i], e))
			return -1;
	if (!pc->file)
		return err_set(e, "pipeline: no pipeline file given; usage: %s", usage_text);
	if (pc->o.val_items && !pc->o.validate)
		return err_set(e, "pipeline: --validate-items goes with --validate");
	if (pc->o.val_secs > 0 && !pc->o.validate)
		return err_set(e, "pipeline: --validate-seconds goes with --validate");
	return 0;
}

static void pipe_prepare(const struct run_ctx *c, void *args)
{
	struct pipe_cmd *pc = args;

	(void)c;
	pc->o.crit = PM_THROUGHPUT;
	pc->o.overhead = 0.05;
	pc->o.change = 0.25;
}

static void report(struct run_ctx *c, const struct pipe_result *res, void *arg)
{
	const struct pipe_cmd *pc = arg;

	if (pc->json)
		pipe_print_json(c->out, res);
	else
		pipe_print_text(c->out, res, pc->o.explain);
}

/* The run and its report: in the engine's child where there is one (runner/engineproc.h). */
static int pipeline_body(struct run_ctx *c, void *arg, struct cs_err *e)
{
	struct pipe_cmd *pc = arg;

	return run_pipeline(c, pc->file, &pc->args, &pc->o, report, pc, e);
}

static int pipe_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	struct pipe_cmd *pc = args;
	char *what;
	int rc;

	if (check_words(pc, n, words, e))
		rc = 2;
	else {
		pc->o.progress =
		        !pc->no_progress && !pc->json && !c->detached && isatty(STDERR_FILENO);
		what = xasprintf("pipeline: %s", pc->file);
		rc = engine_apart(c, what, pipeline_body, pc, e);
		free(what);
	}
	params_free(&pc->args);
	return rc;
}

const struct carsh_cmd cmd_pipeline = {
        .name = "pipeline",
        .summary = "run a stream of items through a pipeline of flow-models, mapped onto the "
                   "CPU cores and the GPU by a trained analytical model (thread executor)",
        .args = {.usage = usage_text,
                 .about = about,
                 .opts = pipe_opts,
                 .more = "Runs on the thread executor. See docs/pipeline.md.",
                 .flags = OPT_SAY_NEEDS_VALUE,
                 .min = 1,
                 .max = OPT_ANY,
                 .operand = "pipeline file"},
        .args_size = sizeof(struct pipe_cmd),
        .prepare = pipe_prepare,
        .run = pipe_run,
};
