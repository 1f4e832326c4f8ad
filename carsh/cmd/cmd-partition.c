/*
 * partition: one data-parallel flow-model over every device of the machine, scheduled by
 * LogFit (003 §4) or a baseline of 003 §5.1 (engines/partition/partition.h, docs/partition.md),
 * run by runner/engines.h on the thread executor's runtime.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "util/alloc.h"
#include "util/options.h"
#include "runner/engineproc.h"
#include "runner/engines.h"

struct part_cmd {
	struct part_opts o;
	bool share_given;
	const char *trace;
	bool json;
	bool no_progress;
	const char *profile; /* --profile show|forget */
	const char *file;
	int nwords;
	char **words; /* NAME=VALUE and STREAM=FILE after the file, in order */
};

static int set_sched(void *args, const char *v, struct cs_err *e)
{
	struct part_cmd *pc = args;

	if (sched_parse(v, &pc->o.sched))
		return err_set(e, "expected logfit, static, concord, hdss, cpu, gpu or marrow");
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
                 "logfit (default), static, concord, hdss, cpu (the cores alone), gpu,\n"
                 "marrow (a binary search of one split, kept between runs)"),
        OPT_UINT("--threads", struct part_cmd, o.threads, "N", 4096,
                 "N-1 cores beside the GPUs, a thread each (1: the GPUs alone);\n"
                 "default: all"),
        OPT_CALL("--gpu-share", set_share, "P",
                 "static: the GPUs' percentage, or auto (default): profile 0-100 %"),
        OPT_UINT("--steps", struct part_cmd, o.steps, "S", 1e9,
                 "time steps, swapping the executable's swap pairs between them"),
        OPT_STRING("--trace", struct part_cmd, trace, "F.csv",
                   "one row per chunk: step, device, offset, size, start, end,\n"
                   "throughput, phase"),
        OPT_FLAG("--json", struct part_cmd, json, "the summary as one JSON line"),
        OPT_STRING("--gpu", struct part_cmd, o.gpu, "G",
                   "auto (default: every GPU), all (every GPU and accelerator), none,\n"
                   "cpu (a core stands in for a GPU), or selectors: 0,1"),
        OPT_FLAG("--no-progress", struct part_cmd, no_progress,
                 "no progress bar (it is drawn only on a terminal)"),
        OPT_STRING("--profile", struct part_cmd, profile, "A",
                   "show: the knowledge base logfit and marrow learn in; forget [EXE.xml]:\n"
                   "forget all of it, or one flow-model's"),
        OPT_END,
};

static const char usage_text[] =
        "partition [--sched logfit|static|concord|hdss|cpu|gpu|marrow] [--threads N] "
        "[--gpu-share P|auto] [--steps S] [--trace FILE.csv] [--json] "
        "[--gpu auto|all|none|cpu|SELECTOR[,SELECTOR]...] [--no-progress] "
        "[--profile show|forget] EXE.xml "
        "[NAME=VALUE | STREAM=FILE]...";

static const char about[] =
        "Runs the flow-model's work space in chunks (2-D and 3-D: of rows, planes) on\n"
        "every GPU and on single-core sub-devices of the CPU, one host thread each; chunk\n"
        "sizes follow each device's measured throughput.";

static void part_prepare(const struct run_ctx *c, void *args)
{
	struct part_cmd *pc = args;

	(void)c;
	pc->o.sched = SCHED_LOGFIT;
	pc->o.gpu_share = PART_SHARE_AUTO;
}

/* The operands, and the options that go together or not. */
static int check_args(struct part_cmd *pc, int n, char **operands, struct cs_err *e)
{
	if (pc->profile) {
		if (strcmp(pc->profile, "show") && strcmp(pc->profile, "forget"))
			return err_set(e, "partition: --profile '%s': expected show or forget",
			               pc->profile);
		if (n > (strcmp(pc->profile, "show") ? 1 : 0))
			return err_set(e, "partition: --profile %s: too many operands",
			               pc->profile);
		pc->file = n ? operands[0] : NULL;
		return 0;
	}
	if (n == 0)
		return err_set(e, "partition: no executable given; usage: %s", usage_text);
	pc->file = operands[0];
	pc->words = operands + 1;
	pc->nwords = n - 1;
	if (pc->share_given && pc->o.sched != SCHED_STATIC)
		return err_set(e, "partition: --gpu-share is for --sched static");
	if (part_gpu_sel_check(pc->o.gpu, e))
		return err_prefix(e, "partition: ");
	return 0;
}

/* The summary goes to standard output unless a stream writes there. */
static int report(struct run_ctx *c, const struct part_cmd *pc, const struct part_result *res,
                  bool stdout_taken, struct cs_err *e)
{
	FILE *f = stdout_taken ? stderr : c->out;

	if (pc->json)
		part_print_json(f, res);
	else
		part_print_summary(f, res);
	if (pc->trace && part_write_trace(pc->trace, res, e))
		return cmd_prefix(e, 1, "partition: --trace %s: ", pc->trace);
	return 0;
}

/* --profile show|forget: the knowledge base of runner/engines.h. */
static int profile(struct run_ctx *c, const struct part_cmd *pc, struct cs_err *e)
{
	char warn[400] = "";
	size_t gone = 0;
	int rc;

	if (strcmp(pc->profile, "show") == 0)
		rc = partition_profile_show(c->out, warn, sizeof(warn), e);
	else
		rc = partition_profile_forget(pc->file, &gone, warn, sizeof(warn), e);
	if (warn[0])
		fprintf(stderr, "partition: warning: %s\n", warn);
	if (rc)
		return 1;
	if (strcmp(pc->profile, "forget") == 0)
		fprintf(c->out, "forgot %zu entr%s\n", gone, gone == 1 ? "y" : "ies");
	return 0;
}

/* The run and its report: in the engine's child where there is one (runner/engineproc.h). */
static int partition_body(struct run_ctx *c, void *arg, struct cs_err *e)
{
	const struct part_cmd *pc = arg;
	struct part_opts o = pc->o;
	struct part_result res;
	bool stdout_taken = false;
	int rc;

	rc = run_partition(c, pc->file, pc->nwords, pc->words, &o, &res, &stdout_taken, e);
	if (rc == 0 && res.kb_warning[0])
		fprintf(stderr, "partition: warning: %s\n", res.kb_warning);
	if (rc == 0) {
		rc = report(c, pc, &res, stdout_taken, e);
		part_result_free(&res);
	}
	return rc;
}

static int part_run(struct run_ctx *c, void *args, int n, char **operands, struct cs_err *e)
{
	struct part_cmd *pc = args;
	char *what;
	int rc;

	if (check_args(pc, n, operands, e))
		return 2;
	if (pc->profile)
		return profile(c, pc, e);
	pc->o.progress = !pc->no_progress && !c->detached && isatty(STDERR_FILENO);
	what = xasprintf("partition: %s", pc->file);
	rc = engine_apart(c, what, partition_body, pc, e);
	free(what);
	return rc;
}

const struct carsh_cmd cmd_partition = {
        .name = "partition",
        .summary = "run a data-parallel flow-model on the GPU and every CPU core, chunks "
                   "scheduled by LogFit or a baseline (runs on the thread executor)",
        /* No operand is --profile show's; check_args says what is missing otherwise. */
        .args = {.usage = usage_text,
                 .about = about,
                 .opts = part_opts,
                 .more = "See docs/partition.md.",
                 .min = 0,
                 .max = OPT_ANY},
        .args_size = sizeof(struct part_cmd),
        .prepare = part_prepare,
        .run = part_run,
};
