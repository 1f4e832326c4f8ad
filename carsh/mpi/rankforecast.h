/*
 * rank="auto" by forecast (docs/scale-out.md "Placement", docs/auto.md "Across MPI ranks"):
 * 002's DynPerf across ranks as runner/devplace.h does across one rank's devices. A batch
 * step with rank="auto" goes to the rank where it would end first: the work already placed
 * there since the batch's last <Sync/>, plus the move of the inputs that rank does not hold,
 * plus the job's own run on its best device. The ranks are taken to have the same kind of
 * devices, so the job's own run is the same forecast on every rank, from rank 0's profile
 * history; rank 0 decides and tells the others (mpi/placement.c).
 */
#ifndef CARSH_MPI_RANKFORECAST_H
#define CARSH_MPI_RANKFORECAST_H

#include <stddef.h>

#include "exec/jobplan.h"

struct replicas;

/* The rate a move is forecast at: 1 GB/s, a conservative figure below both a move between
 * the shared-memory objects of one node (4 GB/s measured, docs/scale-out.md "Where the
 * time goes") and a 10 Gb/s network. Nothing is measured at run time. */
#define RANK_MOVE_BYTES_PER_MS 1e6

/* The bytes of jp's inputs (buffers it reads) that rank does not hold current. */
size_t rank_missing_bytes(const struct replicas *r, const struct job_plan *jp, int rank);

/* ---- the arithmetic, pure, for the unit tests ---- */

/* The rank of n whose end, queued_ms[r] + missing[r] / bytes_per_ms + job_ms, is earliest
 * (the lowest on a tie), with why as `time` and `jobs` show it: "auto: rank 1, forecast
 * 10.004 ms vs rank 0 20 ms". */
int rank_pick(const double *queued_ms, const size_t *missing, int n, double job_ms,
              double bytes_per_ms, char *why, size_t len);

#endif
