/*
 * The shell's side of a window's plans sent again (docs/executors.md "The wire"): the plan's
 * part of a job message (workerwire_encode_plan), kept by the plan keeper's stamp
 * (job_plan.stamp), the source's token and the shared-memory objects bound, so that a
 * batch's step sent again (each step of a <Repeat>, each run of the batch) is not encoded
 * again. A plan planned again (another file, parameter or buffer size) has another stamp; a
 * swapped buffer is another object; either makes other bytes.
 */
#ifndef CARSH_EXEC_PLANENC_H
#define CARSH_EXEC_PLANENC_H

#include "exec/jobplan.h"
#include "exec/workerwire.h"
#include "util/wirebuf.h"

struct plan_encs;

struct plan_encs *planenc_new(void);
void planenc_free(struct plan_encs *c);

/* jp's part with src (NULL: the source inline), as workerwire_encode_plan writes it: kept
 * bytes where jp's stamp, src and objects are those of a kept encoding, else encoded now
 * (and kept, where jp has a stamp). Valid until the next planenc_get or planenc_free. */
const struct wbuf *planenc_get(struct plan_encs *c, const struct job_plan *jp,
                               const struct wire_source *src);

#endif
