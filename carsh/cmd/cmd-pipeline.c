/*
 * pipeline: a stream of items through a linear pipeline of flow-models, mapped onto the CPU
 * cores and the GPU by the configuration the analytical model of 000 predicts best, or by
 * one given (engines/pipeline.h, docs/pipeline.md). Like partition it runs on the thread
 * executor's runtime, so the shell stays on the thread executor afterwards.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "engines/pipeline/pipeline.h"
#include "model/pipeline.h"
#include "model/pipeplan.h"
#include "util/alloc.h"

struct pipe_cmd {
	struct pipe_opts o;
	bool json;
	bool no_progress;
	bool help;
	const char *file;
	struct params args; /* NAME=VALUE after the file */
};

static int parse_fraction(const char *v, double *out, struct cs_err *e)
{
	char *end;
	double p = v ? strtod(v, &end) : 0;

	if (v && end != v && strcmp(end, "%") == 0)
		p /= 100.0;
	else if (!v || end == v || *end)
		p = -1;
	if (!(p > 0 && p < 1))
		return err_set(e,
		               "pipeline: --overhead '%s': expected a fraction between 0 and 1 "
		               "(0.05) or a percentage (5%%)",
		               v ? v : "");
	*out = p;
	return 0;
}

static int parse_positive(const char *opt, const char *v, double max, double *out, struct cs_err *e)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !(x > 0 && x <= max))
		return err_set(e, "pipeline: %s '%s': expected a number above 0, at most %g", opt,
		               v, max);
	*out = x;
	return 0;
}

static bool is_flag(const char *name)
{
	static const char *const flags[] = {"--explain",     "--validate", "--json",
	                                    "--no-progress", "--help",     NULL};

	for (int i = 0; flags[i]; i++)
		if (strcmp(name, flags[i]) == 0)
			return true;
	return false;
}

static int set_flag(struct pipe_cmd *pc, const char *name)
{
	if (strcmp(name, "--explain") == 0)
		pc->o.explain = true;
	else if (strcmp(name, "--validate") == 0)
		pc->o.validate = true;
	else if (strcmp(name, "--json") == 0)
		pc->json = true;
	else if (strcmp(name, "--help") == 0)
		pc->help = true;
	else
		pc->no_progress = true;
	return 0;
}

static int set_value(struct pipe_cmd *pc, const char *name, const char *v, const char *word,
                     struct cs_err *e)
{
	double x;

	if (strcmp(name, "--criterion") == 0) {
		if (pm_criterion_parse(v, &pc->o.crit))
			return err_set(e,
			               "pipeline: --criterion '%s': expected throughput, energy or "
			               "tpe (throughput/energy)",
			               v);
	} else if (strcmp(name, "--overhead") == 0) {
		return parse_fraction(v, &pc->o.overhead, e);
	} else if (strcmp(name, "--config") == 0) {
		pc->o.config = v;
	} else if (strcmp(name, "--tokens") == 0) {
		if (parse_positive(name, v, 4096, &x, e))
			return -1;
		if (x != (double)(size_t)x)
			return err_set(e, "pipeline: --tokens '%s': expected a whole number", v);
		pc->o.tokens = (size_t)x;
	} else if (strcmp(name, "--validate-items") == 0) {
		if (parse_positive(name, v, 1e9, &x, e))
			return -1;
		if (x != (double)(size_t)x)
			return err_set(
			        e, "pipeline: --validate-items '%s': expected a whole number", v);
		pc->o.val_items = (size_t)x;
	} else if (strcmp(name, "--validate-seconds") == 0) {
		return parse_positive(name, v, 3600, &pc->o.val_secs, e);
	} else if (strcmp(name, "--gpu") == 0) {
		pc->o.gpu = v;
	} else if (strcmp(name, "--tdp") == 0) {
		return parse_positive(name, v, 1e6, &pc->o.tdp, e);
	} else {
		return err_set(e, "pipeline: unknown option '%s' (see 'help pipeline')", word);
	}
	return 0;
}

/* One option (with its value, from "--name=value" or the next word); *used: words taken. */
static int parse_option(struct pipe_cmd *pc, const char *word, const char *next, int *used,
                        struct cs_err *e)
{
	const char *eq = strchr(word, '=');
	const char *v = eq ? eq + 1 : next;
	char name[32];

	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - word) : (int)strlen(word), word);
	if (is_flag(name)) {
		*used = 1;
		if (eq)
			return err_set(e, "pipeline: %s takes no value", name);
		return set_flag(pc, name);
	}
	*used = eq ? 1 : 2;
	if (!v)
		return err_set(e, "pipeline: %s needs a value", name);
	return set_value(pc, name, v, word, e);
}

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

static int parse_args(struct pipe_cmd *pc, int argc, char **argv, struct cs_err *e)
{
	pc->o.crit = PM_THROUGHPUT;
	pc->o.overhead = 0.05;
	pc->o.change = 0.25;
	for (int i = 1; i < argc; i++) {
		int used;

		if (strncmp(argv[i], "--", 2) == 0) {
			if (parse_option(pc, argv[i], i + 1 < argc ? argv[i + 1] : NULL, &used, e))
				return -1;
			i += used - 1;
		} else if (parse_word(pc, argv[i], e)) {
			return -1;
		}
	}
	if (pc->help)
		return 0;
	if (!pc->file)
		return err_set(e, "pipeline: no pipeline file given (usage: pipeline [OPTIONS] "
		                  "PIPE.xml [NAME=VALUE]...)");
	if (pc->o.val_items && !pc->o.validate)
		return err_set(e, "pipeline: --validate-items goes with --validate");
	if (pc->o.val_secs > 0 && !pc->o.validate)
		return err_set(e, "pipeline: --validate-seconds goes with --validate");
	return 0;
}

extern const struct carsh_cmd cmd_pipeline;

/* `pipeline --help`: the usage, then what every option does (docs/pipeline.md has more). */
static void print_help(FILE *f)
{
	fprintf(f,
	        "usage: %s\n"
	        "Run a stream of items through a <CarshPipeline>: without --config, train on the\n"
	        "first items (CG with 1 .. nC+1 threads, the GPU, MG), predict every\n"
	        "configuration with the model of 000 and run the best; train again when the\n"
	        "throughput changes and the overhead bound allows.\n"
	        "  --criterion C       throughput (default), energy (J/item) or tpe "
	        "(throughput/energy);\n"
	        "                      energy and tpe need RAPL (and NVML with a GPU)\n"
	        "  --overhead F        training overhead bound of equation 2, 0 < F < 1 or "
	        "5%% (0.05)\n"
	        "  --config C          run one configuration, no training: DP-CG[:THREADS], "
	        "DP-MG,\n"
	        "                      CP-CG[:THREADS][:STAGES], CP-MG[::STAGES] (STAGES: one "
	        "0/1 per\n"
	        "                      stage, 1 = GPU when idle); or baseline (train, then "
	        "000 §VI-B)\n"
	        "  --tokens N          items in flight (default 2(nC+1))\n"
	        "  --explain           print the measurements and every configuration's "
	        "prediction\n"
	        "  --validate          also run every configuration and the baseline, and print\n"
	        "                      measured against predicted\n"
	        "  --validate-items N  with --validate: each run takes items 0 .. N-1 (default: "
	        "all)\n"
	        "  --validate-seconds S\n"
	        "                      with --validate: each run takes items for S seconds at "
	        "most\n"
	        "  --json              the report as one JSON object\n"
	        "  --gpu G             auto (default), none, cpu (a CPU core stands in), or a "
	        "device\n"
	        "                      selector as <Device select> takes\n"
	        "  --tdp W             the power budget of equation 8 (default: the counters' "
	        "limits)\n"
	        "  --no-progress       no progress line (there is one only on a terminal)\n"
	        "Runs on the thread executor. See docs/pipeline.md.\n",
	        cmd_pipeline.usage);
}

static void add_stats(struct run_ctx *c, const struct pipe_result *r)
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

static int run_pipeline(struct run_ctx *c, struct pipe_cmd *pc, const struct pipe_plan *pp,
                        struct cs_err *e)
{
	struct pipe_result res;
	struct pipe_env env;
	struct texec *t;
	int rc;

	/* From here OpenCL lives in this process: the shell stays on the thread executor. */
	c->s->thread_mode = true;
	t = session_texec(c->s);
	env = (struct pipe_env){texec_session(t), c->interrupted};
	pc->o.progress = !pc->no_progress && !pc->json && !c->detached && isatty(STDERR_FILENO);
	rc = pipeline_run(&env, pp, &pc->o, &res, e);
	if (rc)
		return cmd_prefix(e, rc, "pipeline: %s: ", pp->d->name);
	if (pc->json)
		pipe_print_json(c->out, &res);
	else
		pipe_print_text(c->out, &res, pc->o.explain);
	add_stats(c, &res);
	pipe_result_free(&res);
	return 0;
}

static int cmd_pipeline_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct pipe_cmd pc;
	struct pipe_desc *d = NULL;
	struct pipe_plan *pp = NULL;
	int rc;

	memset(&pc, 0, sizeof(pc));
	if (parse_args(&pc, argc, argv, e)) {
		params_free(&pc.args);
		return 2;
	}
	if (pc.help) {
		print_help(c->out);
		params_free(&pc.args);
		return 0;
	}
	if (pipe_desc_read(pc.file, &d, e) || pipe_plan_new(d, &pc.args, c->caller, &pp, e))
		rc = cmd_prefix(e, 1, "pipeline: ");
	else
		rc = run_pipeline(c, &pc, pp, e);
	pipe_plan_free(pp);
	pipe_desc_free(d);
	params_free(&pc.args);
	return rc;
}

const struct carsh_cmd cmd_pipeline = {
        .name = "pipeline",
        .usage = "pipeline [--criterion throughput|energy|tpe] [--overhead 0.05] "
                 "[--config DP-CG|DP-MG|CP-CG|CP-MG[:THREADS][:STAGES]|baseline] [--tokens N] "
                 "[--explain] [--validate [--validate-items N] [--validate-seconds S]] [--json] "
                 "[--gpu auto|none|cpu|SELECTOR] [--tdp W] [--no-progress] PIPE.xml "
                 "[NAME=VALUE]...",
        .summary = "run a stream of items through a pipeline of flow-models, mapped onto the "
                   "CPU cores and the GPU by a trained analytical model (thread executor)",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_pipeline_exec,
        .help = print_help,
};
