/*
 * The data flow of a packed flow and its scenario (004 §5.3.1, Figure 45: buffer packing).
 *
 * Every write makes a new *value*; a value is read by later runs and may be what a buffer
 * holds when the flow ends. The packed kernel keeps values in
 *   - slots: swap pairs of two device buffers of one type and size. A run reads a slot's
 *     value from its input and makes a new value in its output; after the run the runtime
 *     swaps the pair, so the new value is the next run's input. A slot whose value a run
 *     does not replace but that a later run needs is copied input -> output by that run
 *     (pass-through), so that it is still the input after the swap;
 *   - plain streams: a buffer's content at the start (Input), a <Fill> (Input), a buffer's
 *     content after the flow that no later run reads (Output), scratch for results nobody
 *     needs (Output, discarded).
 * Slots are reused once their value is dead, like registers: a chain of steps that each
 * read a stream and write the next version of it (the swap pairs of Figure 45) stays in one
 * slot. An InOut step changes its value in place; in the packed kernel it works on the
 * slot's output, which must already hold the value: it does when the run before passed the
 * slot through, and otherwise pack inserts a copy run.
 */
#include <stdlib.h>
#include <string.h>

#include "pack/pack.h"
#include "util/alloc.h"

static int new_val(struct pack *pk, int phys, struct cs_type t, size_t count, enum val_def k,
                   int def)
{
	struct pk_val *v;

	pk->vals = xgrow(pk->vals, &pk->val_cap, pk->nvals + 1, sizeof(*pk->vals));
	v = memset(&pk->vals[pk->nvals], 0, sizeof(*v));
	v->phys = phys;
	v->pref = phys;
	v->type = t;
	v->count = count;
	v->def_kind = k;
	v->def = def;
	v->fill = -1;
	v->last_use = -1;
	v->final_of = -1;
	v->slot = -1;
	v->plain = -1;
	return (int)pk->nvals++;
}

static bool same_type(struct cs_type a, size_t na, struct cs_type b, size_t nb)
{
	return a.scalar == b.scalar && a.width == b.width && na == nb;
}

/* The value a buffer holds now; the first time, its content at the flow's start. */
static int cur_val(struct pack *pk, int p)
{
	struct pk_phys *ph = &pk->phys[p];

	if (ph->cur < 0) {
		ph->init = new_val(pk, p, ph->type, ph->count, VD_INIT, -1);
		ph->cur = ph->init;
	}
	return ph->cur;
}

/* A value of a fill, kept for the packed kernel: its index in pk->fill_values. */
static int add_fill_value(struct pack *pk, const unsigned char *bytes)
{
	pk->fill_values =
	        xgrow(pk->fill_values, &pk->fv_cap, pk->nfill_values + 1, sizeof(*pk->fill_values));
	memcpy(pk->fill_values[pk->nfill_values], bytes, TYPE_MAX_BYTES);
	return (int)pk->nfill_values++;
}

/* A <Fill>-bound input: one constant value per type, size and content. */
static int const_val(struct pack *pk, const struct kernel_arg *a, const unsigned char *fill)
{
	for (size_t i = 0; i < pk->nvals; i++) {
		const struct pk_val *v = &pk->vals[i];

		if (v->def_kind == VD_INIT && v->phys < 0 && v->fill >= 0 &&
		    same_type(v->type, v->count, a->type, a->count) &&
		    memcmp(pk->fill_values[v->fill], fill, type_size(a->type)) == 0)
			return (int)i;
	}
	{
		int v = new_val(pk, -1, a->type, a->count, VD_INIT, -1);

		pk->vals[v].fill = add_fill_value(pk, fill);
		return v;
	}
}

static bool is_const(const struct pk_val *v)
{
	return v->def_kind == VD_INIT && v->phys < 0;
}

static struct pk_run *new_run(struct pack *pk, int exec, long long iter, const char *where)
{
	struct pk_run *r;

	pk->runs = xgrow(pk->runs, &pk->run_cap, pk->nruns + 1, sizeof(*pk->runs));
	r = memset(&pk->runs[pk->nruns++], 0, sizeof(*r));
	r->exec = exec;
	r->iter = iter;
	r->where = xstrdup(where);
	r->kase = -1;
	return r;
}

#define RUN_LIMIT (1u << 20)

/* ---- 1. the values ---- */

/* A fill inside the flow: a new value of its buffer, made after the last run. */
static void simulate_fill(struct pack *pk, const struct flow_op *op)
{
	struct pk_phys *ph = &pk->phys[op->phys];
	struct pk_run *last = &pk->runs[pk->nruns - 1];
	int v;

	if (!ph->typed)
		return; /* flow.c moved it after the packed run */
	v = new_val(pk, op->phys, ph->type, ph->count, VD_FILL, (int)pk->nruns - 1);
	pk->vals[v].fill = add_fill_value(pk, op->value);
	last->fills = xgrow(last->fills, &last->fcap, last->nfills + 1, sizeof(*last->fills));
	last->fills[last->nfills++] = v;
	ph->cur = v;
}

/* What the executable's device buffers start with (dev: per kernel argument, the value
 * its buffer holds); its swap pairs exchange buffers. */
static void exec_start(struct pack *pk, const struct pk_exec *x, int *dev)
{
	const struct kernel_plan *kp = &x->jp->kp;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		dev[i] = -1;
		if (a->kind != ARG_INPUT && a->kind != ARG_INOUT)
			continue;
		dev[i] = x->phys[i] >= 0 ? cur_val(pk, x->phys[i])
		                         : const_val(pk, a, x->jp->binds[i].fill);
	}
	for (size_t p = 0; p < kp->npairs; p++)
		pack_partner(pk, x->phys[kp->pairs[p].input], x->phys[kp->pairs[p].output]);
}

/* An InOut stream works in place on its slot's output, which must hold the value: it does
 * if the run before passed the slot through; when the run before made the value, a copy
 * run comes first. Returns the index the executable's run will have. */
static int copy_before_in_place(struct pack *pk, const struct pk_exec *x, const int *dev)
{
	const struct kernel_plan *kp = &x->jp->kp;
	int at = (int)pk->nruns;
	bool copy = false;
	char *why;

	for (size_t i = 0; i < kp->nargs; i++)
		if (kp->args[i].kind == ARG_INOUT && pk->vals[dev[i]].def >= at - 1)
			copy = true;
	if (!copy)
		return at;
	why = xasprintf("copy before %s", x->label);
	new_run(pk, -1, 0, why);
	free(why);
	pk->ncopies++;
	return at + 1;
}

/* The run's streams: the values it reads (now last used by it) and the values it makes. */
static void add_uses(struct pack *pk, struct pk_run *r, const struct pk_exec *x, int *dev, int at)
{
	const struct kernel_plan *kp = &x->jp->kp;

	r->uses = xcalloc(kp->nargs + 1, sizeof(*r->uses));
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];
		struct pk_use *u;

		if (a->kind != ARG_INPUT && a->kind != ARG_OUTPUT && a->kind != ARG_INOUT)
			continue;
		u = &r->uses[r->nuses++];
		u->arg = i;
		u->kind = a->kind;
		u->in = u->out = u->plain = -1;
		if (a->kind != ARG_OUTPUT) {
			u->in = dev[i];
			pk->vals[dev[i]].last_use = at;
		}
		if (a->kind != ARG_INPUT) {
			u->out = new_val(pk, x->phys[i], a->type, a->count, VD_RUN, at);
			if (a->kind == ARG_INOUT)
				pk->vals[u->in].in_place = true;
			dev[i] = u->out;
		}
	}
}

/* After a run: between the executable's runs its swap pairs swap; after its last run the
 * buffers of its outputs hold what they made. */
static void exec_after_run(struct pack *pk, const struct pk_exec *x, long long run, int *dev)
{
	const struct kernel_plan *kp = &x->jp->kp;

	/* the stream a temporary of a swap pair goes to chooses its slot */
	for (size_t p = 0; p < kp->npairs; p++) {
		int out = dev[kp->pairs[p].output];

		if (pk->vals[out].pref < 0)
			pk->vals[out].pref = x->phys[kp->pairs[p].input];
	}
	if (run < kp->swap_count) {
		for (size_t p = 0; p < kp->npairs; p++) {
			int t = dev[kp->pairs[p].input];

			dev[kp->pairs[p].input] = dev[kp->pairs[p].output];
			dev[kp->pairs[p].output] = t;
		}
		return;
	}
	for (size_t i = 0; i < kp->nargs; i++)
		if ((kp->args[i].kind == ARG_OUTPUT || kp->args[i].kind == ARG_INOUT) &&
		    x->phys[i] >= 0)
			pk->phys[x->phys[i]].cur = dev[i];
}

/* One run of an executable; dev carries its device buffers' values from run to run. */
static void simulate_run(struct pack *pk, const struct flow_op *op, int *dev)
{
	const struct pk_exec *x = &pk->execs[op->exec];
	struct pk_run *r;
	int at;

	if (op->run == 0)
		exec_start(pk, x, dev);
	at = copy_before_in_place(pk, x, dev);
	r = new_run(pk, (int)op->exec, op->run, x->where);
	add_uses(pk, r, x, dev, at);
	exec_after_run(pk, x, op->run, dev);
}

/* A value changed in place is gone; nothing may read it later (an executable with <Swap>
 * whose Input and InOut streams share a buffer would). */
static int check_in_place(const struct pack *pk, struct cs_err *e)
{
	for (size_t i = 0; i < pk->nruns; i++)
		for (size_t k = 0; k < pk->runs[i].nuses; k++) {
			const struct pk_use *u = &pk->runs[i].uses[k];

			if (u->kind == ARG_INOUT && pk->vals[u->in].last_use > (int)i)
				return err_set(e,
				               "%s: its InOut stream changes in place what a later "
				               "run still reads; pack cannot keep both",
				               pk->runs[i].where);
		}
	return 0;
}

/* What the buffers hold at the end and the clean-up (or the user) can see. */
static void mark_finals(struct pack *pk)
{
	for (size_t p = 0; p < pk->nphys; p++) {
		const struct pk_phys *ph = &pk->phys[p];

		if (ph->live_end && ph->cur >= 0 && ph->cur != ph->init)
			pk->vals[ph->cur].final_of = (int)p;
	}
}

static int simulate(struct pack *pk, struct cs_err *e)
{
	int *dev = NULL;
	size_t dcap = 0;
	int rc = 0;

	for (size_t o = 0; o < pk->nops && rc == 0; o++) {
		const struct flow_op *op = &pk->ops[o];

		if (pk->nruns >= RUN_LIMIT) {
			rc = err_set(e, "the flow has more than %u kernel runs", RUN_LIMIT);
		} else if (op->kind == FO_FILL) {
			simulate_fill(pk, op);
		} else {
			dev = xgrow(dev, &dcap, pk->execs[op->exec].jp->kp.nargs + 1, sizeof(*dev));
			simulate_run(pk, op, dev);
		}
	}
	free(dev);
	if (rc || check_in_place(pk, e))
		return -1;
	mark_finals(pk);
	return 0;
}

/* ---- 2. slots and plain streams ---- */

/* Whether buffers a and b share slots: the same buffer, or exchanged by a swap. */
static bool partners(const struct pack *pk, int a, int b)
{
	if (a < 0 || b < 0)
		return false;
	if (a == b)
		return true;
	for (size_t i = 0; i < pk->npartners; i++)
		if ((pk->partners[i][0] == a && pk->partners[i][1] == b) ||
		    (pk->partners[i][0] == b && pk->partners[i][1] == a))
			return true;
	return false;
}

void pack_partner(struct pack *pk, int a, int b)
{
	if (a < 0 || b < 0 || partners(pk, a, b))
		return;
	pk->partners =
	        xgrow(pk->partners, &pk->partner_cap, pk->npartners + 1, sizeof(*pk->partners));
	pk->partners[pk->npartners][0] = a;
	pk->partners[pk->npartners][1] = b;
	pk->npartners++;
}

/* Argument names of the packed flow-model: slots give NAME_in and NAME_out, plain streams
 * NAME; scenario, index_in and index_out are the scenario's. */
static bool arg_taken(const struct pack *pk, const char *name)
{
	char buf[512];

	if (strcmp(name, "scenario") == 0 || strcmp(name, "index_in") == 0 ||
	    strcmp(name, "index_out") == 0)
		return true;
	for (size_t i = 0; i < pk->nplains; i++)
		if (strcmp(pk->plains[i].name, name) == 0)
			return true;
	for (size_t i = 0; i < pk->nslots; i++) {
		snprintf(buf, sizeof(buf), "%s_in", pk->slots[i].name);
		if (strcmp(buf, name) == 0)
			return true;
		snprintf(buf, sizeof(buf), "%s_out", pk->slots[i].name);
		if (strcmp(buf, name) == 0)
			return true;
	}
	return false;
}

static char *unique_name(const struct pack *pk, const char *base, bool slot)
{
	char *name = xstrdup(base);

	for (int k = 2;; k++) {
		char *in = xasprintf("%s_in", name), *out = xasprintf("%s_out", name);
		bool taken = slot ? arg_taken(pk, in) || arg_taken(pk, out) : arg_taken(pk, name);

		free(in);
		free(out);
		if (!taken)
			return name;
		free(name);
		name = xasprintf("%s_%d", base, k);
	}
}

/* A name made of letters, digits and '_' (buffers and files may have any name). */
static char *clean_name(const char *s, const char *fallback)
{
	char *c = xstrdup(s && *s ? s : fallback);

	for (char *p = c; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			*p = '_';
	if (c[0] >= '0' && c[0] <= '9') {
		char *d = xasprintf("b%s", c);

		free(c);
		c = d;
	}
	return c;
}

static const char *phys_label(const struct pack *pk, int p)
{
	const char *n;

	if (p < 0)
		return NULL;
	n = pk->phys[p].name;
	if (pk->phys[p].kind == PHYS_FILE && strcmp(n, "-") == 0)
		return "stdout";
	if (pk->phys[p].kind == PHYS_FILE) {
		const char *slash = strrchr(n, '/');

		n = slash ? slash + 1 : n;
	}
	return n;
}

static int new_slot(struct pack *pk, const struct pk_val *v)
{
	struct pk_slot *s;
	char *base = clean_name(phys_label(pk, v->pref), "slot");

	pk->slots = xgrow(pk->slots, &pk->slot_cap, pk->nslots + 1, sizeof(*pk->slots));
	s = memset(&pk->slots[pk->nslots], 0, sizeof(*s));
	s->type = v->type;
	s->count = v->count;
	s->name = unique_name(pk, base, true);
	free(base);
	s->init_phys = s->final_phys = -1;
	s->init_val = -1;
	s->cur = -1;
	s->last_phys = v->pref;
	return (int)pk->nslots++;
}

int pack_new_plain(struct pack *pk, enum plain_kind how, const char *base, struct cs_type t,
                   size_t count, int phys)
{
	struct pk_plain *pl;
	char *clean = clean_name(base, "stream");

	pk->plains = xgrow(pk->plains, &pk->plain_cap, pk->nplains + 1, sizeof(*pk->plains));
	pl = memset(&pk->plains[pk->nplains], 0, sizeof(*pl));
	pl->how = how;
	pl->name = unique_name(pk, clean, false);
	free(clean);
	pl->type = t;
	pl->count = count;
	pl->phys = phys;
	pl->scratch_rank = -1;
	return (int)pk->nplains++;
}

static void add_op(struct pk_run *r, enum pk_opkind k, int slot, int plain, int val)
{
	r->ops = xgrow(r->ops, &r->ocap, r->nops + 1, sizeof(*r->ops));
	r->ops[r->nops++] = (struct pk_op){k, slot, plain, val};
}

/* A slot the value v may take at run i: same type and size, not written by this run, and
 * holding nothing needed after it. Preferred: the slot whose value v replaces (its buffer
 * and v's were swapped: Figure 45's chains), then the slot that last held v's buffer, then
 * the first free one. -1: none. */
static int pick_slot(struct pack *pk, const struct pk_val *v, int i)
{
	int best = -1, best_score = -1;

	for (size_t s = 0; s < pk->nslots; s++) {
		const struct pk_slot *sl = &pk->slots[s];
		const struct pk_val *held = sl->cur >= 0 ? &pk->vals[sl->cur] : NULL;
		int score;

		if (!same_type(sl->type, sl->count, v->type, v->count) ||
		    pk->runs[i].state[s] != '.' || (held && held->last_use > i))
			continue;
		if (held && partners(pk, held->pref, v->pref))
			score = 3;
		else if (partners(pk, sl->last_phys, v->pref))
			score = 2;
		else
			score = 1;
		if (score > best_score) {
			best = (int)s;
			best_score = score;
		}
	}
	return best;
}

/* Grow every run's slot-state string to the number of slots. */
static void grow_states(struct pack *pk)
{
	for (size_t i = 0; i < pk->nruns; i++) {
		size_t have = pk->runs[i].state ? strlen(pk->runs[i].state) : 0;

		if (have == pk->nslots)
			continue;
		pk->runs[i].state = xrealloc(pk->runs[i].state, pk->nslots + 1);
		memset(pk->runs[i].state + have, '.', pk->nslots - have);
		pk->runs[i].state[pk->nslots] = '\0';
	}
}

static void place_in_slot(struct pack *pk, int v, int s, int i, char how)
{
	pk->vals[v].loc = VL_SLOT;
	pk->vals[v].slot = s;
	pk->runs[i].state[s] = how;
}

static int scratch_plain(struct pack *pk, const struct pk_val *v, int rank)
{
	for (size_t p = 0; p < pk->nplains; p++) {
		const struct pk_plain *pl = &pk->plains[p];

		if (pl->how == PL_SCRATCH && pl->scratch_rank == rank &&
		    same_type(pl->type, pl->count, v->type, v->count))
			return (int)p;
	}
	{
		int p = pack_new_plain(pk, PL_SCRATCH, "scratch", v->type, v->count, -1);

		pk->plains[p].scratch_rank = rank;
		return p;
	}
}

static int final_plain(struct pack *pk, const struct pk_val *v)
{
	const struct pk_phys *ph = &pk->phys[v->final_of];
	int p = pack_new_plain(pk, PL_FINAL, phys_label(pk, v->final_of), ph->type, ph->count,
	                       v->final_of);

	return p;
}

/* Where a new value of run i goes: a slot when a later run reads it, the buffer's final
 * output when only the end needs it, else a free slot or scratch. */
static void place_new(struct pack *pk, int vi, int i, char how, int *scratch_rank, bool is_fill)
{
	struct pk_val *v = &pk->vals[vi];
	int s;

	if (v->last_use > i) {
		s = pick_slot(pk, v, i);
		if (s < 0) {
			s = new_slot(pk, v);
			grow_states(pk);
		}
		place_in_slot(pk, vi, s, i, how);
		pk->slots[s].cur = vi;
		pk->slots[s].last_phys = v->pref >= 0 ? v->pref : pk->slots[s].last_phys;
		if (is_fill)
			add_op(&pk->runs[i], PO_FILL, s, -1, vi);
		return;
	}
	if (v->final_of >= 0) {
		v->loc = VL_PLAIN;
		v->plain = final_plain(pk, v);
		if (is_fill)
			add_op(&pk->runs[i], PO_FILL, -1, v->plain, vi);
		return;
	}
	if (is_fill)
		return; /* nobody sees it */
	s = pick_slot(pk, v, i);
	if (s >= 0) {
		place_in_slot(pk, vi, s, i, how);
		pk->slots[s].cur = vi;
		return;
	}
	v->loc = VL_PLAIN;
	v->plain = scratch_plain(pk, v, (*scratch_rank)++);
}

/* Buffers changed in place from their start content: in a slot from the start. */
static void in_place_slots(struct pack *pk)
{
	for (size_t v = 0; v < pk->nvals; v++) {
		struct pk_val *val = &pk->vals[v];
		int s;

		if (val->def_kind != VD_INIT || !val->in_place)
			continue;
		s = new_slot(pk, val);
		pk->slots[s].init_phys = val->phys;
		pk->slots[s].init_val = (int)v;
		pk->slots[s].cur = (int)v;
		val->loc = VL_SLOT;
		val->slot = s;
	}
}

/* Saves at run i: a value made by the run before that the end needs. */
static void add_saves(struct pack *pk, int i)
{
	for (size_t s = 0; s < pk->nslots; s++) {
		int c = pk->slots[s].cur;

		if (c >= 0 && pk->vals[c].def == i - 1 && pk->vals[c].final_of >= 0 &&
		    pk->vals[c].def_kind != VD_INIT)
			add_op(&pk->runs[i], PO_SAVE, (int)s, final_plain(pk, &pk->vals[c]), c);
	}
}

/* Pass-through at run i: the values of the slots it leaves alone that a later run still
 * reads; a slot whose value nobody reads again is free. */
static void add_passes(struct pack *pk, int i)
{
	struct pk_run *r = &pk->runs[i];

	for (size_t s = 0; s < pk->nslots; s++) {
		int c = pk->slots[s].cur;

		if (r->state[s] != '.' || c < 0)
			continue;
		if (pk->vals[c].last_use > i) {
			r->state[s] = 'P';
			add_op(r, PO_PASS, (int)s, -1, c);
		} else {
			pk->slots[s].cur = -1;
		}
	}
}

/* The values run i makes: in place in the slot of the value it changes, then its outputs,
 * then the fills after it. */
static void place_run(struct pack *pk, int i)
{
	struct pk_run *r = &pk->runs[i];
	int rank = 0;

	for (size_t k = 0; k < r->nuses; k++)
		if (r->uses[k].kind == ARG_INOUT) {
			int s = pk->vals[r->uses[k].in].slot;

			place_in_slot(pk, r->uses[k].out, s, i, 'I');
			pk->slots[s].cur = r->uses[k].out;
		}
	for (size_t k = 0; k < r->nuses; k++)
		if (r->uses[k].kind == ARG_OUTPUT)
			place_new(pk, r->uses[k].out, i, 'W', &rank, false);
	r = &pk->runs[i];
	for (size_t k = 0; k < r->nfills; k++)
		place_new(pk, r->fills[k], i, 'F', &rank, true);
}

static void allocate(struct pack *pk)
{
	in_place_slots(pk);
	grow_states(pk);
	for (int i = 0; i < (int)pk->nruns; i++) {
		add_saves(pk, i);
		place_run(pk, i);
		add_passes(pk, i);
	}
	/* The last run's values the end needs: the slot's output goes to the buffer. */
	for (size_t s = 0; s < pk->nslots; s++) {
		int c = pk->slots[s].cur;

		if (c >= 0 && pk->vals[c].def == (int)pk->nruns - 1 && pk->vals[c].final_of >= 0)
			pk->slots[s].final_phys = pk->vals[c].final_of;
	}
}

/* A slot that holds nothing when the first run starts and may start with val: preferred,
 * the one whose first value belongs to a partner of val's buffer. -1: none. */
static int free_first_slot(const struct pack *pk, const struct pk_val *val)
{
	int best = -1, best_score = -1;

	for (size_t s = 0; s < pk->nslots; s++) {
		const struct pk_slot *sl = &pk->slots[s];
		int score;

		if (sl->init_phys >= 0 || sl->init_val >= 0 ||
		    !same_type(sl->type, sl->count, val->type, val->count) ||
		    pk->runs[0].state[s] == 'P')
			continue;
		/* the slot's first value: whose buffer? */
		score = 1;
		for (size_t w = 0; w < pk->nvals; w++)
			if (pk->vals[w].loc == VL_SLOT && pk->vals[w].slot == (int)s &&
			    pk->vals[w].def_kind != VD_INIT) {
				score = partners(pk, pk->vals[w].pref, val->phys) ? 2 : 1;
				break;
			}
		if (score > best_score) {
			best = (int)s;
			best_score = score;
		}
	}
	return best;
}

/* Slot s named after the buffer it starts with. */
static void name_slot_after(struct pack *pk, int s, int phys)
{
	char *base = clean_name(phys_label(pk, phys), "slot");
	char *name;

	free(pk->slots[s].name);
	pk->slots[s].name = xstrdup(""); /* its old name is free to take again */
	name = unique_name(pk, base, true);
	free(pk->slots[s].name);
	pk->slots[s].name = name;
	free(base);
}

/* A buffer's start content read only by the first run, and a slot that holds nothing
 * then: the slot's input starts with the buffer (Figure 45: a and d in one pair). */
static void first_inputs(struct pack *pk)
{
	for (size_t v = 0; v < pk->nvals; v++) {
		struct pk_val *val = &pk->vals[v];
		int s;

		if (val->def_kind != VD_INIT || val->phys < 0 || val->loc != VL_NONE ||
		    val->last_use != 0)
			continue;
		s = free_first_slot(pk, val);
		if (s < 0)
			continue;
		pk->slots[s].init_phys = val->phys;
		pk->slots[s].init_val = (int)v;
		val->loc = VL_SLOT;
		val->slot = s;
		name_slot_after(pk, s, val->phys);
	}
}

static void remaining_plains(struct pack *pk)
{
	for (size_t v = 0; v < pk->nvals; v++) {
		struct pk_val *val = &pk->vals[v];

		if (val->loc != VL_NONE || val->def_kind != VD_INIT || val->last_use < 0)
			continue;
		if (is_const(val)) {
			/* one <Fill> stream per constant */
			val->loc = VL_PLAIN;
			val->plain = pack_new_plain(pk, PL_FILL, "fill", val->type, val->count, -1);
			memcpy(pk->plains[val->plain].fill, pk->fill_values[val->fill],
			       TYPE_MAX_BYTES);
		} else {
			val->loc = VL_PLAIN;
			val->plain = pack_new_plain(pk, PL_INIT, phys_label(pk, val->phys),
			                            val->type, val->count, val->phys);
		}
	}
}

int pack_schedule(struct pack *pk, struct cs_err *e)
{
	if (simulate(pk, e))
		return -1;
	allocate(pk);
	first_inputs(pk);
	remaining_plains(pk);
	return 0;
}
