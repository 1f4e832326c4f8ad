/* libFuzzer target: the <CarshPipeline> reader, then what `pipeline` evaluates before it runs
 * an item: the plan (item buffers' sizes, each stage's flow-model bound to them, the source's
 * files or generator, the sink), the generator's plan and the sink's file names of the first
 * and last items. The reader takes a path, so each input is written to a file in a directory
 * of its own, two levels below links to the shipped flowmodels/ and kernels/, where the
 * "../../flowmodels/..." of the shipped pipelines lead. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "model/filecache.h"
#include "model/pipespec.h"
#include "model/pipeplan.h"

static char *top_dir, *input_path;

static void remove_dir(void)
{
	static const char *const parts[] = {"a/b/fuzz.xml", "a/b",     "a",
	                                    "flowmodels",   "kernels", ""};

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		char *p = xasprintf("%s/%s", top_dir, parts[i]);

		(void)remove(p);
		free(p);
	}
}

/* $FUZZ_DIR is examples/pipeline of the source tree. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("FUZZ_DIR");
	char tmpl[] = "/tmp/carsh-fuzz-pipeline-XXXXXX";
	char *top = mkdtemp(tmpl);

	(void)argc;
	(void)argv;
	if (!top || !dir)
		abort();
	top_dir = xstrdup(top);
	atexit(remove_dir);
	for (int i = 0; i < 2; i++) {
		static const char *const names[] = {"flowmodels", "kernels"};
		char *link = xasprintf("%s/%s", top, names[i]);
		char *target = xasprintf("%s/../../%s", dir, names[i]);

		if (symlink(target, link) != 0)
			abort();
		free(link);
		free(target);
	}
	input_path = xasprintf("%s/a/b/fuzz.xml", top);
	{
		char *a = xasprintf("%s/a", top), *b = xasprintf("%s/a/b", top);

		if (mkdir(a, 0700) != 0 || mkdir(b, 0700) != 0)
			abort();
		free(a);
		free(b);
	}
	return 0;
}

static void plan(const struct pipe_desc *d, struct cs_err *e)
{
	struct params args = PARAMS_INIT;
	struct pipe_plan *pp;

	params_set(&args, "COUNT", "3", "fuzz");
	if (pipe_plan_new(d, &args, NULL, &pp, e) == 0) {
		struct job_plan *jp;

		if (!pp->files && pipe_plan_generator(pp, 0, &jp, e) == 0)
			job_plan_free(jp);
		if (pp->items > 0) {
			free(pipe_plan_item_name(pp, 0));
			free(pipe_plan_sink_path(pp, 0));
			free(pipe_plan_sink_path(pp, pp->items - 1));
		}
		pipe_plan_free(pp);
	}
	params_free(&args);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(input_path, "w");
	struct pipe_desc *d;
	struct cs_err e;

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	if (pipe_desc_read(input_path, &d, &e) == 0) {
		plan(d, &e);
		pipe_desc_free(d);
	}
	/* The file cache keeps every flow-model an input named; start afresh each time. */
	filecache_clear();
	return 0;
}
