/*
 * Where each virtual buffer's current data is, across MPI ranks (docs/scale-out.md). Every
 * rank has every buffer (the name table is the same everywhere, so `virtbuf swap` stays a
 * rename), but a job writes only the copy of the rank it ran on. This table says, for each
 * name, the version of its data and which ranks hold that version. Every rank keeps its
 * own table and changes it at the same steps in the same way, so the tables agree without
 * a message: a rank knows from its own table whom to send to and whom to receive from.
 */
#ifndef CARSH_MPI_REPLICAS_H
#define CARSH_MPI_REPLICAS_H

#include <stdbool.h>
#include <stddef.h>

struct replicas;

struct replicas *replicas_new(int ranks);
void replicas_free(struct replicas *r);

/* A new buffer: zeroes on every rank, so current everywhere. */
void replicas_add(struct replicas *r, const char *name);
void replicas_remove(struct replicas *r, const char *name);
/* The names exchange their entries, as the buffers do. */
void replicas_swap(struct replicas *r, const char *a, const char *b);
/* New data written on rank only (rank < 0: the same change on every rank). */
void replicas_wrote(struct replicas *r, const char *name, int rank);
/* rank received the current data. */
void replicas_received(struct replicas *r, const char *name, int rank);
bool replicas_current(const struct replicas *r, const char *name, int rank);
/* The lowest rank that holds the current data: the one that sends it. */
int replicas_owner(const struct replicas *r, const char *name);
/* The mapping of the buffer's object that moves use, kept from move to move (and across
 * swaps: an entry follows its object) so that a move touches no page table afresh; NULL
 * before the first. The table unmaps it when the entry goes. */
void *replicas_mapping(const struct replicas *r, const char *name);
void replicas_keep_mapping(struct replicas *r, const char *name, void *map, size_t bytes);
/* The version of the data (how many writes since the buffer was made), for `virtbuf list`
 * and the tests. */
unsigned long replicas_version(const struct replicas *r, const char *name);

#endif
