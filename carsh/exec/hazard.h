/*
 * Buffer hazards (DESIGN §4): a job that writes a virtual buffer another running job reads
 * or writes, or reads one another running job writes, waits for it, so results never depend
 * on timing. Claims are registered in the order commands are issued; a claim may proceed
 * once no earlier claim that is still registered conflicts with it. Waiting only ever goes
 * to earlier claims, so it cannot deadlock. Buffers are identified by their shared-memory
 * object, not their name: `virtbuf swap` after a job started does not change what it uses.
 */
#ifndef CARSH_EXEC_HAZARD_H
#define CARSH_EXEC_HAZARD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct hazards;
struct claim;

struct hazards *hazards_new(void);
void hazards_free(struct hazards *hz);

/* A claim on buffers for `label` ("job [2] fft.exe.xml"): call hazard_use for each buffer,
 * then hazard_register. */
struct claim *claim_new(const char *label);
void claim_use(struct claim *c, const char *shm, const char *name, bool writes);
/* A claim that borrows its label and every string claim_use gives it (room for uses made at
 * once): a window's job, whose plan holds them until its claim is released. */
struct claim *claim_new_borrowed(const char *label, size_t uses);
/* Claims of one nonzero group never wait for each other: their jobs run one after another
 * in one worker, in the order they were sent (a window of jobs in flight, exec/jobwin.h). */
void claim_set_group(struct claim *c, uint64_t group);
/* True when the claim names no buffer (nothing to wait for). */
bool claim_empty(const struct claim *c);
/* Enter the claim in issue order. Ownership passes to hz. */
void hazard_register(struct hazards *hz, struct claim *c);

/* Rename a registered claim (once a background job has its id). */
void hazard_relabel(struct hazards *hz, struct claim *c, const char *label);

/* Wait until no earlier registered claim conflicts. Before waiting, notice() gets one line
 * ("waiting for job [1] a.exe.xml, which writes 're'"). Returns -1 when *interrupted became
 * set while waiting (the claim stays registered: release it). */
int hazard_wait(struct hazards *hz, struct claim *c, void (*notice)(void *ctx, const char *msg),
                void *ctx, volatile sig_atomic_t *interrupted);

/* Whether no earlier registered claim conflicts now (hazard_wait without the waiting). */
bool hazard_ready(struct hazards *hz, const struct claim *c);
/* The job is over: remove and free the claim; waiters re-check. */
void hazard_release(struct hazards *hz, struct claim *c);

/* The label of a registered claim that uses shm, copied into buf; false when none does. */
bool hazard_user(struct hazards *hz, const char *shm, char *buf, size_t len);

/* The labels of every registered claim that uses shm, "; "-separated, into buf ("-" when
 * none). */
void hazard_users(struct hazards *hz, const char *shm, char *buf, size_t len);

#endif
