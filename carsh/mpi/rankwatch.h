/*
 * The ranks' watchdog (docs/scale-out.md "Failures"): a TCP connection from every rank to
 * rank 0, beside MPI, over which each side learns at once that the other is gone. A process
 * that dies, even by SIGKILL, has its connections closed by its kernel, so the survivors
 * read an end of file within milliseconds, whatever MPI was doing (starting, waiting in a
 * collective, not yet called); a node or a link that goes silent is noticed when no
 * heartbeat came for CARSH_MPI_WATCH_MS (5000 by default). Rank 0 tells every other rank
 * which rank it lost, so every survivor names it: the rank, its host and pid, and what it
 * was running (the last job the ranks placed there, and the step they were at: every rank
 * places every job, so every rank knows).
 *
 * No MPI here: mpi/ranks.c sends rank 0's address (rankwatch_listen) to the others with
 * the one broadcast it makes as MPI starts, then every rank calls rankwatch_arm.
 */
#ifndef CARSH_MPI_RANKWATCH_H
#define CARSH_MPI_RANKWATCH_H

#include <stdbool.h>

#include "util/error.h"

/* Where rank 0 listens: a port and its IPv4 addresses (the loopback last), as bytes that
 * mpi/ranks.c broadcasts as they are. */
#define RANKWATCH_ADDRS 16
struct rankwatch_addr {
	unsigned short port; /* network order */
	unsigned char n;
	unsigned int ip[RANKWATCH_ADDRS]; /* network order */
};

/* Rank 0: listen on every address (a port the kernel picks). */
int rankwatch_listen(struct rankwatch_addr *a, struct cs_err *e);
/* Every rank: the others connect to rank 0 (trying each address in turn) and rank 0 takes
 * one connection from each, then a thread watches them. On a loss it calls lost with the
 * sentence that names the rank; lost does not return (it stops this rank). */
int rankwatch_arm(int rank, int size, const struct rankwatch_addr *a, void (*lost)(const char *msg),
                  struct cs_err *e);
/* This rank ends on purpose (its normal end, or a fatal error it names itself): the
 * others are told, so that its connection closing is no loss, and the watch stops. */
void rankwatch_bye(void);
/* Wait (5 s at most) until the lost rank, where it ran on this node, has finished dying. */
void rankwatch_wait_lost(void);
/* Whether CARSH_MPI_WATCH=off turned the watchdog off. */
bool rankwatch_wanted(void);

/* What the ranks are running, for the message that names a lost rank: the last job placed
 * on rank (a batch step, a graph's node, a command), and the step every rank is at. */
void rankwatch_note_job(int rank, const char *what);
void rankwatch_note_step(const char *what);

#endif
