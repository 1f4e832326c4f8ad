#include "exec/jobplan.h"

#include <stdlib.h>

#include "data/vbuf.h"

void job_plan_free(struct job_plan *jp)
{
	if (!jp)
		return;
	for (size_t i = 0; i < jp->kp.nargs && jp->binds; i++) {
		if (jp->binds[i].host_owned)
			free(jp->kp.args[i].host);
		else if (jp->binds[i].host_mapped)
			vbuf_unmap(jp->kp.args[i].host, jp->kp.args[i].bytes);
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
