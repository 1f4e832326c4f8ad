#include "exec/jobplan.h"

#include <stdlib.h>

#include "data/vbuf.h"

void job_plan_ended(struct job_plan *jp, int status, const struct run_stats *st)
{
	void (*fn)(void *, int, const struct run_stats *) = jp->on_end;

	jp->on_end = NULL;
	if (fn)
		fn(jp->on_end_arg, status, st);
}

/* What staging left in the plan (host copies, mappings) released. */
static void unstage(struct job_plan *jp)
{
	for (size_t i = 0; i < jp->kp.nargs && jp->binds; i++) {
		struct stream_bind *b = &jp->binds[i];

		if (b->host_owned)
			free(jp->kp.args[i].host);
		else if (b->host_mapped)
			vbuf_unmap(jp->kp.args[i].host, jp->kp.args[i].bytes);
		if (b->host_owned || b->host_mapped || b->file_map.base)
			jp->kp.args[i].host = NULL;
		b->host_owned = b->host_mapped = false;
		binio_unmap(&b->file_map);
	}
}

void job_plan_free(struct job_plan *jp)
{
	if (!jp)
		return;
	job_plan_ended(jp, -1, NULL);
	unstage(jp);
	if (jp->give_back) {
		jp->give_back(jp->give_back_arg, jp);
		return;
	}
	for (size_t i = 0; i < jp->kp.nargs && jp->binds; i++) {
		free(jp->binds[i].path);
		free(jp->binds[i].buffer);
		free(jp->binds[i].shm);
	}
	free(jp->binds);
	kernel_plan_free(&jp->kp);
	free(jp);
}

const char *bind_kind_name(enum bind_kind k)
{
	switch (k) {
	case BIND_FILE:
		return "DataFile";
	case BIND_BUFFER:
		return "Buffer";
	case BIND_FILL:
		return "Fill";
	case BIND_DISCARD:
		return "Discard";
	}
	return "?";
}
