/* A driver's abort during an engine's device work, said in CarSh's words (abortnote.h). */
#include "runtime/abortnote.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/pocltemp.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned armed;
static struct sigaction before;
/* Written before the handler is installed; the handler only reads it. */
static char note[2048];
static volatile sig_atomic_t note_len;

/* Async-signal-safe: write(2), sigaction(2) and raise(3) only. */
static void on_abort(int sig)
{
	struct sigaction dfl;

	if (note_len > 0 && write(STDERR_FILENO, note, (size_t)note_len) < 0)
		note_len = 0; /* nothing more to do on standard error */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, NULL);
	raise(sig); /* delivered once the handler returns: the status stays 134 */
}

static void set_note(const char *what)
{
	char *kcache = rt_pocl_kcache_dir();
	int n = snprintf(note, sizeof(note),
	                 "carsh: %s: the OpenCL driver aborted (SIGABRT) while the engine ran on "
	                 "its devices, taking carsh with it; its own message, if any, is above. A "
	                 "corrupt PoCL kernel cache aborts so: remove %s and run again\n",
	                 what, kcache ? kcache : "PoCL's kernel cache (~/.cache/pocl/kcache)");

	free(kcache);
	note_len = n < 0 ? 0 : n >= (int)sizeof(note) ? (int)sizeof(note) - 1 : n;
}

void rt_abort_note_arm(const char *what)
{
	struct sigaction sa;

	pthread_mutex_lock(&lock);
	note_len = 0;
	set_note(what);
	if (armed++ == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_abort;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGABRT, &sa, &before) != 0)
			armed--; /* no note then: the abort stays as it was */
	}
	pthread_mutex_unlock(&lock);
}

void rt_abort_note_rearm(void)
{
	struct sigaction now, sa;

	pthread_mutex_lock(&lock);
	if (armed && sigaction(SIGABRT, NULL, &now) == 0 && now.sa_handler != on_abort) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_abort;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGABRT, &sa, NULL) == 0)
			before = now;
	}
	pthread_mutex_unlock(&lock);
}

void rt_abort_note_disarm(void)
{
	pthread_mutex_lock(&lock);
	if (armed && --armed == 0) {
		note_len = 0;
		sigaction(SIGABRT, &before, NULL);
	}
	pthread_mutex_unlock(&lock);
}
