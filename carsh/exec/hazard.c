#include "exec/hazard.h"

#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"

struct use {
	char *shm;
	char *name;
	bool writes;
};

struct claim {
	char *label;
	struct use *uses;
	size_t n, cap;
	/* claim_new_borrowed's: the label and the uses' strings are the caller's */
	bool label_borrowed, uses_borrowed;
	uint64_t group;     /* 0, or the window whose jobs are ordered by their worker */
	struct claim *next; /* registration order */
};

struct hazards {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct claim *head;
};

struct hazards *hazards_new(void)
{
	struct hazards *hz = xcalloc(1, sizeof(*hz));

	pthread_mutex_init(&hz->lock, NULL);
	pthread_cond_init(&hz->changed, NULL);
	return hz;
}

static void claim_free(struct claim *c)
{
	for (size_t i = 0; i < c->n && !c->uses_borrowed; i++) {
		free(c->uses[i].shm);
		free(c->uses[i].name);
	}
	free(c->uses);
	if (!c->label_borrowed)
		free(c->label);
	free(c);
}

void hazards_free(struct hazards *hz)
{
	if (!hz)
		return;
	while (hz->head) {
		struct claim *c = hz->head;

		hz->head = c->next;
		claim_free(c);
	}
	pthread_cond_destroy(&hz->changed);
	pthread_mutex_destroy(&hz->lock);
	free(hz);
}

struct claim *claim_new(const char *label)
{
	struct claim *c = xcalloc(1, sizeof(*c));

	c->label = xstrdup(label);
	return c;
}

struct claim *claim_new_borrowed(const char *label, size_t uses)
{
	struct claim *c = xcalloc(1, sizeof(*c));

	c->label = (char *)label;
	c->label_borrowed = c->uses_borrowed = true;
	c->uses = xgrow(NULL, &c->cap, uses ? uses : 1, sizeof(*c->uses));
	return c;
}

void claim_use(struct claim *c, const char *shm, const char *name, bool writes)
{
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->uses[i].shm, shm) == 0) {
			c->uses[i].writes = c->uses[i].writes || writes;
			return;
		}
	}
	c->uses = xgrow(c->uses, &c->cap, c->n + 1, sizeof(*c->uses));
	c->uses[c->n++] = c->uses_borrowed ? (struct use){(char *)shm, (char *)name, writes}
	                                   : (struct use){xstrdup(shm), xstrdup(name), writes};
}

void claim_set_group(struct claim *c, uint64_t group)
{
	c->group = group;
}

bool claim_empty(const struct claim *c)
{
	return c->n == 0;
}

void hazard_register(struct hazards *hz, struct claim *c)
{
	struct claim **tail;

	pthread_mutex_lock(&hz->lock);
	for (tail = &hz->head; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	pthread_mutex_unlock(&hz->lock);
}

/* The first use of the earlier claim that conflicts with later, or NULL. */
static const struct use *conflict(const struct claim *earlier, const struct claim *later)
{
	if (earlier->group && earlier->group == later->group)
		return NULL;
	for (size_t i = 0; i < earlier->n; i++)
		for (size_t j = 0; j < later->n; j++)
			if ((earlier->uses[i].writes || later->uses[j].writes) &&
			    strcmp(earlier->uses[i].shm, later->uses[j].shm) == 0)
				return &earlier->uses[i];
	return NULL;
}

static const struct claim *blocker(const struct hazards *hz, const struct claim *c,
                                   const struct use **u)
{
	for (const struct claim *p = hz->head; p && p != c; p = p->next)
		if ((*u = conflict(p, c)) != NULL)
			return p;
	return NULL;
}

static void deadline_in(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ms * 1000000L;
	ts->tv_sec += ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

int hazard_wait(struct hazards *hz, struct claim *c, void (*notice)(void *ctx, const char *msg),
                void *ctx, volatile sig_atomic_t *interrupted)
{
	const struct claim *b;
	const struct use *u;
	bool told = false;
	int rc = 0;

	pthread_mutex_lock(&hz->lock);
	while ((b = blocker(hz, c, &u)) != NULL) {
		struct timespec ts;

		if (!told && notice) {
			char msg[512];

			snprintf(msg, sizeof(msg), "waiting for %s, which %s '%s'", b->label,
			         u->writes ? "writes" : "reads", u->name);
			notice(ctx, msg);
			told = true;
		}
		if (interrupted && *interrupted) {
			rc = -1;
			break;
		}
		/* A timed wait: Ctrl-C arrives as a flag, not as a wake-up. */
		deadline_in(&ts, 100);
		pthread_cond_timedwait(&hz->changed, &hz->lock, &ts);
	}
	pthread_mutex_unlock(&hz->lock);
	return rc;
}

bool hazard_ready(struct hazards *hz, const struct claim *c)
{
	const struct use *u;
	bool ready;

	pthread_mutex_lock(&hz->lock);
	ready = blocker(hz, c, &u) == NULL;
	pthread_mutex_unlock(&hz->lock);
	return ready;
}

void hazard_release(struct hazards *hz, struct claim *c)
{
	struct claim **pp;

	if (!c)
		return;
	pthread_mutex_lock(&hz->lock);
	for (pp = &hz->head; *pp && *pp != c; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = c->next;
	pthread_cond_broadcast(&hz->changed);
	pthread_mutex_unlock(&hz->lock);
	claim_free(c);
}

bool hazard_user(struct hazards *hz, const char *shm, char *buf, size_t len)
{
	bool found = false;

	pthread_mutex_lock(&hz->lock);
	for (const struct claim *p = hz->head; p && !found; p = p->next)
		for (size_t i = 0; i < p->n && !found; i++)
			if (strcmp(p->uses[i].shm, shm) == 0) {
				snprintf(buf, len, "%s", p->label);
				found = true;
			}
	pthread_mutex_unlock(&hz->lock);
	return found;
}

void hazard_relabel(struct hazards *hz, struct claim *c, const char *label)
{
	char *old;

	pthread_mutex_lock(&hz->lock);
	old = c->label_borrowed ? NULL : c->label;
	c->label = xstrdup(label);
	c->label_borrowed = false;
	pthread_mutex_unlock(&hz->lock);
	free(old);
}

void hazard_users(struct hazards *hz, const char *shm, char *buf, size_t len)
{
	size_t used = 0;

	snprintf(buf, len, "-");
	pthread_mutex_lock(&hz->lock);
	for (const struct claim *p = hz->head; p; p = p->next)
		for (size_t i = 0; i < p->n; i++)
			if (strcmp(p->uses[i].shm, shm) == 0 && used < len)
				used += (size_t)snprintf(buf + used, len - used, "%s%s",
				                         used ? "; " : "", p->label);
	pthread_mutex_unlock(&hz->lock);
}
