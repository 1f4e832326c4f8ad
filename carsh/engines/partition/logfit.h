/*
 * The arithmetic of LogFit (003 §4), kept apart from the schedulers so that it can be checked
 * against values computed by hand: the least-squares fit of the GPU's throughput to
 * y = a·ln(x) + b, the recommended GPU chunk a/thld, and the CPU chunk G·λC/λG. Throughputs
 * are in work-items per millisecond, as 003's Figure 1: the threshold is a slope (dy/dx of
 * the fitted curve is a/x, which equals thld at x = a/thld), so its meaning depends on them.
 */
#ifndef CARSH_ENGINES_PARTITION_LOGFIT_H
#define CARSH_ENGINES_PARTITION_LOGFIT_H

#include <stdbool.h>
#include <stddef.h>

/* 003 §4: "In our experiments we use 4 samples and thld = 0.01". */
#define LOGFIT_SAMPLES 4
#define LOGFIT_THLD    0.01

/* Least squares of y = a·ln(x) + b over n points (x > 0). Returns -1 (a and b untouched)
 * when fewer than two distinct x are given or a value is not finite. */
int logfit_fit(const double *x, const double *y, size_t n, double *a, double *b);

/* The fitted throughput at x: a·ln(x) + b. */
double logfit_eval(double a, double b, double x);

/* 003 §4: the recommended GPU chunk a/thld, in work-items (not rounded); 0 when a <= 0, where
 * the fitted throughput does not grow with the chunk and the formula says nothing. */
double logfit_gpu_chunk(double a, double thld);

/* 003 §4: C(t_Ci) = G(t_Gi) · λC(t_Ci-1) / λG(t_Gi-1); 0 when a throughput is unknown (<= 0). */
double logfit_cpu_chunk(double gpu_chunk, double lambda_cpu, double lambda_gpu);

/* 003 §4: the initial samples x_k = nEU · 2^(k-1), k = 1..4 (k counts from 1). */
double logfit_sample_size(unsigned neu, unsigned k);

#endif
