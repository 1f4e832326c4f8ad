/*
 * A device's feeder: a thread that makes the OpenCL calls of the thread executor's simple
 * launches (one kernel run, no profiling) and buffer fills, in the order they were handed
 * over, so that the shell's work on the next flow-model overlaps the driver's work on this
 * one. On NVIDIA's driver clEnqueueNDRangeKernel alone costs 5-8 µs of host time, as much
 * as a small kernel runs (docs/executors.md, "The feeder").
 *
 * Everything else that uses a device's queue drains the feeder first (rt_dev_queue), so
 * the in-order queue sees the commands in the order the shell issued them. An error in the
 * feeder is kept and reported by the next launch handed over or the next rt_dev_finish; the
 * launches handed over after it are dropped.
 */
#ifndef CARSH_RUNTIME_FEEDER_H
#define CARSH_RUNTIME_FEEDER_H

#include "runtime/session.h"

enum feed_arg_kind { FEED_MEM, FEED_VALUE, FEED_LOCAL };

/* The buffers are borrowed, not retained: whoever releases a buffer that a launch handed
 * over may still name drains the feeder first (rt_dev_queue). Reference counting here would
 * cost more than it saves: NVIDIA's clRetainMemObject beside a thread that enqueues makes
 * each enqueue three times slower (15 µs against 5). */
struct feed_arg {
	enum feed_arg_kind kind;
	size_t size;
	cl_mem mem;                 /* FEED_MEM: borrowed */
	const unsigned char *value; /* FEED_VALUE: in the launch's own storage */
};

/* One kernel run, built with feed_launch_new and handed over with rt_feed_launch. */
struct feed_launch {
	cl_kernel kernel; /* the session's object: the feeder runs its own copy of it */
	const char *name; /* the kernel's name, kept by the session */
	cl_uint dims;
	size_t global[3];
	size_t local[3];
	bool has_local;
	cl_uint nargs;
	struct feed_arg *args;
	unsigned char *values; /* storage of the FEED_VALUE arguments */
	unsigned long seq;     /* its place among the hand-overs */
	struct feed_launch *next;
};

/* A launch with room for nargs arguments and value_bytes of argument values. */
struct feed_launch *feed_launch_new(cl_uint nargs, size_t value_bytes);
/* Frees a launch not handed over. */
void feed_launch_free(struct feed_launch *l);

/* Hand l over (the feeder owns it from now on, also on failure). Fails with the feeder's
 * kept error, which it then clears. */
int rt_feed_launch(struct rt_dev *d, struct feed_launch *l, struct cs_err *e);

/* Fill bytes of mem with pattern (psize bytes, at most 128), through the feeder when it
 * runs. */
int rt_feed_fill(struct rt_dev *d, cl_mem mem, const void *pattern, size_t psize, size_t bytes,
                 struct cs_err *e);

/* d's queue once everything handed over has been queued on it. */
cl_command_queue rt_dev_queue(struct rt_dev *d);

/* Wait until everything queued on d has run: the feeder's kept error, else clFinish's. */
int rt_dev_finish(struct rt_dev *d, struct cs_err *e);

/* Whether launches on a device go through a feeder: CARSH_FEEDER=on|off, else (auto) on
 * every device that is not a CPU, where the feeder's thread would take a core from the
 * kernels. */
bool rt_feeder_wanted(const struct rt_devinfo *info);
/* Read CARSH_FEEDER now, so that a wrong value is reported when a thread-executor session
 * starts (each one, a session worker's second included) rather than at its first launch. */
void rt_feeder_read_env(void);

/* A sleeping feeder of d woken to poll for work again (a launch is coming): its wake-up
 * then overlaps the caller's work before the hand-over. */
void rt_feeder_wake(struct rt_dev *d);

/* Drain and end the feeder (the session's end). */
void rt_feeder_stop(struct rt_dev *d);

#endif
