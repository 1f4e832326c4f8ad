/* The terminal's keys kept away from the drivers' builds (runtime/buildsig.h). */
#include "runtime/buildsig.h"

#include <pthread.h>
#include <stddef.h>

static const int kept[2] = {SIGINT, SIGQUIT};

/* The SIGINT handler the drivers installed where carsh left the default one (the process
 * ends by SIGINT all the same); NULL when none. Written once, before any build. */
static void (*drivers_sigint)(int);

static bool is_function(const struct sigaction *sa)
{
	return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

/* A handler of carsh's own: Ctrl-C does not end this process. */
static bool survives_sigint(void)
{
	struct sigaction now;

	if (sigaction(SIGINT, NULL, &now) != 0)
		return false;
	return is_function(&now) && now.sa_handler != drivers_sigint;
}

static bool block_sigint(sigset_t *old)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, SIGINT);
	return pthread_sigmask(SIG_BLOCK, &one, old) == 0;
}

void buildsig_start_begin(struct buildsig_start *st)
{
	for (int i = 0; i < 2; i++)
		if (sigaction(kept[i], NULL, &st->act[i]) != 0)
			st->act[i].sa_handler = SIG_DFL; /* nothing to put back */
	st->held = survives_sigint() && block_sigint(&st->mask);
}

void buildsig_start_end(const struct buildsig_start *st)
{
	for (int i = 0; i < 2; i++) {
		struct sigaction now;

		if (sigaction(kept[i], NULL, &now) != 0 || now.sa_handler == st->act[i].sa_handler)
			continue;
		/* It fails only for an invalid signal or address, neither possible here. */
		if (st->act[i].sa_handler != SIG_DFL)
			(void)sigaction(kept[i], &st->act[i], NULL);
		else if (kept[i] == SIGINT)
			drivers_sigint = now.sa_handler;
	}
	if (st->held)
		(void)pthread_sigmask(SIG_SETMASK, &st->mask, NULL); /* as sigaction above */
}

void buildsig_hold(sigset_t *old, bool *held)
{
	*held = survives_sigint() && block_sigint(old);
}

void buildsig_release(const sigset_t *old, bool held)
{
	/* It fails only for an invalid "how", which SIG_SETMASK is not. */
	if (held)
		(void)pthread_sigmask(SIG_SETMASK, old, NULL);
}
