/*
 * partition across MPI ranks (docs/scale-out.md, "Partition across ranks"): the upper of
 * two levels. Rank 0 cuts each time step's rows into one contiguous range per rank, in
 * proportion to each rank's throughput in the step before (equal ranges for the first), and
 * every rank runs the partition engine on its range over its own devices, as on one
 * machine. The engine stays MPI-free: this is its part_share (engines/partition/partition.h),
 * which agrees on every step's outcome, moves the written block streams between the ranks
 * and gathers the outputs on rank 0, through mpi/ranks.h.
 */
#ifndef CARSH_MPI_PARTRANKS_H
#define CARSH_MPI_PARTRANKS_H

#include "engines/partition/partition.h"

struct part_ranks;

/* The sharing of this MPI job's ranks; NULL with one rank (the engine then runs the whole
 * space, as without MPI). */
struct part_ranks *part_ranks_new(void);
void part_ranks_free(struct part_ranks *pr);
const struct part_share *part_ranks_share(const struct part_ranks *pr);
/* Each rank's rows and time in the last step into res (on rank 0; the times are rank 0's
 * knowledge only). */
void part_ranks_result(const struct part_ranks *pr, struct part_result *res);

#endif
