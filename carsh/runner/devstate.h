/*
 * The state of the per-job device choice (runner/devplace.h), kept in the session and freed
 * with it: this header lets the session (shellstate.c) end it without the choice's code,
 * which sits above the session and its contexts.
 */
#ifndef CARSH_RUNNER_DEVSTATE_H
#define CARSH_RUNNER_DEVSTATE_H

/* The session's choice state (created on first use); frees it, saving what it learnt. */
struct placer;
void placer_free(struct placer *p);

#endif
