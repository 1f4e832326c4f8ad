/* The arithmetic of the per-job device choice, pure (runner/devplace.h, docs/auto.md): the
 * selector's criterion, the forecast between known sizes, a device's queue, the pick. */
#include <string.h>
#include <strings.h>

#include "runner/devplace.h"
#include "util/strbuf.h"

int place_mode(const char *sel, enum place_crit *crit)
{
	if (!sel || strncasecmp(sel, "auto", 4) != 0 || (sel[4] && sel[4] != ':'))
		return 0;
	*crit = PLACE_TIME;
	if (!sel[4] || strcasecmp(sel + 5, "time") == 0)
		return 1;
	if (strcasecmp(sel + 5, "energy") == 0) {
		*crit = PLACE_ENERGY;
		return 1;
	}
	return -1;
}

double place_forecast(const struct prof_rec *lo, const struct prof_rec *hi, size_t size, int i)
{
	if (lo && hi)
		return profstore_lerp(lo, hi, size, i);
	if (hi)
		return hi->v[i];
	if (lo->v[i] < 0)
		return lo->v[i];
	return lo->v[i] * (double)size / (double)lo->size;
}

double place_busy_ms(const double *forecast, const double *placed_at, size_t n, double last_end,
                     double now)
{
	double sum = 0, ran;

	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		sum += forecast[i];
	ran = now - (placed_at[0] > last_end ? placed_at[0] : last_end);
	if (ran < 0)
		ran = 0;
	return sum - (ran < forecast[0] ? ran : forecast[0]);
}

static size_t first_unexplored(const struct place_cand *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!c[i].known && !c[i].exploring)
			return i;
	return n;
}

static size_t fewest_queued(const struct place_cand *c, size_t n)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (c[i].queued < c[best].queued)
			best = i;
	return best;
}

double place_energy_mj(const struct place_cand *c, size_t n, size_t i)
{
	double end = 0, idle = 0, t = c[i].time_ms, later;

	for (size_t k = 0; k < n; k++) {
		end = c[k].busy_ms > end ? c[k].busy_ms : end;
		idle += c[k].idle_w > 0 ? c[k].idle_w : 0;
	}
	later = c[i].busy_ms + t - end;
	return c[i].energy_mj - (c[i].idle_w > 0 ? c[i].idle_w : 0) * t +
	       idle * (later > 0 ? later : 0);
}

/* Whether candidate a is better than b. */
static bool better(const struct place_cand *c, size_t n, size_t a, size_t b, enum place_crit crit)
{
	double ta = c[a].busy_ms + c[a].time_ms, tb = c[b].busy_ms + c[b].time_ms, ea, eb;

	if (crit == PLACE_ENERGY && (c[a].energy_mj < 0) != (c[b].energy_mj < 0))
		return c[a].energy_mj >= 0;
	if (crit == PLACE_ENERGY && c[a].energy_mj >= 0) {
		ea = place_energy_mj(c, n, a);
		eb = place_energy_mj(c, n, b);
		if (ea != eb)
			return ea < eb;
	}
	return ta < tb;
}

/* "forecast 3.1 ms vs cpu 12.4 ms" or "forecast 2.1 J vs cpu 5.3 J". */
static void compare(const struct place_cand *c, size_t n, size_t best, enum place_crit crit,
                    char *why, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t k = 0, shown = 0; k <= n; k++) {
		size_t i = k == 0 ? best : k - 1;
		bool energy = crit == PLACE_ENERGY && c[i].energy_mj >= 0;

		if (k > 0 && i == best)
			continue;
		if (k == 0)
			sb_addf(&sb, "auto%s: %s, forecast ", crit == PLACE_ENERGY ? ":energy" : "",
			        c[i].name);
		else
			sb_addf(&sb, "%s%s ", shown++ ? ", " : " vs ", c[i].name);
		if (energy)
			sb_addf(&sb, "%.3g J", place_energy_mj(c, n, i) / 1000);
		else
			sb_addf(&sb, "%.5g ms", c[i].busy_ms + c[i].time_ms);
	}
	snprintf(why, len, "%s", sb_str(&sb));
	sb_free(&sb);
}

size_t place_pick(const struct place_cand *c, size_t n, enum place_crit crit, char *why, size_t len)
{
	const char *how = crit == PLACE_ENERGY ? "auto:energy" : "auto";
	size_t best = first_unexplored(c, n);

	if (n == 1) {
		snprintf(why, len, "%s: %s, the one device that can run it", how, c[0].name);
		return 0;
	}
	if (best < n) {
		snprintf(why, len, "%s: %s, a first run there (no profile yet)", how, c[best].name);
		return best;
	}
	for (size_t i = 0; i < n; i++) {
		if (!c[i].known) {
			best = fewest_queued(c, n);
			snprintf(why, len,
			         "%s: %s, profiles still being measured: fewest jobs queued", how,
			         c[best].name);
			return best;
		}
	}
	best = 0;
	for (size_t i = 1; i < n; i++)
		if (better(c, n, i, best, crit))
			best = i;
	compare(c, n, best, crit, why, len);
	return best;
}
