/* The messages between the shell and a warm worker (exec/workerwire.h). */
#include "exec/workerwire.h"

#include <stdlib.h>

#include "exec/planwire.h"

void workerwire_encode_job(const char *cwd, const struct job_plan *jp, struct wbuf *out)
{
	wb_str(out, cwd);
	planwire_encode(jp, out);
}

int workerwire_decode_job(const void *buf, size_t len, char **cwd, struct job_plan **jp,
                          struct cs_err *e)
{
	struct rbuf r = rb_init(buf, len);

	*jp = NULL;
	*cwd = rb_str(&r);
	if (r.bad || !*cwd) {
		free(*cwd);
		*cwd = NULL;
		return err_set(e, "job message: no directory");
	}
	if (planwire_decode(r.p, r.left, jp, e)) {
		free(*cwd);
		*cwd = NULL;
		return -1;
	}
	return 0;
}
