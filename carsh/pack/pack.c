/* pack: read the batch, work out the data flow, write the packed files (pack.h). */
#include "pack/pack.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/path.h"

/* The NAME of NAME.packed.*: --name, else the batch's file name without .bat.xml (or
 * .xml); anything but letters, digits and '_' becomes '_'. */
static char *pack_name(const char *batch_file, const char *given)
{
	char *name;

	if (given) {
		name = xstrdup(given);
	} else {
		const char *base = path_basename(batch_file);
		size_t n = strlen(base);

		if (n > 8 && strcmp(base + n - 8, ".bat.xml") == 0)
			n -= 8;
		else if (n > 4 && strcmp(base + n - 4, ".xml") == 0)
			n -= 4;
		name = xstrndup(base, n);
	}
	for (char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			*p = '_';
	return name;
}

int pack_batch(const struct batch *b, const struct scope *scope, const struct params *shown,
               const struct pack_opts *opts, struct cs_err *e)
{
	struct pack pk = {0};
	int rc;

	pk.batch_file = xstrdup(b->file);
	pk.dir = xstrdup(opts->dir ? opts->dir : "");
	pk.name = pack_name(b->file, opts->name);
	params_copy(&pk.shown, shown);
	rc = pack_flow(&pk, b, scope, e);
	if (rc == 0)
		rc = pack_schedule(&pk, e);
	if (rc == 0)
		rc = pack_sources(&pk, e);
	if (rc == 0)
		pack_cases(&pk);
	if (rc == 0 && opts->dir)
		rc = pack_write(&pk, e);
	if (rc == 0 && opts->explain)
		pack_explain(&pk, opts->out);
	pack_free(&pk);
	return rc;
}

/* What flow.c made: the buffers, the Execs with their plans, the flow's operations. */
static void free_flow(struct pack *pk)
{
	for (size_t i = 0; i < pk->nphys; i++) {
		free(pk->phys[i].name);
		free(pk->phys[i].final_name);
	}
	free(pk->phys);
	for (size_t i = 0; i < pk->nexecs; i++) {
		struct pk_exec *x = &pk->execs[i];

		free(x->where);
		free(x->label);
		job_plan_free(x->jp);
		free(x->device_exe);
		free(x->phys);
		free(x->fn);
	}
	free(pk->execs);
	for (size_t i = 0; i < pk->nops; i++) {
		free(pk->ops[i].where);
		free(pk->ops[i].text);
	}
	free(pk->ops);
	free(pk->fill_values);
	sv_free(&pk->setup);
	sv_free(&pk->cleanup);
	sv_free(&pk->after);
	sv_free(&pk->notes);
	free(pk->partners);
}

static void free_sources(struct pack *pk)
{
	for (size_t i = 0; i < pk->nsources; i++) {
		struct pack_source *s = &pk->sources[i];

		free(s->text);
		free(s->name);
		clsrc_free(s->cl);
		free(s->map);
		sv_free(&s->names);
	}
	free(pk->sources);
	free(pk->build_options);
	free(pk->device_exe);
	free(pk->device_fm);
}

/* What scenario.c and the cases made: values, runs, slots, plain streams, cases. */
static void free_schedule(struct pack *pk)
{
	free(pk->vals);
	for (size_t i = 0; i < pk->nruns; i++) {
		struct pk_run *r = &pk->runs[i];

		free(r->where);
		free(r->uses);
		free(r->fills);
		free(r->ops);
		free(r->state);
	}
	free(pk->runs);
	for (size_t i = 0; i < pk->nslots; i++)
		free(pk->slots[i].name);
	free(pk->slots);
	for (size_t i = 0; i < pk->nplains; i++)
		free(pk->plains[i].name);
	free(pk->plains);
	for (size_t i = 0; i < pk->ncases; i++) {
		free(pk->cases[i].code);
		free(pk->cases[i].first);
		free(pk->cases[i].title);
	}
	free(pk->cases);
}

void pack_free(struct pack *pk)
{
	free(pk->batch_file);
	free(pk->name);
	free(pk->dir);
	params_free(&pk->shown);
	free_flow(pk);
	free_sources(pk);
	free_schedule(pk);
}
