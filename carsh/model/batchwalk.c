/* The one walk over a batch step's kinds (model/batch.h, struct step_visitor): the batch
 * runner, `pack` and the DOT writer each give a visitor, so that a new kind of step is
 * dispatched here alone. */
#include "model/batch.h"

int step_visit(const struct step *s, const struct step_visitor *v, void *ctx)
{
	switch (s->kind) {
	case STEP_VIRTBUF:
		return v->virtbuf(ctx, s);
	case STEP_EXEC:
		return v->exec(ctx, s);
	case STEP_SYNC:
		return v->sync(ctx, s);
	case STEP_REPEAT:
		return v->repeat(ctx, s);
	case STEP_BATCH:
		return v->batch(ctx, s);
	case STEP_COMMAND:
		return v->command(ctx, s);
	case STEP_ECHO:
		return v->echo(ctx, s);
	}
	return -1;
}
