#include "exec/jobstatus.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "exec/process.h"
#include "util/strbuf.h"

static void claim_binds(struct claim *c, const struct job_plan *jp)
{
	for (size_t i = 0; i < jp->kp.nargs; i++) {
		const struct stream_bind *b = &jp->binds[i];
		enum arg_kind k = jp->kp.args[i].kind;

		if (b->how == BIND_BUFFER && b->shm)
			claim_use(c, b->shm, b->buffer, k != ARG_INPUT);
	}
}

struct claim *plan_claim_borrowed(const struct job_plan *jp)
{
	struct claim *c = claim_new_borrowed(jp->kp.label, jp->kp.nargs);

	claim_binds(c, jp);
	return c;
}

struct claim *plan_claim(const struct job_plan *jp, const char *label)
{
	struct claim *c = claim_new(label);

	claim_binds(c, jp);
	return c;
}

/* "kernel 'k' on DEVICE; buffers it wrote: a, b" for a child that died of a signal. */
static void crash_message(const struct job_plan *jp, const struct job_result *res, int ws,
                          struct cs_err *e)
{
	struct strbuf sb = STRBUF_INIT;
	char how[64];

	proc_describe(ws, how, sizeof(how));
	sb_addf(&sb, "%s (kernel '%s'%s%s)", how, jp->kp.kernel, res->stats.device[0] ? " on " : "",
	        res->stats.device);
	for (size_t i = 0, n = 0; i < jp->kp.nargs; i++) {
		if (jp->binds[i].how != BIND_BUFFER || jp->kp.args[i].kind == ARG_INPUT)
			continue;
		sb_addf(&sb, "%s%s", n++ ? ", " : "; buffers it wrote: ", jp->binds[i].buffer);
	}
	err_set(e, "%s", sb_str(&sb));
	sb_free(&sb);
}

int exec_job_status(const struct job_plan *jp, int ws, const struct job_result *res,
                    struct cs_err *e)
{
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
		return 0;
	/* Its output pipe was closed (`run ... y=- | head -1`): the reader's choice, not the
	 * kernel's fault. Quiet, with the status bash gives: 141. */
	if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGPIPE) {
		err_clear(e);
		return proc_status(ws);
	}
	if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGINT)
		err_set(e, "%s: interrupted", jp ? jp->kp.label : "job");
	else if (WIFSIGNALED(ws) && jp)
		crash_message(jp, res, ws, e);
	else if (res->msg[0])
		memcpy(e->msg, res->msg, sizeof(e->msg));
	else
		proc_describe(ws, e->msg, sizeof(e->msg));
	return proc_status(ws) ? proc_status(ws) : 1;
}
