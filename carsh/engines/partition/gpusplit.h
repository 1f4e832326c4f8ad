/*
 * A part of the space shared among several GPUs (docs/partition.md, "Several GPUs"): in
 * proportion to weights (their compute units, or their measured throughputs), cut at
 * multiples of the granule, each GPU's part contiguous and in GPU order. One GPU takes the
 * whole part.
 */
#ifndef CARSH_ENGINES_PARTITION_GPUSPLIT_H
#define CARSH_ENGINES_PARTITION_GPUSPLIT_H

#include <stddef.h>

/* bound[0] = begin, bound[k] = begin + n; GPU i takes [bound[i], bound[i+1]). n is a multiple
 * of granule; weights <= 0 (or not finite) count as 0, and where all are 0 the GPUs share
 * equally. */
void gpu_split(size_t begin, size_t n, size_t granule, const double *w, unsigned k, size_t *bound);

#endif
