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
#include "model/batch.h"
#include "pack/pack.h"
#include "util/alloc.h"

extern const struct carsh_cmd cmd_pack;

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

static int cmd_pack_exec(struct run_ctx *c, int argc, char **argv, struct cs_err *e)
{
	struct pack_opts o = {NULL, NULL, false, c->out};
	struct params args = PARAMS_INIT, dir = PARAMS_INIT, shown = PARAMS_INIT;
	const char *file = NULL;
	struct batch *b = NULL;
	struct scope sc;
	char *root;
	int rc = 1;

	for (int i = 1; i < argc; i++) {
		if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--name") == 0) &&
		    i + 1 >= argc) {
			err_set(e, "pack: %s needs a value", argv[i]);
			goto usage;
		} else if (strcmp(argv[i], "-o") == 0) {
			o.dir = argv[++i];
		} else if (strcmp(argv[i], "--name") == 0) {
			o.name = argv[++i];
		} else if (strcmp(argv[i], "--explain") == 0) {
			o.explain = true;
		} else if (!file && !strchr(argv[i], '=')) {
			file = argv[i];
		} else if (add_word(argv[i], &args, e)) {
			err_prefix(e, "pack: ");
			goto usage;
		}
	}
	if (!file || (!o.dir && !o.explain)) {
		err_set(e, "pack: %s", !file ? "which batch?" : "give -o DIR or --explain");
		goto usage;
	}
	if (!(root = xml_root_name(file, e)))
		goto done;
	if (strcmp(root, "CarshBat") != 0) {
		err_set(e, "%s: <%s>: pack takes a batch (<CarshBat>)", file, root);
		free(root);
		goto done;
	}
	free(root);
	if (batch_read(file, &b, e))
		goto done;
	/* the scope the batch runner gives the batch's steps */
	batch_scope(&sc, &args, c->caller, b, &dir);
	shown_params(b, &args, &sc, &shown);
	if (pack_batch(b, &sc, &shown, &o, e) == 0)
		rc = 0;
	else
		err_prefix(e, "pack: ");
	goto done;
usage:
	rc = 2;
	{
		char *m = xasprintf("%s (usage: %s)", e->msg, cmd_pack.usage);

		err_set(e, "%s", m);
		free(m);
	}
done:
	batch_free(b);
	params_free(&args);
	params_free(&dir);
	params_free(&shown);
	return rc;
}

const struct carsh_cmd cmd_pack = {
        .name = "pack",
        .usage = "pack BATCH.xml -o DIR [--name NAME] [--explain] [NAME=VALUE...]",
        .summary = "pack a batch's flow into one kernel driven by a scenario (004 §5.3)",
        .min_args = 1,
        .max_args = -1,
        .exec = cmd_pack_exec,
};
