/* The host data the partition engine reads and writes: each stream's array (a work copy
 * where the engine must not write the caller's), its state before the first of several
 * runs, and the swaps that carry one step's outputs to the next step's inputs. */
#include <stdlib.h>
#include <string.h>

#include "engines/partition/partition-int.h"
#include "util/alloc.h"
#include "util/parcopy.h"

static bool pair_input(const struct kernel_plan *kp, size_t i)
{
	for (size_t p = 0; p < kp->npairs; p++)
		if (kp->pairs[p].input == i)
			return true;
	return false;
}

/* The engine writes into a pair's input between steps: an Input gets a work copy (its own
 * data may be a virtual buffer mapped read-only, which a run must not change). A discarded
 * output gets a scratch buffer: the chunks must land somewhere. */
int part_host_data(struct prun *r, struct cs_err *e)
{
	const struct kernel_plan *kp = r->kp;
	size_t n = kp->nargs ? kp->nargs : 1;

	r->host = xcalloc(n, sizeof(void *));
	r->owned = xcalloc(n, sizeof(void *));
	r->pristine = xcalloc(n, sizeof(void *));
	r->version = xcalloc(n, sizeof(unsigned));
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		r->version[i] = 1;
		if (!arg_is_stream(a->kind))
			continue;
		r->host[i] = a->host;
		if ((a->kind == ARG_INPUT && pair_input(kp, i)) || !a->host) {
			r->owned[i] = data_alloc(a->count, type_size(a->type), a->name, e);
			if (!r->owned[i])
				return -1;
			if (a->host)
				memcpy(r->owned[i], a->host, a->bytes);
			else
				memset(r->owned[i], 0, a->bytes);
			r->host[i] = r->owned[i];
		}
		/* Several runs (static's profile) must each start from the same state. */
		if (r->several_runs && a->kind == ARG_INOUT) {
			r->pristine[i] = data_alloc(a->count, type_size(a->type), a->name, e);
			if (!r->pristine[i])
				return -1;
			memcpy(r->pristine[i], r->host[i], a->bytes);
		}
	}
	return 0;
}

/* Before another run (static's profile): the state the first one started from. */
void part_host_restore(struct prun *r)
{
	const struct kernel_plan *kp = r->kp;

	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (r->pristine[i])
			par_memcpy(r->host[i], r->pristine[i], a->bytes, 0);
		else if (r->owned[i] && a->host && a->kind == ARG_INPUT)
			memcpy(r->owned[i], a->host, a->bytes);
		else
			continue;
		r->version[i]++;
	}
}

/* Between steps: each pair's output becomes its input (003's time steps; the executable's
 * <SwapPair>s). */
void part_host_swap(struct prun *r)
{
	const struct kernel_plan *kp = r->kp;

	for (size_t p = 0; p < kp->npairs; p++) {
		size_t in = kp->pairs[p].input, out = kp->pairs[p].output;

		par_memcpy(r->host[in], r->host[out], kp->args[in].bytes, 0);
		r->version[in]++;
	}
}

/* Only after part_close_devices: the cores' copy streams are buffers on these arrays
 * (CL_MEM_USE_HOST_PTR). */
void part_host_free(struct prun *r)
{
	for (size_t a = 0; r->owned && a < r->kp->nargs; a++) {
		free(r->owned[a]);
		free(r->pristine[a]);
	}
	free(r->host);
	free(r->owned);
	free(r->pristine);
	free(r->version);
}
