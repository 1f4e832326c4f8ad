/* The server's spare session workers (server/spares.h). */
#include "server/spares.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "exec/workerwire.h"
#include "util/alloc.h"
#include "util/strvec.h"

extern char **environ;

struct spare {
	struct worker *wk;
	bool again; /* it served a session before, and has its devices open */
	struct spare *next;
};

struct spares {
	struct workers *pool;
	struct spare *waiting; /* newest first */
	unsigned n;
};

struct spares *spares_new(struct workers *pool)
{
	struct spares *sp = xcalloc(1, sizeof(*sp));

	sp->pool = pool;
	return sp;
}

/* Killed rather than asked: a spare still opening its devices reads its socket only after,
 * and the server must not wait for that. It holds nothing of anyone's yet. */
static void end_spare(struct spares *sp, struct spare **at)
{
	struct spare *s = *at;
	int ws;

	*at = s->next;
	if (!worker_ended(s->wk))
		worker_stop(s->wk, SIGKILL, &ws);
	worker_discard(s->wk);
	free(s);
	sp->n--;
}

void spares_free(struct spares *sp)
{
	if (!sp)
		return;
	while (sp->waiting)
		end_spare(sp, &sp->waiting);
	free(sp);
}

unsigned spares_waiting(const struct spares *sp)
{
	return sp->n;
}

/* The server's environment with its job environment replaced by key's lines. */
static void env_for(const char *key, struct strvec *envp)
{
	const char *p = key;

	for (char **e = environ; *e; e++)
		if (!workerwire_is_job_env(*e))
			sv_push(envp, *e);
	while (*p) {
		size_t n = strcspn(p, "\n");

		if (n)
			sv_push_owned(envp, xstrndup(p, n));
		p += n + (p[n] == '\n');
	}
}

static struct worker *start(struct spares *sp, const char *key, struct cs_err *e)
{
	static char *const none[] = {NULL};
	struct strvec envp = STRVEC_INIT;
	struct worker *wk;

	env_for(key, &envp);
	wk = workers_spawn_session(sp->pool, envp.v ? envp.v : none, key, e);
	sv_free(&envp);
	return wk;
}

/* wk waits first in line (again: it served a session before); past SPARES_MAX the oldest
 * ends. */
static void push(struct spares *sp, struct worker *wk, bool again)
{
	struct spare *s = xcalloc(1, sizeof(*s));
	struct spare **last = &sp->waiting;

	*s = (struct spare){wk, again, sp->waiting};
	sp->waiting = s;
	sp->n++;
	if (sp->n <= SPARES_MAX)
		return;
	while ((*last)->next)
		last = &(*last)->next;
	end_spare(sp, last);
}

/* A spare for key waits, and no more than SPARES_MAX in all. */
static void replenish(struct spares *sp, const char *key)
{
	struct cs_err e;
	struct worker *wk;

	for (struct spare *s = sp->waiting; s; s = s->next)
		if (strcmp(worker_key(s->wk), key) == 0)
			return;
	if ((wk = start(sp, key, &e)))
		push(sp, wk, false);
}

void spares_put(struct spares *sp, struct worker *wk)
{
	push(sp, wk, true);
}

struct worker *spares_take(struct spares *sp, const char *key, bool *warm, bool *again,
                           struct cs_err *e)
{
	struct worker *wk = NULL;

	*again = false;
	for (struct spare **p = &sp->waiting; *p && !wk;) {
		if (worker_ended((*p)->wk)) {
			end_spare(sp, p);
			continue;
		}
		if (strcmp(worker_key((*p)->wk), key) != 0) {
			p = &(*p)->next;
			continue;
		}
		struct spare *s = *p;

		wk = s->wk;
		*again = s->again;
		*p = s->next;
		free(s);
		sp->n--;
	}
	*warm = wk != NULL;
	if (!wk)
		wk = start(sp, key, e);
	if (wk)
		replenish(sp, key);
	return wk;
}
