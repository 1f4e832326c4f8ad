/* Waiting by polling instead of sleeping (exec/spin.h). */
#include "exec/spin.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"

bool spin_wanted(void)
{
	static int wanted = -1;

	if (wanted < 0) {
		const char *v = getenv("CARSH_WORKER_SPIN");

		if (v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0))
			wanted = v[0] == '1';
		else
			wanted = sysconf(_SC_NPROCESSORS_ONLN) >= 4;
	}
	return wanted;
}

bool spin_readable(int fd, double ms)
{
	struct pollfd p = {fd, POLLIN, 0};
	double t0;

	if (!spin_wanted())
		return false;
	t0 = clock_ms();
	do {
		if (poll(&p, 1, 0) > 0)
			return true;
	} while (clock_ms() - t0 < ms);
	return false;
}
