/* rank="auto" by forecast (mpi/rankforecast.h). */
#include "mpi/rankforecast.h"

#include <stdio.h>

#include "mpi/replicas.h"
#include "util/strbuf.h"

size_t rank_missing_bytes(const struct replicas *r, const struct job_plan *jp, int rank)
{
	size_t bytes = 0;

	for (size_t i = 0; i < jp->kp.nargs; i++)
		if (jp->binds[i].how == BIND_BUFFER && arg_is_read(jp->kp.args[i].kind) &&
		    !replicas_current(r, jp->binds[i].buffer, rank))
			bytes += jp->kp.args[i].bytes;
	return bytes;
}

static double end_ms(const double *queued_ms, const size_t *missing, int r, double job_ms,
                     double bytes_per_ms)
{
	return queued_ms[r] + (double)missing[r] / bytes_per_ms + job_ms;
}

int rank_pick(const double *queued_ms, const size_t *missing, int n, double job_ms,
              double bytes_per_ms, char *why, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	int best = 0;

	for (int r = 1; r < n; r++)
		if (end_ms(queued_ms, missing, r, job_ms, bytes_per_ms) <
		    end_ms(queued_ms, missing, best, job_ms, bytes_per_ms))
			best = r;
	sb_addf(&sb, "auto: rank %d, forecast %.5g ms", best,
	        end_ms(queued_ms, missing, best, job_ms, bytes_per_ms));
	for (int r = 0, shown = 0; r < n; r++)
		if (r != best)
			sb_addf(&sb, "%srank %d %.5g ms", shown++ ? ", " : " vs ", r,
			        end_ms(queued_ms, missing, r, job_ms, bytes_per_ms));
	snprintf(why, len, "%s", sb_str(&sb));
	sb_free(&sb);
	return best;
}
