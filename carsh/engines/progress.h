/*
 * An engine's progress line on standard error (partition, pipeline). It is redrawn at most
 * every 100 ms, so that drawing costs nothing beside the work however often chunks or items
 * end, and cleared when the run ends, so that the report starts on an empty line.
 */
#ifndef CARSH_ENGINES_PROGRESS_H
#define CARSH_ENGINES_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct progress {
	bool on;        /* wanted: a terminal, not --no-progress or --json */
	double last_ms; /* clock_ms() at the last redraw */
};

/* Whether to redraw now: on, and force or 100 ms since the last redraw (which this counts
 * as done). */
bool progress_due(struct progress *p, bool force);
/* " [####      ]": done of total in width marks (at most 30). */
void progress_bar(size_t done, size_t total, int width);
/* Clears the line when it is on. */
void progress_end(const struct progress *p);

#endif
