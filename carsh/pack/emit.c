/*
 * What pack writes (004 §5.3.2, Figure 47): the merged OpenCL source with one kernel that
 * switches on scenario[index[0]] (Figure 46), its flow-model, the executable with the swap
 * pairs and <Swap count="runs - 1">, the scenario CSV, and the packed batch; and the
 * --explain report.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/xmltext.h"
#include "util/relpath.h"
#include "pack/pack.h"
#include "util/alloc.h"
#include "util/atomicfile.h"
#include "util/path.h"

/* ---- literals ---- */

static void scalar_literal(struct strbuf *sb, enum scalar s, const unsigned char *p)
{
	union {
		int8_t i8;
		uint8_t u8;
		int16_t i16;
		uint16_t u16;
		int32_t i32;
		uint32_t u32;
		int64_t i64;
		uint64_t u64;
	} v;

	memcpy(&v, p, scalar_size(s));
	switch (s) {
	case SC_CHAR:
		sb_addf(sb, "(char)(%d)", v.i8);
		break;
	case SC_UCHAR:
		sb_addf(sb, "(uchar)%uu", v.u8);
		break;
	case SC_SHORT:
		sb_addf(sb, "(short)(%d)", v.i16);
		break;
	case SC_USHORT:
		sb_addf(sb, "(ushort)%uu", v.u16);
		break;
	case SC_INT:
		if (v.i32 == INT32_MIN)
			sb_adds(sb, "(int)(-2147483647 - 1)");
		else
			sb_addf(sb, "(int)(%" PRId32 ")", v.i32);
		break;
	case SC_UINT:
		sb_addf(sb, "%" PRIu32 "u", v.u32);
		break;
	case SC_LONG:
		if (v.i64 == INT64_MIN)
			sb_adds(sb, "(long)(-9223372036854775807L - 1)");
		else
			sb_addf(sb, "(long)(%" PRId64 "L)", v.i64);
		break;
	case SC_ULONG:
		sb_addf(sb, "%" PRIu64 "UL", v.u64);
		break;
	case SC_FLOAT:
		/* the bits themselves: exact, and no doubt about rounding */
		sb_addf(sb, "as_float(0x%08" PRIx32 "u)", v.u32);
		break;
	case SC_DOUBLE:
		sb_addf(sb, "as_double(0x%016" PRIx64 "UL)", v.u64);
		break;
	case SC_COUNT:
		break;
	}
}

char *pack_literal(struct cs_type t, const unsigned char *bytes)
{
	struct strbuf sb = STRBUF_INIT;
	char tn[16];

	if (t.width == 1) {
		scalar_literal(&sb, t.scalar, bytes);
		return sb_detach(&sb);
	}
	sb_addf(&sb, "(%s)(", type_name(t, tn, sizeof(tn)));
	for (unsigned i = 0; i < t.width; i++) {
		if (i)
			sb_adds(&sb, ", ");
		scalar_literal(&sb, t.scalar, bytes + i * scalar_size(t.scalar));
	}
	sb_addc(&sb, ')');
	return sb_detach(&sb);
}

/* "1,2,3,4": a value for <Fill value=...>. */
static char *fill_text(struct cs_type t, const unsigned char *bytes)
{
	struct strbuf sb = STRBUF_INIT;
	char num[NUMBER_BUF];

	for (unsigned i = 0; i < t.width; i++) {
		if (i)
			sb_addc(&sb, ',');
		number_format(t.scalar, bytes + i * scalar_size(t.scalar), num, sizeof(num));
		sb_adds(&sb, num);
	}
	return sb_detach(&sb);
}

/* ---- sources ---- */

static bool name_in(const struct strvec *sv, const char *name)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], name) == 0)
			return true;
	return false;
}

static size_t source_of(struct pack *pk, const struct kernel_plan *kp, struct cs_err *e, int *rc)
{
	struct pack_source *src;

	for (size_t i = 0; i < pk->nsources; i++)
		if (strcmp(pk->sources[i].text, kp->source) == 0)
			return i;
	pk->sources = xgrow(pk->sources, &pk->src_cap, pk->nsources + 1, sizeof(*pk->sources));
	src = memset(&pk->sources[pk->nsources], 0, sizeof(*src));
	src->text = xstrdup(kp->source);
	src->name = xstrdup(kp->source_name);
	if (clsrc_parse(src->text, path_basename(src->name), &src->cl, e)) {
		*rc = -1;
		free(src->text);
		free(src->name);
		return 0;
	}
	return pk->nsources++;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_range(const struct kernel_plan *a, const struct kernel_plan *b)
{
	if (a->dims != b->dims || a->has_local != b->has_local)
		return false;
	for (unsigned d = 0; d < a->dims; d++)
		if (a->global[d] != b->global[d] || (a->has_local && a->local[d] != b->local[d]))
			return false;
	return true;
}

static void range_text(const struct kernel_plan *kp, char *buf, size_t n)
{
	size_t at = 0;

	for (unsigned d = 0; d < kp->dims && at < n; d++)
		at += (size_t)snprintf(buf + at, n - at, "%s%zu", d ? ", " : "", kp->global[d]);
	if (kp->has_local && at < n) {
		at += (size_t)snprintf(buf + at, n - at, " (local ");
		for (unsigned d = 0; d < kp->dims && at < n; d++)
			at += (size_t)snprintf(buf + at, n - at, "%s%zu", d ? ", " : "",
			                       kp->local[d]);
		if (at < n)
			snprintf(buf + at, n - at, ")");
	}
}

static size_t total_items(const struct kernel_plan *kp)
{
	size_t t = 1;

	for (unsigned d = 0; d < kp->dims; d++)
		t *= kp->global[d];
	return t;
}

/* A step of another size than the first runs on the first work-items of the packed kernel,
 * which keeps no work-groups: it may take no Local argument and use no work-group
 * function. */
static int check_no_groups(const struct pack *pk, const struct pk_exec *x, struct cs_err *e)
{
	const struct pk_exec *x0 = &pk->execs[0];
	const struct kernel_plan *kp = &x->jp->kp;
	char feat[512], r0[96], r1[96];
	char *what = NULL;
	int rc;

	for (size_t a = 0; a < kp->nargs && !what; a++)
		if (kp->args[a].kind == ARG_LOCAL)
			what = xasprintf("takes the Local argument '%s'", kp->args[a].name);
	if (!what && clsrc_group_feature(pk->sources[x->source].cl, kp->kernel, feat, sizeof(feat)))
		what = xasprintf("uses %s", feat);
	if (!what)
		return 0;
	range_text(kp, r0, sizeof(r0));
	range_text(&x0->jp->kp, r1, sizeof(r1));
	rc = err_set(e,
	             "%s: work size %s differs from %s of %s, and kernel '%s' %s: pack runs "
	             "steps of different sizes on the work-items of the largest, which keeps no "
	             "work-groups; give every step the same <WorkSize> to pack it",
	             x->where, r0, r1, x0->where, kp->kernel, what);
	free(what);
	return rc;
}

/* Every step's own NDRange, the same for all: the packed kernel's. */
static void uniform_range(struct pack *pk, const struct kernel_plan *k0)
{
	pk->dims = k0->dims;
	pk->has_local = k0->has_local;
	pk->G = 1;
	for (unsigned d = 0; d < 3; d++) {
		pk->global[d] = d < k0->dims ? k0->global[d] : 1;
		pk->local[d] = d < k0->dims ? k0->local[d] : 1;
		pk->G *= pk->global[d];
	}
}

/* 004 §5.3.3: the packed kernel runs as many work-items as the largest step; a step with
 * fewer runs on the first ones and sees its own NDRange (pk_range). */
static int largest_range(struct pack *pk, struct cs_err *e)
{
	pk->dims = 1;
	pk->has_local = false;
	pk->G = 0;
	for (size_t i = 0; i < pk->nexecs; i++) {
		const struct kernel_plan *kp = &pk->execs[i].jp->kp;

		if (total_items(kp) > pk->G)
			pk->G = total_items(kp);
		if (check_no_groups(pk, &pk->execs[i], e))
			return -1;
	}
	pk->global[0] = pk->G;
	pk->global[1] = pk->global[2] = 1;
	return 0;
}

/* Every Exec runs the same way: one program, one device, one NDRange or bounded steps. */
static int check_steps(struct pack *pk, struct cs_err *e)
{
	const struct pk_exec *x0 = &pk->execs[0];
	const struct kernel_plan *k0 = &x0->jp->kp;

	pk->uniform = true;
	for (size_t i = 0; i < pk->nexecs; i++)
		if (kernel_plan_refuse_images(&pk->execs[i].jp->kp, "pack",
		                              "leave it out of the pack", e))
			return err_prefix(e, "%s: ", pk->execs[i].where);
	for (size_t i = 0; i < pk->nexecs; i++)
		for (size_t a = 0; a < pk->execs[i].jp->kp.nargs; a++)
			if (pk->execs[i].jp->kp.args[a].record)
				return err_set(
				        e,
				        "%s: <%s name=\"%s\"> is a stream of struct %s; pack "
				        "carries streams of the scalar and vector types only",
				        pk->execs[i].where,
				        arg_kind_name(pk->execs[i].jp->kp.args[a].kind),
				        pk->execs[i].jp->kp.args[a].name,
				        pk->execs[i].jp->kp.args[a].record->name);
			else if (pk->execs[i].jp->kp.args[a].is_struct)
				return err_set(
				        e,
				        "%s: <Constant name=\"%s\"> is a struct; pack writes "
				        "constants as literals of the scalar and vector types only",
				        pk->execs[i].where, pk->execs[i].jp->kp.args[a].name);
	for (size_t i = 1; i < pk->nexecs; i++) {
		const struct pk_exec *x = &pk->execs[i];
		const struct kernel_plan *kp = &x->jp->kp;

		if (strcmp(kp->build_options, k0->build_options) != 0)
			return err_set(e,
			               "%s: <BuildOptions> '%s' differ from '%s' of %s; the packed "
			               "kernel is built once, with one set of options",
			               x->where, kp->build_options, k0->build_options, x0->where);
		if (!same_str(x->device_exe, x0->device_exe) ||
		    !same_str(kp->device_fm, k0->device_fm))
			return err_set(e,
			               "%s: chooses another device (<Device>/<RuntimeType device>) "
			               "than %s; the packed kernel runs on one",
			               x->where, x0->where);
		if (!same_range(kp, k0))
			pk->uniform = false;
	}
	pk->build_options = xstrdup(k0->build_options);
	pk->device_exe = x0->device_exe ? xstrdup(x0->device_exe) : NULL;
	pk->device_fm = k0->device_fm ? xstrdup(k0->device_fm) : NULL;
	if (!pk->uniform)
		return largest_range(pk, e);
	uniform_range(pk, k0);
	return 0;
}

static bool taken_name(struct pack *pk, size_t upto, const char *name, const char *kernel)
{
	if (strcmp(name, kernel) == 0 || strncmp(name, "pk_", 3) == 0)
		return true;
	for (size_t i = 0; i < upto; i++) {
		const struct pack_source *s = &pk->sources[i];

		if (name_in(&s->names, name) || name_in(&s->cl->globals, name))
			return true;
	}
	return false;
}

/* Rename what would clash: kernels become NAME__step; a function that an earlier source
 * also defines gets __sK. Types and variables cannot be renamed: a clash is refused. */
static int rename_sources(struct pack *pk, const char *kernel, struct cs_err *e)
{
	for (size_t k = 0; k < pk->nsources; k++) {
		struct pack_source *s = &pk->sources[k];
		const struct cl_src *cl = s->cl;
		char buf[256];
		int line;

		if (clsrc_find_prefix(cl, "pk_", &line, buf, sizeof(buf)))
			return err_set(
			        e,
			        "%s:%d: '%s': pack names its own code pk_..., so the kernels "
			        "it packs must not use that prefix",
			        s->name, line, buf);
		for (size_t g = 0; g < cl->globals.n; g++)
			for (size_t j = 0; j < k; j++)
				if (name_in(&pk->sources[j].cl->globals, cl->globals.v[g]) ||
				    clsrc_defines_fn(pk->sources[j].cl, cl->globals.v[g]))
					return err_set(
					        e,
					        "%s and %s both define '%s': pack puts the "
					        "sources of all steps into one program, and only "
					        "functions can be renamed there",
					        pk->sources[j].name, s->name, cl->globals.v[g]);
		s->map = xcalloc(cl->nfns + 1, sizeof(*s->map));
		for (size_t f = 0; f < cl->nfns; f++) {
			const struct cl_fn *fn = &cl->fns[f];
			char *to;
			bool done = false;

			for (size_t m = 0; m < s->nmap && !done; m++)
				done = strcmp(s->map[m].from, fn->name) == 0;
			if (done)
				continue;
			to = fn->kernel ? xasprintf("%s__step", fn->name) : xstrdup(fn->name);
			for (int n = 2; taken_name(pk, k, to, kernel) ||
			                (fn->kernel && clsrc_defines_fn(cl, to));
			     n++) {
				free(to);
				to = xasprintf("%s__%s%d", fn->name, fn->kernel ? "step" : "s", n);
			}
			sv_push_owned(&s->names, to);
			s->map[s->nmap++] = (struct cl_rename){fn->name, to};
		}
	}
	return 0;
}

/* The source and the kernel of an Exec, as pack can merge them. */
static int exec_source(struct pack *pk, struct pk_exec *x, struct cs_err *e)
{
	const struct kernel_plan *kp = &x->jp->kp;
	int rc = 0, line;

	x->source = source_of(pk, kp, e, &rc);
	if (rc)
		return err_prefix(e, "%s: ", x->where);
	x->cl = clsrc_kernel(pk->sources[x->source].cl, kp->kernel);
	if (!x->cl)
		return err_set(e,
		               "%s: pack finds no '__kernel void %s(...)' in %s (the __kernel "
		               "qualifier must be written out, not made by a macro)",
		               x->where, kp->kernel, kp->source_name);
	if (x->cl->nparams != kp->nargs)
		return err_set(
		        e, "%s: kernel '%s' in %s takes %zu arguments; the flow-model gives %zu",
		        x->where, kp->kernel, kp->source_name, x->cl->nparams, kp->nargs);
	if (clsrc_local_variable(pk->sources[x->source].cl, kp->kernel, &line))
		return err_set(
		        e,
		        "%s: kernel '%s' declares __local memory in its body (%s:%d); OpenCL "
		        "C allows that only in kernels, and pack turns every kernel into a "
		        "function: pass it as a <Local> argument instead",
		        x->where, kp->kernel, kp->source_name, line);
	return 0;
}

/* Local arguments (same NDRange only): shared areas, the k-th of each step in the k-th, as
 * large as the largest, in long16 so that any type is aligned. */
static void share_locals(struct pack *pk)
{
	for (size_t i = 0; i < pk->nexecs; i++) {
		const struct kernel_plan *kp = &pk->execs[i].jp->kp;
		size_t k = 0;

		for (size_t a = 0; a < kp->nargs; a++) {
			size_t n;
			struct cs_type l16 = {SC_LONG, 16};
			size_t p, seen = 0;

			if (kp->args[a].kind != ARG_LOCAL)
				continue;
			n = (kp->args[a].bytes + 127) / 128;
			for (p = 0; p < pk->nplains; p++)
				if (pk->plains[p].how == PL_LOCAL && seen++ == k)
					break;
			if (p == pk->nplains)
				p = (size_t)pack_new_plain(pk, PL_LOCAL, "local", l16, n, -1);
			if (pk->plains[p].count < n)
				pk->plains[p].count = n;
			k++;
		}
	}
}

int pack_sources(struct pack *pk, struct cs_err *e)
{
	char *kernel;
	int rc;

	for (size_t i = 0; i < pk->nexecs; i++)
		if (exec_source(pk, &pk->execs[i], e))
			return -1;
	if (check_steps(pk, e))
		return -1;
	kernel = xasprintf("%s_packed", pk->name);
	rc = rename_sources(pk, kernel, e);
	free(kernel);
	if (rc)
		return rc;
	for (size_t i = 0; i < pk->nexecs; i++) {
		struct pk_exec *x = &pk->execs[i];
		const struct pack_source *s = &pk->sources[x->source];

		for (size_t m = 0; m < s->nmap; m++)
			if (strcmp(s->map[m].from, x->jp->kp.kernel) == 0)
				x->fn = xstrdup(s->map[m].to);
	}
	share_locals(pk);
	return 0;
}

/* ---- the merged kernel ---- */

static void stream_ref(struct strbuf *sb, const struct pack *pk, int v, bool out)
{
	const struct pk_val *val = &pk->vals[v];

	if (val->loc == VL_SLOT)
		sb_addf(sb, "pk_%s_%s", pk->slots[val->slot].name, out ? "out" : "in");
	else
		sb_addf(sb, "pk_%s", pk->plains[val->plain].name);
}

static const struct pk_use *use_of(const struct pk_run *r, size_t arg)
{
	for (size_t k = 0; k < r->nuses; k++)
		if (r->uses[k].arg == arg)
			return &r->uses[k];
	return NULL;
}

/* The arguments of a step's call, one per line after the first. */
static void call_args(struct strbuf *sb, const struct pack *pk, const struct pk_run *r,
                      const char *indent)
{
	const struct pk_exec *x = &pk->execs[r->exec];
	const struct kernel_plan *kp = &x->jp->kp;
	size_t nlocal = 0;

	for (size_t a = 0; a < kp->nargs; a++) {
		const struct kernel_arg *ka = &kp->args[a];
		const struct cl_param *cp = &x->cl->params[a];
		const struct pk_use *u = use_of(r, a);

		if (a || !pk->uniform)
			sb_addf(sb, ",\n%s", indent);
		if (cp->pointer) {
			/* as the parameter is declared; a __constant one became __global const */
			sb_addc(sb, '(');
			if (cp->space == CS_CONSTANT) {
				const char *t = cp->type;

				sb_adds(sb, "__global const");
				t += strncmp(t, "__constant", 10) == 0 ? 10 : 8;
				sb_adds(sb, t);
			} else {
				sb_adds(sb, cp->type);
			}
			sb_addc(sb, ')');
		}
		if (ka->kind == ARG_CONSTANT) {
			char *lit = pack_literal(ka->type, ka->value);

			sb_adds(sb, lit);
			free(lit);
		} else if (ka->kind == ARG_LOCAL) {
			size_t seen = 0;

			for (size_t p = 0; p < pk->nplains; p++)
				if (pk->plains[p].how == PL_LOCAL && seen++ == nlocal)
					sb_addf(sb, "pk_%s", pk->plains[p].name);
			nlocal++;
		} else if (ka->kind == ARG_INPUT) {
			stream_ref(sb, pk, u->in, false);
		} else {
			/* Output, and InOut in place on the slot's output */
			stream_ref(sb, pk, u->out, true);
		}
	}
}

static char *case_code(const struct pack *pk, const struct pk_run *r)
{
	struct strbuf sb = STRBUF_INIT;

	if (r->exec >= 0) {
		const struct pk_exec *x = &pk->execs[r->exec];
		const struct kernel_plan *kp = &x->jp->kp;
		size_t total = total_items(kp);

		if (pk->uniform) {
			sb_addf(&sb, "\t\t%s(", x->fn);
			call_args(&sb, pk, r, "\t\t    ");
			sb_adds(&sb, ");\n");
		} else {
			if (total < pk->G)
				sb_addf(&sb, "\t\tif (pk_l < %zu) {\n", total);
			else
				sb_adds(&sb, "\t\t{\n");
			sb_addf(&sb, "\t\t\tconst pk_range pk_r = {pk_l, %zu, %zu, %zu, %u};\n",
			        kp->global[0], kp->dims > 1 ? kp->global[1] : 1,
			        kp->dims > 2 ? kp->global[2] : 1, kp->dims);
			sb_addf(&sb, "\t\t\t%s(pk_r", x->fn);
			call_args(&sb, pk, r, "\t\t\t    ");
			sb_adds(&sb, ");\n\t\t}\n");
		}
	}
	for (size_t k = 0; k < r->nops; k++) {
		const struct pk_op *op = &r->ops[k];
		const struct pk_val *v = &pk->vals[op->val];
		char *lit;

		switch (op->kind) {
		case PO_PASS:
			sb_addf(&sb, "\t\tPK_COPY(pk_%s_out, pk_%s_in, %zu);\n",
			        pk->slots[op->slot].name, pk->slots[op->slot].name, v->count);
			break;
		case PO_FILL:
			lit = pack_literal(v->type, pk->fill_values[v->fill]);
			if (op->slot >= 0)
				sb_addf(&sb, "\t\tPK_FILL(pk_%s_out, %s, %zu);\n",
				        pk->slots[op->slot].name, lit, v->count);
			else
				sb_addf(&sb, "\t\tPK_FILL(pk_%s, %s, %zu);\n",
				        pk->plains[op->plain].name, lit, v->count);
			free(lit);
			break;
		case PO_SAVE:
			sb_addf(&sb, "\t\tPK_COPY(pk_%s, pk_%s_in, %zu);\n",
			        pk->plains[op->plain].name, pk->slots[op->slot].name, v->count);
			break;
		}
	}
	return sb_detach(&sb);
}

static void make_cases(struct pack *pk)
{
	for (size_t i = 0; i < pk->nruns; i++) {
		struct pk_run *r = &pk->runs[i];
		char *code = case_code(pk, r);
		size_t c;

		for (c = 0; c < pk->ncases; c++)
			if (strcmp(pk->cases[c].code, code) == 0)
				break;
		if (c == pk->ncases) {
			pk->cases =
			        xgrow(pk->cases, &pk->case_cap, pk->ncases + 1, sizeof(*pk->cases));
			pk->cases[c].code = code;
			pk->cases[c].first = xstrdup(r->where);
			pk->cases[c].title = r->exec >= 0
			                             ? xstrdup(pk->execs[r->exec].jp->kp.kernel)
			                             : xstrdup("(copy)");
			pk->ncases++;
		} else {
			free(code);
		}
		r->kase = (int)c;
	}
}

static const char *kind_decl(enum plain_kind k)
{
	return k == PL_INIT || k == PL_FILL ? "__global const" : "__global";
}

static void kernel_params(struct strbuf *sb, const struct pack *pk)
{
	char tn[16];

	sb_adds(sb, "__global const int *pk_scenario, __global const int *pk_index_in,\n"
	            "\t__global int *pk_index_out");
	for (size_t s = 0; s < pk->nslots; s++) {
		const struct pk_slot *sl = &pk->slots[s];

		type_name(sl->type, tn, sizeof(tn));
		sb_addf(sb, ",\n\t__global const %s *pk_%s_in, __global %s *pk_%s_out", tn,
		        sl->name, tn, sl->name);
	}
	for (size_t p = 0; p < pk->nplains; p++) {
		const struct pk_plain *pl = &pk->plains[p];

		type_name(pl->type, tn, sizeof(tn));
		if (pl->how == PL_LOCAL)
			sb_addf(sb, ",\n\t__local %s *pk_%s", tn, pl->name);
		else
			sb_addf(sb, ",\n\t%s %s *pk_%s", kind_decl(pl->how), tn, pl->name);
	}
}

static const char range_preamble[] =
        "/* Steps run on the first work-items of the packed kernel and see their own NDRange\n"
        " * (004 §5.3.3): every function of the sources below takes it as pk_r, and the\n"
        " * work-item functions read it. */\n"
        "typedef struct {\n"
        "\tsize_t l;          /* the work-item's linear index in the packed kernel */\n"
        "\tsize_t g0, g1, g2; /* the step's global size */\n"
        "\tuint dims;\n"
        "} pk_range;\n\n"
        "static size_t pk_global_id(const pk_range r, uint d)\n"
        "{\n"
        "\treturn d == 0 ? r.l % r.g0 : d == 1 ? r.l / r.g0 % r.g1 : d == 2 ? r.l / r.g0 / r.g1 "
        ": 0;\n"
        "}\n\n"
        "static size_t pk_global_size(const pk_range r, uint d)\n"
        "{\n"
        "\treturn d == 0 ? r.g0 : d == 1 ? r.g1 : d == 2 ? r.g2 : 1;\n"
        "}\n\n"
        "#define get_global_id(d) pk_global_id(pk_r, (d))\n"
        "#define get_global_size(d) pk_global_size(pk_r, (d))\n"
        "#define get_global_offset(d) ((size_t)0)\n"
        "#define get_global_linear_id() (pk_r.l)\n"
        "#define get_work_dim() (pk_r.dims)\n\n";

/* The steps' sources, renamed; each one's macros are undefined after it. */
static void add_sources(struct strbuf *sb, const struct pack *pk)
{
	for (size_t k = 0; k < pk->nsources; k++) {
		const struct pack_source *s = &pk->sources[k];
		char *text = clsrc_rewrite(s->cl, s->map, s->nmap, !pk->uniform);
		char *shown = path_normalise(s->name, NULL);

		sb_addf(sb, "/* ==== %s ====", shown);
		for (size_t m = 0; m < s->nmap; m++)
			if (strcmp(s->map[m].from, s->map[m].to) != 0)
				sb_addf(sb, "\n * %s -> %s", s->map[m].from, s->map[m].to);
		sb_adds(sb, " */\n");
		sb_adds(sb, text);
		free(text);
		if (sb->len && sb->s[sb->len - 1] != '\n')
			sb_addc(sb, '\n');
		for (size_t m = 0; m < s->cl->macros.n; m++)
			sb_addf(sb, "#undef %s\n", s->cl->macros.v[m]);
		sb_addf(sb, "/* ==== end of %s ==== */\n\n", shown);
		free(shown);
	}
}

/* The switch on the scenario: one case per distinct step, with how many runs it has. */
static void add_cases(struct strbuf *sb, const struct pack *pk)
{
	int *count = xcalloc(pk->ncases + 1, sizeof(*count));

	for (size_t i = 0; i < pk->nruns; i++)
		count[pk->runs[i].kase]++;
	for (size_t c = 0; c < pk->ncases; c++) {
		sb_addf(sb, "\tcase %zu: /* ", c);
		sb_add_comment(sb, pk->cases[c].first);
		if (count[c] > 1)
			sb_addf(sb, "; %d runs", count[c]);
		sb_adds(sb, " */\n");
		sb_adds(sb, pk->cases[c].code);
		sb_adds(sb, "\t\tbreak;\n");
	}
	free(count);
}

static void add_packed_kernel(struct strbuf *sb, const struct pack *pk)
{
	sb_addf(sb,
	        "/* 004 Figure 46: one case per distinct step; work-item 0 advances the index\n"
	        " * into its output, never its input, which other work-items may still read. */\n"
	        "__kernel void %s_packed(",
	        pk->name);
	kernel_params(sb, pk);
	sb_adds(sb, ")\n{\n");
	if (pk->uniform && pk->dims > 1)
		sb_addf(sb,
		        "\tconst size_t pk_l = get_global_id(0) + %zu * (get_global_id(1) + %zu * "
		        "get_global_id(2));\n\tconst size_t pk_G = %zu;\n",
		        pk->global[0], pk->global[1], pk->G);
	else
		sb_addf(sb, "\tconst size_t pk_l = get_global_id(0);\n\tconst size_t pk_G = %zu;\n",
		        pk->G);
	sb_adds(sb, "\tconst int pk_step = pk_index_in[0];\n\n\tswitch (pk_scenario[pk_step]) {\n");
	add_cases(sb, pk);
	sb_adds(sb,
	        "\tdefault:\n\t\tbreak;\n\t}\n\tif (pk_l == 0)\n\t\tpk_index_out[0] = pk_step + "
	        "1;\n}\n");
}

static char *kernel_source(const struct pack *pk)
{
	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb,
	        "/*\n * Generated by carsh pack from %s:\n * %zu kernel runs of the flow as one "
	        "kernel driven by the scenario stream (004 §5.3,\n * scenario-based execution). "
	        "Run pack again rather than editing this file.\n */\n\n",
	        pk->batch_file, pk->nruns);
	if (!pk->uniform)
		sb_adds(&sb, range_preamble);
	add_sources(&sb, pk);
	if (!pk->uniform)
		sb_adds(&sb,
		        "#undef get_global_id\n#undef get_global_size\n#undef "
		        "get_global_offset\n#undef get_global_linear_id\n#undef get_work_dim\n\n");
	sb_adds(&sb, "/* Copies and fills spread over all work-items. */\n"
	             "#define PK_COPY(d, s, n) \\\n"
	             "\tfor (size_t pk_i = pk_l; pk_i < (size_t)(n); pk_i += pk_G) \\\n"
	             "\t\t(d)[pk_i] = (s)[pk_i]\n"
	             "#define PK_FILL(d, v, n) \\\n"
	             "\tfor (size_t pk_i = pk_l; pk_i < (size_t)(n); pk_i += pk_G) \\\n"
	             "\t\t(d)[pk_i] = (v)\n\n");
	add_packed_kernel(&sb, pk);
	return sb_detach(&sb);
}

/* ---- XML ---- */

void pack_attr(struct strbuf *sb, const char *name, const char *value)
{
	sb_addf(sb, " %s=\"", name);
	sb_add_xml(sb, value);
	sb_addc(sb, '"');
}

static void comment_line(struct strbuf *sb, const struct pack *pk, const char *what)
{
	sb_adds(sb, "<!-- ");
	sb_add_comment(sb, what);
	sb_adds(sb, " Generated by carsh pack from ");
	sb_add_comment(sb, pk->batch_file);
	for (size_t i = 0; i < pk->shown.n; i++) {
		sb_adds(sb, i ? " " : " with ");
		sb_add_comment(sb, pk->shown.v[i].name);
		sb_addc(sb, '=');
		sb_add_comment(sb, pk->shown.v[i].value);
	}
	sb_adds(sb, ". -->\n");
}

static void stream_xml(struct strbuf *sb, const char *kind, const char *name, struct cs_type t,
                       size_t count)
{
	char tn[16];

	sb_addf(sb, "    <%s", kind);
	pack_attr(sb, "name", name);
	pack_attr(sb, "type", type_name(t, tn, sizeof(tn)));
	sb_addf(sb, " count=\"%zu\"/>\n", count);
}

static char *flowmodel_xml(const struct pack *pk)
{
	struct strbuf sb = STRBUF_INIT;
	struct cs_type i1 = {SC_INT, 1};
	char *n;

	sb_adds(&sb, "<?xml version=\"1.0\"?>\n");
	comment_line(&sb, pk, "The flow as one kernel (004 §5.3, Figure 47(a)).");
	sb_addf(&sb, "<FlowModel name=\"%s_packed\">\n", pk->name);
	if (pk->device_fm)
		sb_addf(&sb, "  <RuntimeType device=\"%s\">OpenCL</RuntimeType>\n", pk->device_fm);
	sb_addf(&sb,
	        "  <Program>\n    <Source file=\"%s.packed.cl\"/>\n    <Kernel "
	        "name=\"%s_packed\"/>\n",
	        pk->name, pk->name);
	if (pk->build_options[0]) {
		sb_adds(&sb, "    <BuildOptions>");
		sb_add_xml(&sb, pk->build_options);
		sb_adds(&sb, "</BuildOptions>\n");
	}
	sb_adds(&sb, "  </Program>\n  <WorkSize global=\"");
	for (unsigned d = 0; d < pk->dims; d++)
		sb_addf(&sb, "%s%zu", d ? ", " : "", pk->global[d]);
	if (pk->has_local) {
		sb_adds(&sb, "\" local=\"");
		for (unsigned d = 0; d < pk->dims; d++)
			sb_addf(&sb, "%s%zu", d ? ", " : "", pk->local[d]);
	}
	sb_adds(&sb, "\"/>\n  <Arguments>\n");
	stream_xml(&sb, "Input", "scenario", i1, pk->nruns);
	stream_xml(&sb, "Input", "index_in", i1, 1);
	stream_xml(&sb, "Output", "index_out", i1, 1);
	for (size_t s = 0; s < pk->nslots; s++) {
		const struct pk_slot *sl = &pk->slots[s];

		n = xasprintf("%s_in", sl->name);
		stream_xml(&sb, "Input", n, sl->type, sl->count);
		free(n);
		n = xasprintf("%s_out", sl->name);
		stream_xml(&sb, "Output", n, sl->type, sl->count);
		free(n);
	}
	for (size_t p = 0; p < pk->nplains; p++) {
		const struct pk_plain *pl = &pk->plains[p];
		const char *k = pl->how == PL_LOCAL                        ? "Local"
		                : pl->how == PL_INIT || pl->how == PL_FILL ? "Input"
		                                                           : "Output";

		stream_xml(&sb, k, pl->name, pl->type, pl->count);
	}
	sb_adds(&sb, "  </Arguments>\n</FlowModel>\n");
	return sb_detach(&sb);
}

/* <Buffer>NAME</Buffer> or <DataFile>PATH</DataFile> for a buffer of the flow. */
static void bind_phys(struct strbuf *sb, const struct pack *pk, int p, bool out)
{
	const struct pk_phys *ph = &pk->phys[p];

	if (ph->kind == PHYS_VBUF) {
		sb_adds(sb, "<Buffer>");
		sb_add_xml(sb, ph->name);
		sb_adds(sb, "</Buffer>");
		return;
	}
	{
		char *rel = path_is_stdio(ph->name) ? xstrdup(ph->name)
		                                    : path_from_dir(pk->dir, ph->name);

		sb_adds(sb, "<DataFile");
		if (out && ph->columns_given)
			sb_addf(sb, " columns=\"%zu\"", ph->columns);
		sb_adds(sb, ">");
		sb_add_xml(sb, rel);
		sb_adds(sb, "</DataFile>");
		free(rel);
	}
}

/* Each slot's pair of streams: its input starts with a buffer or zeros, its output goes to
 * a buffer or is discarded. */
static void slots_xml(struct strbuf *sb, const struct pack *pk)
{
	for (size_t s = 0; s < pk->nslots; s++) {
		const struct pk_slot *sl = &pk->slots[s];

		sb_addf(sb, "  <Input name=\"%s_in\">", sl->name);
		if (sl->init_phys >= 0)
			bind_phys(sb, pk, sl->init_phys, false);
		else
			sb_adds(sb, "<Fill value=\"0\"/>");
		sb_addf(sb, "</Input>\n  <Output name=\"%s_out\">", sl->name);
		if (sl->final_phys >= 0)
			bind_phys(sb, pk, sl->final_phys, true);
		else
			sb_adds(sb, "<Discard/>");
		sb_adds(sb, "</Output>\n");
	}
}

static void plains_xml(struct strbuf *sb, const struct pack *pk)
{
	for (size_t p = 0; p < pk->nplains; p++) {
		const struct pk_plain *pl = &pk->plains[p];
		char *fill;

		switch (pl->how) {
		case PL_INIT:
			sb_addf(sb, "  <Input name=\"%s\">", pl->name);
			bind_phys(sb, pk, pl->phys, false);
			sb_adds(sb, "</Input>\n");
			break;
		case PL_FILL:
			fill = fill_text(pl->type, pl->fill);
			sb_addf(sb, "  <Input name=\"%s\"><Fill value=\"%s\"/></Input>\n", pl->name,
			        fill);
			free(fill);
			break;
		case PL_FINAL:
			sb_addf(sb, "  <Output name=\"%s\">", pl->name);
			bind_phys(sb, pk, pl->phys, true);
			sb_adds(sb, "</Output>\n");
			break;
		case PL_SCRATCH:
			sb_addf(sb, "  <Output name=\"%s\"><Discard/></Output>\n", pl->name);
			break;
		case PL_LOCAL:
			break;
		}
	}
}

static char *exe_xml(const struct pack *pk)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "<?xml version=\"1.0\"?>\n");
	comment_line(&sb, pk,
	             "The packed flow bound to the buffers (004 §5.3.2, Figure 47(b)): the "
	             "scenario, the index and the slots are swap pairs; the kernel runs once "
	             "per scenario entry.");
	sb_addf(&sb, "<CarshExe>\n  <FlowModel file=\"%s.packed.fm.xml\"/>\n", pk->name);
	if (pk->device_exe) {
		sb_adds(&sb, "  <Device");
		pack_attr(&sb, "select", pk->device_exe);
		sb_adds(&sb, "/>\n");
	}
	sb_addf(&sb, "  <Input name=\"scenario\"><DataFile>%s.scenario.csv</DataFile></Input>\n",
	        pk->name);
	sb_adds(&sb, "  <Input name=\"index_in\"><Fill value=\"0\"/></Input>\n"
	             "  <Output name=\"index_out\"><Discard/></Output>\n");
	slots_xml(&sb, pk);
	plains_xml(&sb, pk);
	sb_addf(&sb, "  <Swap count=\"%zu\" method=\"swap\">\n", pk->nruns - 1);
	sb_adds(&sb, "    <SwapPair input=\"index_in\" output=\"index_out\"/>\n");
	for (size_t s = 0; s < pk->nslots; s++)
		sb_addf(&sb, "    <SwapPair input=\"%s_in\" output=\"%s_out\"/>\n",
		        pk->slots[s].name, pk->slots[s].name);
	sb_adds(&sb, "  </Swap>\n</CarshExe>\n");
	return sb_detach(&sb);
}

static char *scenario_csv(const struct pack *pk)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < pk->nruns; i++)
		sb_addf(&sb, "%d\n", pk->runs[i].kase);
	return sb_detach(&sb);
}

static char *batch_xml(const struct pack *pk)
{
	struct strbuf sb = STRBUF_INIT;
	char *what = xasprintf("The batch with its flow of %zu kernel runs packed into one run of "
	                       "%s.packed.exe.xml (scenario-based execution, docs/pack.md): its "
	                       "set-up, the packed run, its clean-up.",
	                       pk->nruns, pk->name);

	sb_adds(&sb, "<?xml version=\"1.0\"?>\n");
	comment_line(&sb, pk, what);
	free(what);
	sb_adds(&sb, "<CarshBat>\n");
	for (size_t i = 0; i < pk->shown.n; i++) {
		sb_adds(&sb, "  <Param");
		pack_attr(&sb, "name", pk->shown.v[i].name);
		pack_attr(&sb, "value", pk->shown.v[i].value);
		sb_adds(&sb, "/>\n");
	}
	for (size_t i = 0; i < pk->setup.n; i++)
		sb_addf(&sb, "  %s\n", pk->setup.v[i]);
	sb_addf(&sb, "  <Exec file=\"%s.packed.exe.xml\"/>\n", pk->name);
	for (size_t i = 0; i < pk->after.n; i++)
		sb_addf(&sb, "  %s\n", pk->after.v[i]);
	for (size_t i = 0; i < pk->cleanup.n; i++)
		sb_addf(&sb, "  %s\n", pk->cleanup.v[i]);
	sb_adds(&sb, "</CarshBat>\n");
	return sb_detach(&sb);
}

static int write_text(FILE *f, const char *name, void *arg, struct cs_err *e)
{
	if (fputs(arg, f) == EOF)
		return err_errno(e, "%s", name);
	return 0;
}

static int write_file(const struct pack *pk, const char *suffix, char *text, struct cs_err *e)
{
	char *path = xasprintf("%s/%s%s", pk->dir, pk->name, suffix);
	int rc = atomic_write(path, write_text, text, e);

	free(path);
	free(text);
	return rc;
}

int pack_write(struct pack *pk, struct cs_err *e)
{
	if (mkdir(pk->dir, 0777) != 0 && errno != EEXIST)
		return err_errno(e, "%s", pk->dir);
	if (write_file(pk, ".packed.cl", kernel_source(pk), e) ||
	    write_file(pk, ".packed.fm.xml", flowmodel_xml(pk), e) ||
	    write_file(pk, ".packed.exe.xml", exe_xml(pk), e) ||
	    write_file(pk, ".scenario.csv", scenario_csv(pk), e) ||
	    write_file(pk, ".packed.bat.xml", batch_xml(pk), e))
		return -1;
	return 0;
}

/* ---- --explain ---- */

static const char *slot_start(const struct pack *pk, const struct pk_slot *sl, char *buf, size_t n)
{
	if (sl->init_phys < 0)
		return "";
	snprintf(buf, n, "; starts with %s '%s'",
	         pk->phys[sl->init_phys].kind == PHYS_FILE ? "file" : "buffer",
	         pk->phys[sl->init_phys].name);
	return buf;
}

/* " (called 'NAME' after the flow)" for a buffer the flow leaves with another name. */
static void explain_renamed(FILE *f, const struct pk_phys *ph)
{
	if (ph->final_name && strcmp(ph->final_name, ph->name) != 0)
		fprintf(f, " (called '%s' after the flow)", ph->final_name);
}

/* "float x 64" */
static const char *type_count(struct cs_type t, size_t count, char *buf, size_t n)
{
	char tn[16];

	snprintf(buf, n, "%s x %zu", type_name(t, tn, sizeof(tn)), count);
	return buf;
}

/* The batch with its parameters, the runs of the flow and the work size. */
static void explain_flow(const struct pack *pk, FILE *f)
{
	fprintf(f, "pack %s:", pk->batch_file);
	for (size_t i = 0; i < pk->shown.n; i++)
		if (strcmp(pk->shown.v[i].name, "BATCH_DIR") != 0)
			fprintf(f, " %s=%s", pk->shown.v[i].name, pk->shown.v[i].value);
	fprintf(f, "\n\nflow: %zu Exec run%s", pk->nruns - pk->ncopies,
	        pk->nruns - pk->ncopies == 1 ? "" : "s");
	if (pk->ncopies)
		fprintf(f, " and %zu copy run%s before in-place steps", pk->ncopies,
		        pk->ncopies == 1 ? "" : "s");
	fprintf(f, "; one kernel, %zu runs, <Swap count=\"%zu\">\n", pk->nruns, pk->nruns - 1);
	if (pk->uniform) {
		fprintf(f, "work size: %zu", pk->global[0]);
		for (unsigned d = 1; d < pk->dims; d++)
			fprintf(f, ", %zu", pk->global[d]);
		fprintf(f, " (every step's own)\n");
	} else {
		fprintf(f,
		        "work size: %zu (the largest step's; smaller steps run on the first "
		        "work-items and see their own NDRange)\n",
		        pk->G);
	}
}

static void explain_slots(const struct pack *pk, FILE *f)
{
	char b1[512], b2[512], b3[512];

	fprintf(f, "\nswap pairs:\n  %-24s %-14s the scenario index; work-item 0 advances it\n",
	        "index_in / index_out", "int x 1");
	for (size_t s = 0; s < pk->nslots; s++) {
		const struct pk_slot *sl = &pk->slots[s];

		snprintf(b1, sizeof(b1), "%s_in / %s_out", sl->name, sl->name);
		fprintf(f, "  %-24s %-14s slot %s%s", b1,
		        type_count(sl->type, sl->count, b2, sizeof(b2)), sl->name,
		        slot_start(pk, sl, b3, sizeof(b3)));
		if (sl->final_phys >= 0) {
			fprintf(f, "; its last value goes to '%s'", pk->phys[sl->final_phys].name);
			explain_renamed(f, &pk->phys[sl->final_phys]);
		}
		fputc('\n', f);
	}
}

static void explain_plains(const struct pack *pk, FILE *f)
{
	static const char *const what[] = {"the start content of", "<Fill>",
	                                   "the content after the flow of", "<Discard/>",
	                                   "__local scratch"};
	static const char *const kind[] = {"Input", "Input", "Output", "Output", "Local"};
	char b1[512], b2[512];

	fprintf(f, "plain streams:\n  %-24s %-14s %s.scenario.csv\n", "scenario (Input)", "int",
	        pk->name);
	for (size_t p = 0; p < pk->nplains; p++) {
		const struct pk_plain *pl = &pk->plains[p];

		snprintf(b1, sizeof(b1), "%s (%s)", pl->name, kind[pl->how]);
		fprintf(f, "  %-24s %-14s %s", b1, type_count(pl->type, pl->count, b2, sizeof(b2)),
		        what[pl->how]);
		if (pl->phys >= 0)
			fprintf(f, " '%s'", pk->phys[pl->phys].name);
		if (pl->phys >= 0 && pl->how == PL_FINAL)
			explain_renamed(f, &pk->phys[pl->phys]);
		if (pl->how == PL_FILL) {
			char *v = fill_text(pl->type, pl->fill);

			fprintf(f, " %s", v);
			free(v);
		}
		fputc('\n', f);
	}
}

static void explain_cases(const struct pack *pk, FILE *f)
{
	fprintf(f, "\ncases (scenario values):\n");
	for (size_t c = 0; c < pk->ncases; c++)
		fprintf(f, "  %2zu  %-20s first %s\n", c, pk->cases[c].title, pk->cases[c].first);
	fprintf(f, "\nscenario:");
	for (size_t i = 0; i < pk->nruns; i++)
		fprintf(f, " %d", pk->runs[i].kase);
}

/* What run r does with slot s: its state, or 'r' when it only reads the slot. */
static char slot_use(const struct pack *pk, const struct pk_run *r, size_t s)
{
	char c = r->state ? r->state[s] : '.';

	for (size_t k = 0; k < r->nuses && c == '.'; k++)
		if (r->uses[k].in >= 0 && pk->vals[r->uses[k].in].loc == VL_SLOT &&
		    pk->vals[r->uses[k].in].slot == (int)s)
			c = 'r';
	return c;
}

/* The table of runs: one column per slot, as wide as the longest slot name. */
static void explain_runs(const struct pack *pk, FILE *f)
{
	size_t width = 5;

	for (size_t s = 0; s < pk->nslots; s++)
		if (strlen(pk->slots[s].name) > width)
			width = strlen(pk->slots[s].name);
	fprintf(f,
	        "\n\nruns (per slot: W written, I changed in place, F filled, P passed "
	        "through, r only read, . idle):\n  %5s %4s ",
	        "run", "case");
	for (size_t s = 0; s < pk->nslots; s++)
		fprintf(f, " %-*s", (int)width, pk->slots[s].name);
	fprintf(f, "  step\n");
	for (size_t i = 0; i < pk->nruns; i++) {
		const struct pk_run *r = &pk->runs[i];

		fprintf(f, "  %5zu %4d ", i, r->kase);
		for (size_t s = 0; s < pk->nslots; s++)
			fprintf(f, " %-*c", (int)width, slot_use(pk, r, s));
		fprintf(f, "  %s", r->where);
		if (r->exec >= 0 && pk->execs[r->exec].jp->kp.swap_count > 0)
			fprintf(f, " (its run %lld)", r->iter + 1);
		for (size_t k = 0; k < r->nops; k++)
			if (r->ops[k].kind == PO_SAVE)
				fprintf(f, "; saves %s for after the flow",
				        pk->plains[r->ops[k].plain].name);
		fputc('\n', f);
	}
}

void pack_explain(const struct pack *pk, FILE *f)
{
	explain_flow(pk, f);
	explain_slots(pk, f);
	explain_plains(pk, f);
	explain_cases(pk, f);
	explain_runs(pk, f);
	if (pk->after.n) {
		fprintf(f, "\nafter the packed run:\n");
		for (size_t i = 0; i < pk->after.n; i++)
			fprintf(f, "  %s\n", pk->after.v[i]);
	}
	for (size_t i = 0; i < pk->notes.n; i++)
		fprintf(f, "%s%s\n", i ? "" : "\nnotes:\n", pk->notes.v[i]);
}

void pack_cases(struct pack *pk)
{
	make_cases(pk);
}
