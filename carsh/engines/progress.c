/* An engine's progress line (engines/progress.h). */
#include "engines/progress.h"

#include <stdio.h>

#include "util/clock.h"

bool progress_due(struct progress *p, bool force)
{
	double now = clock_ms();

	if (!p->on || (!force && now - p->last_ms < 100))
		return false;
	p->last_ms = now;
	return true;
}

void progress_bar(size_t done, size_t total, int width)
{
	static const char bar[] = "##############################";
	int fill = total ? (int)(done * (size_t)width / total) : 0;

	fprintf(stderr, " [%.*s%*s]", fill, bar, width - fill, "");
}

void progress_end(const struct progress *p)
{
	if (p->on)
		fprintf(stderr, "\r\033[K");
}
