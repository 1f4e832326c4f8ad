/*
 * pack: a batch's processing flow as one kernel driven by a scenario (004 §5.3,
 * scenario-based execution). Writes DIR/NAME.packed.cl, .packed.fm.xml, .packed.exe.xml,
 * .scenario.csv and .packed.bat.xml; --explain prints the scenario, the swap pairs and which
 * run writes which slot. docs/pack.md says what it accepts.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/options.h"
#include "model/batch.h"
#include "pack/pack.h"
#include "util/alloc.h"

static const char usage_text[] = "pack BATCH.xml -o DIR [--name NAME] [--explain] [NAME=VALUE...]";
static const char summary[] = "pack a batch's flow into one kernel driven by a scenario";

static const struct opt pack_opts[] = {
        OPT_STRING("-o", struct pack_opts, dir, "DIR",
                   "write NAME.packed.cl, .packed.fm.xml, .packed.exe.xml, .scenario.csv\n"
                   "and .packed.bat.xml into DIR"),
        OPT_STRING("--name", struct pack_opts, name, "NAME",
                   "the files' NAME (default: the batch's file name)"),
        OPT_FLAG("--explain", struct pack_opts, explain,
                 "print the scenario, the swap pairs and which run writes which slot"),
        OPT_END,
};

static int add_word(const char *w, struct params *args, struct cs_err *e)
{
	const char *eq = strchr(w, '=');
	char *name;

	if (!eq || eq == w)
		return err_set(e, "'%s': expected NAME=VALUE (or -o DIR, --name NAME, --explain)",
		               w);
	name = xstrndup(w, (size_t)(eq - w));
	if (!param_name_valid(name)) {
		err_set(e, "'%s' is not a valid parameter name", name);
		free(name);
		return -1;
	}
	params_set(args, name, eq + 1, "command line");
	free(name);
	return 0;
}

/* What the packed batch records as its <Param>s: the batch's own and the caller's
 * NAME=VALUE, with the values the batch's scope gives them, and BATCH_DIR. */
static void shown_params(const struct batch *b, const struct params *args, const struct scope *sc,
                         struct params *shown)
{
	char real[PATH_MAX];

	for (size_t i = 0; i < b->params.n; i++)
		params_set(shown, b->params.v[i].name, scope_get(sc, b->params.v[i].name)->value,
		           NULL);
	for (size_t i = 0; i < args->n; i++)
		params_set(shown, args->v[i].name, args->v[i].value, NULL);
	params_set(shown, "BATCH_DIR", realpath(b->dir, real) ? real : b->dir, NULL);
}

/* The batch and its NAME=VALUE words among the operands. */
static int pack_words(int n, char **words, const char **file, struct params *args, struct cs_err *e)
{
	for (int i = 0; i < n; i++) {
		if (!*file && !strchr(words[i], '='))
			*file = words[i];
		else if (add_word(words[i], args, e))
			return err_prefix(e, "pack: ");
	}
	if (!*file)
		return err_set(e, "pack: which batch?");
	return 0;
}

static int pack_file(struct run_ctx *c, const char *file, const struct params *args,
                     const struct pack_opts *o, struct cs_err *e)
{
	struct params dir = PARAMS_INIT, shown = PARAMS_INIT;
	struct batch *b = NULL;
	struct scope sc;
	char *root;
	int rc = 1;

	if (!(root = xml_root_name(file, e)))
		return 1;
	if (strcmp(root, "CarshBat") != 0) {
		err_set(e, "%s: <%s>: pack takes a batch (<CarshBat>)", file, root);
		free(root);
		return 1;
	}
	free(root);
	if (batch_read(file, &b, e))
		return 1;
	/* the scope the batch runner gives the batch's steps */
	batch_scope(&sc, args, c->caller, b, &dir);
	shown_params(b, args, &sc, &shown);
	if (pack_batch(b, &sc, &shown, o, e) == 0)
		rc = 0;
	else
		err_prefix(e, "pack: ");
	batch_free(b);
	params_free(&dir);
	params_free(&shown);
	return rc;
}

static void pack_prepare(const struct run_ctx *c, void *args)
{
	((struct pack_opts *)args)->out = c->out;
}

static int pack_run(struct run_ctx *c, void *args, int n, char **words, struct cs_err *e)
{
	const struct pack_opts *o = args;
	struct params params = PARAMS_INIT;
	const char *file = NULL;
	int rc = pack_words(n, words, &file, &params, e);

	if (rc == 0 && !o->dir && !o->explain)
		rc = err_set(e, "pack: give -o DIR or --explain");
	if (rc) {
		char *m = xasprintf("%s (usage: %s)", e->msg, usage_text);

		rc = cmd_error(e, 2, "%s", m);
		free(m);
	} else {
		rc = pack_file(c, file, &params, o, e);
	}
	params_free(&params);
	return rc;
}

const struct carsh_cmd cmd_pack = {
        .name = "pack",
        .summary = summary,
        .args = {.usage = usage_text, .opts = pack_opts, .min = 1, .max = OPT_ANY},
        .args_size = sizeof(struct pack_opts),
        .prepare = pack_prepare,
        .run = pack_run,
};
