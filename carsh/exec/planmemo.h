/*
 * A warm worker's decoded plans, kept by their bytes (exec/planwire.h): a batch sends the
 * same few plans again and again (each step of a <Repeat>, the two sides of a swap pair), and
 * a plan whose bytes are those of one kept is not decoded again (docs/executors.md "The
 * wire"). Equal bytes are the same plan: the kernel, its arguments' values and every
 * binding, the shared-memory objects included.
 */
#ifndef CARSH_EXEC_PLANMEMO_H
#define CARSH_EXEC_PLANMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/jobplan.h"
#include "runtime/session.h"
#include "util/error.h"

struct plan_memo;

/* What the worker's session resolved for a kept plan, kept with it: the device its
 * selectors pick and the kernel object of its program there (both live as long as the
 * session). Equal bytes make the same choice and the same program, so a plan run again
 * skips the session's look-ups (the program's was a compare of its whole source). A plan
 * decoded anew starts with none (dev NULL). */
struct plan_bound {
	struct rt_dev *dev;
	struct rt_kernel *kern;
};

struct plan_memo *planmemo_new(void);
void planmemo_free(struct plan_memo *m);

/* The plan that buf's len bytes encode: a kept one, or decoded and kept. by_token: the
 * bytes begin with the token of a source defined here (planmemo_define_source), the plan's
 * source. *jp stays the memo's (never freed by the caller; valid until the next
 * planmemo_get or planmemo_free); it must come back from a job as it came (stage_release
 * undoes what staging set). -1 with e when the bytes are not a plan, or name a source not
 * kept here. */
int planmemo_get(struct plan_memo *m, const void *buf, size_t len, bool by_token,
                 struct job_plan **jp, struct cs_err *e);

/* The resolved device and kernel kept with jp, a plan planmemo_get returned (valid as jp
 * is); NULL when jp is not one the memo keeps. */
struct plan_bound *planmemo_bound(struct plan_memo *m, const struct job_plan *jp);

/* A kernel source sent by reference (exec/workerwire.h, struct wire_source): kept, with the
 * last WORKER_SOURCES_KEPT defined before it, for the plans whose bytes begin with its token
 * (planmemo_get's by_token). The memo takes a copy of text. */
void planmemo_define_source(struct plan_memo *m, uint64_t nonce, uint64_t addr, const char *text);

#endif
