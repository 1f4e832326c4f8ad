/*
 * The closed pool of threads that a coupled coarse-grain configuration runs (docs/pipeline.md,
 * "The threads the two paths share"): n threads, one GPU. A thread takes an item; at the
 * item's first GPU stage it takes the GPU if it is idle (the GPU-CPU path: t_gpu on the GPU,
 * then t_cpua on its core for the item's CPU stages), else the item goes through the CPU
 * path (t_cpu on its core, every stage). Nothing waits for the GPU, so the GPU is a server
 * that loses the items it cannot take, and those items hold a thread for a CPU item's time.
 * Times exponential: a Markov chain on (GPU busy or not, threads on the GPU-CPU path's CPU
 * stages), 2n states, solved exactly in O(n) (pipechain.c). Pure arithmetic.
 *
 * Under CG each thread has a core of its own; under MG (shared) every item on the CPU, of
 * either path, shares the whole CPU with the others there (processor sharing: MG's stages
 * run one item at a time each, and items in different stages share the cores).
 */
#ifndef CARSH_ENGINES_PIPELINE_PIPECHAIN_H
#define CARSH_ENGINES_PIPELINE_PIPECHAIN_H

#include <stdbool.h>

/* The pool's throughput in items/s, and in *lambda_gc the GPU-CPU path's share of it (the
 * rest is the CPU path's). n >= 1 threads; t_gpu, t_cpua, t_cpu > 0 seconds per item (under
 * MG the whole CPU's time for the item's CPU stages; t_cpu infinite: the CPU path never finishes an
 * item). 0 when a time is not positive. */
double pchain_throughput(unsigned n, bool shared, double t_gpu, double t_cpua, double t_cpu,
                         double *lambda_gc);

#endif
