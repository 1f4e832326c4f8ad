/*
 * The MPI ranks of a carsh started by an MPI launcher (docs/scale-out.md); the one module
 * that calls MPI. Every rank reads the same file and takes the same decisions, so ranks only
 * move buffer data (point to point, in the order the steps ask for it) and agree on the
 * outcome of the steps whose work ran on some ranks only (a collective). Built without MPI
 * (configure --without-mpi), or not started, there is one rank, 0, and nothing here talks
 * to anyone.
 *
 * An MPI error is never a step's failure: a peer that died or a broken network leaves the
 * ranks out of step, so the job as a whole stops (ranks_fatal) with one message naming the
 * rank, after this rank's cleanup hook removed its segments.
 */
#ifndef CARSH_MPI_RANKS_H
#define CARSH_MPI_RANKS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/* Whether this carsh was built with MPI. */
bool ranks_built(void);
/* Whether an MPI launcher started this process (Open MPI's OMPI_COMM_WORLD_SIZE, PMI_SIZE
 * of Hydra and Slurm's PMI, PMIX_RANK of PMIx launchers): a plain carsh never calls MPI. */
bool ranks_launched(void);

/* Join the MPI job (MPI_Init_thread). On ranks other than 0 standard output and error go
 * to /dev/null: rank 0 is the shell, and the others' errors reach it through
 * ranks_agree. cleanup runs before a fatal MPI error ends this rank. A job the launcher
 * says has one rank is joined without MPI: nothing here calls MPI then. */
int ranks_start(void (*cleanup)(void), struct cs_err *e);
/* MPI_Finalize, when MPI_Init_thread was called. */
void ranks_finish(void);
/* Where the launcher says the job's size and this rank's place in it (and on its node),
 * ranks_start puts MPI_Init_thread off until the rank first talks to another (every call
 * below does this first), or until ranks_mpi_now: a rank about to wait for its jobs calls it,
 * so that MPI starts beside them. CARSH_MPI_INIT=eager starts it in ranks_start. */
void ranks_mpi_now(void);

/* Whether this process is a rank of an MPI job (ranks_start), of one rank too. */
bool ranks_started(void);
/* After a rank was lost: wait (5 s at most) until it finished dying where it ran on this
 * node, so that its segments can be told stale. */
void ranks_wait_lost(void);
int ranks_size(void); /* 1 when not started */
int ranks_rank(void); /* 0 when not started */
/* This rank's number among the ranks of its node (the GPU it takes); 0 when not started. */
int ranks_local_rank(void);
/* Whether this rank of a larger job has yet to join MPI and the watchdog (mpi/rankwatch.h):
 * a rank lost meanwhile is named by the launcher alone. */
bool ranks_starting(void);

/* One message of a ranks_exchange: bytes from data to peer, or from peer into data. */
struct ranks_xfer {
	void *data;
	size_t bytes;
	int peer;
	bool send;
	int tag; /* the guest's messages only (ranks_guest_post); ranks_exchange uses its own */
};

/* Post every transfer at once (nonblocking, so that they overlap) and wait for all. Peers
 * must list their halves in the same order. Returns 0; an MPI error is fatal. */
void ranks_exchange(const struct ranks_xfer *x, size_t n);

/* A collective: every rank passes the status of the same step. Returns 0 when all
 * succeeded, else the status of the lowest failing rank, with its message in e on every
 * rank ("rank N: " in front when N is not 0). */
int ranks_agree(int status, struct cs_err *e);

/* Collectives for the partition engine across ranks (mpi/partranks.c), every rank
 * calling each at the same step; an MPI error is fatal. */
/* bytes of data from root to every rank. */
void ranks_bcast(void *data, size_t bytes, int root);
/* Every rank's mine into all[rank] on root (all: ranks_size() entries there; NULL else). */
void ranks_gather_double(double mine, double *all, int root);
/* A space cut in rows of row_bytes each, rank r holding rows [first[r], first[r + 1]) of
 * data (first: ranks_size() + 1 entries, the same on every rank): every rank's rows into
 * root's data (gather), or into every rank's (allgather). In place: each rank's own rows
 * are not copied. */
void ranks_gather_rows(void *data, size_t row_bytes, const size_t *first, int root);
void ranks_allgather_rows(void *data, size_t row_bytes, const size_t *first);

/* End the whole job: "carsh: rank N: MESSAGE" on this rank's own standard error, the
 * cleanup hook, MPI_Abort. */
void ranks_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/*
 * The guest side: CaravelaMPI in the embedding API (carsh.h, 004 §4.1). A program that
 * links libcarsh joins the MPI job itself (or already has) and moves its own messages; the
 * library is its guest, so here nothing is fatal (an MPI error is returned, with MPI's
 * text), nothing is printed and standard output stays the program's. The guest's messages
 * travel on a communicator of its own, a duplicate of MPI_COMM_WORLD, so that they never
 * match the program's own messages or the shell's ranks_exchange.
 */
/* Join: MPI_Init_thread unless the program (or the shell) initialized MPI already, then
 * duplicate the world. *rank and *size may be NULL. A second call only reads them. */
int ranks_guest_start(int *rank, int *size, struct cs_err *e);
/* Free the guest's communicator; MPI_Finalize when ranks_guest_start initialized MPI. */
int ranks_guest_finish(struct cs_err *e);
bool ranks_guest_started(void);

/* Messages posted together (MPI_Isend/MPI_Irecv on the guest's communicator, with each
 * transfer's tag) and completed together. */
struct ranks_req;
int ranks_guest_post(const struct ranks_xfer *x, size_t n, struct ranks_req **out,
                     struct cs_err *e);
/* *done: whether every message of r is complete (MPI_Testall). */
int ranks_guest_test(struct ranks_req *r, bool *done, struct cs_err *e);
int ranks_guest_wait(struct ranks_req *r, struct cs_err *e);
/* Messages not complete are cancelled first (a request given up after an error). */
void ranks_req_free(struct ranks_req *r);

/*
 * A pipeline graph's messages across ranks (mpi/graphranks.c): each rank posts its
 * halves in the order of one plan that every rank derives alike, on a communicator of the
 * graph run's own, so a message is matched by its peer and its tag alone. Nothing here is
 * a collective but open and close. A rank that fails tells the others with a notice
 * (ranks_flow_fail) and goes on posting its messages, so that every message still has its
 * match and the ranks stop at close, where they agree on the outcome.
 */
struct ranks_flow;
/* Every rank, at the same point: a duplicate of the world, a receive posted for notices. */
struct ranks_flow *ranks_flow_open(void);
/* Post one message of bytes from (send) or into data, to or from peer, with tag (0 up to
 * MPI_TAG_UB - 1): MPI_Issend, which completes only once the peer posted its receive, or
 * MPI_Irecv. A send with data NULL is an empty message in place of bytes (the data are
 * not worth sending: the sender stopped), which the receive's ranks_flow_empty tells.
 * Returns its handle for ranks_flow_done. */
size_t ranks_flow_post(struct ranks_flow *f, void *data, size_t bytes, int peer, bool send,
                       int tag);
/* Whether message h completed (MPI_Test, never waiting). Once it said so, h serves a
 * later post: ask ranks_flow_empty before posting again. */
bool ranks_flow_done(struct ranks_flow *f, size_t h);
/* Whether the completed receive h got an empty message (of at most 1 GiB, one piece). */
bool ranks_flow_empty(struct ranks_flow *f, size_t h);
/* This rank failed: tell every other rank (once). */
void ranks_flow_fail(struct ranks_flow *f);
/* Whether this rank failed or a notice from another arrived (MPI_Test, never waiting). */
bool ranks_flow_failed(struct ranks_flow *f);
/* Every rank, at the same point: wait for every message posted, receive every notice sent
 * here, free. */
void ranks_flow_close(struct ranks_flow *f);

#endif
