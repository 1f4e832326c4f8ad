/* What an engine's process is told (runner/enginespec.h). */
#include "runner/enginespec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* Far more than any command line or session holds: a damaged count is refused before it
 * allocates. */
#define SPEC_MAX_ITEMS (1u << 20)

void engine_spec_encode(const struct engine_spec *sp, struct wbuf *w)
{
	wb_u32(w, (uint32_t)sp->argc);
	for (int i = 0; i < sp->argc; i++)
		wb_str(w, sp->argv[i]);
	wb_u64(w, sp->vars.n);
	for (size_t i = 0; i < sp->vars.n; i++) {
		wb_str(w, sp->vars.v[i].name);
		wb_str(w, sp->vars.v[i].value);
		wb_str(w, sp->vars.v[i].origin);
	}
	wb_str(w, sp->device_cli);
	wb_str(w, sp->cwd);
	wb_u64(w, sp->nbufs);
	for (size_t i = 0; i < sp->nbufs; i++) {
		const struct vbuf *v = &sp->bufs[i];

		wb_str(w, v->name);
		wb_str(w, v->shm);
		wb_u32(w, (uint32_t)v->type.scalar);
		wb_u32(w, v->type.width);
		wb_u64(w, v->count);
	}
	wb_u32(w, sp->profile);
	wb_u32(w, sp->detached);
}

static void decode_vars(struct rbuf *r, struct params *vars)
{
	uint64_t n = rb_u64(r);

	for (uint64_t i = 0; i < n && !r->bad && n < SPEC_MAX_ITEMS; i++) {
		char *name = rb_str(r), *value = rb_str(r), *origin = rb_str(r);

		if (name && value)
			params_set(vars, name, value, origin);
		else
			r->bad = true;
		free(name);
		free(value);
		free(origin);
	}
	if (n >= SPEC_MAX_ITEMS)
		r->bad = true;
}

static void decode_bufs(struct rbuf *r, struct engine_spec *sp)
{
	uint64_t n = rb_u64(r);

	if (n >= SPEC_MAX_ITEMS) {
		r->bad = true;
		return;
	}
	sp->bufs = xcalloc(n ? n : 1, sizeof(*sp->bufs));
	for (uint64_t i = 0; i < n && !r->bad; i++) {
		struct vbuf *v = &sp->bufs[i];

		v->name = rb_str(r);
		v->shm = rb_str(r);
		v->type.scalar = (enum scalar)rb_u32(r);
		v->type.width = rb_u32(r);
		v->count = rb_u64(r);
		sp->nbufs++;
		if (!v->name || !v->shm || v->type.scalar >= SC_COUNT)
			r->bad = true;
	}
}

int engine_spec_decode(const void *p, size_t len, struct engine_spec *sp, struct cs_err *e)
{
	struct rbuf r = rb_init(p, len);
	uint32_t argc = rb_u32(&r);

	memset(sp, 0, sizeof(*sp));
	if (argc == 0 || argc >= SPEC_MAX_ITEMS)
		return err_set(e, "the engine's description is damaged");
	sp->argv = xcalloc(argc + 1, sizeof(char *));
	for (uint32_t i = 0; i < argc && !r.bad; i++) {
		sp->argv[i] = rb_str(&r);
		sp->argc++;
		if (!sp->argv[i])
			r.bad = true;
	}
	decode_vars(&r, &sp->vars);
	sp->device_cli = rb_str(&r);
	sp->cwd = rb_str(&r);
	decode_bufs(&r, sp);
	sp->profile = rb_u32(&r) != 0;
	sp->detached = rb_u32(&r) != 0;
	if (r.bad || !sp->cwd)
		return err_set(e, "the engine's description is damaged");
	return 0;
}

void engine_spec_free(struct engine_spec *sp)
{
	for (int i = 0; i < sp->argc; i++)
		free(sp->argv[i]);
	free(sp->argv);
	params_free(&sp->vars);
	free(sp->device_cli);
	free(sp->cwd);
	for (size_t i = 0; i < sp->nbufs; i++)
		vbuf_entry_free(&sp->bufs[i]);
	free(sp->bufs);
	memset(sp, 0, sizeof(*sp));
}
