/*
 * A runtime session: the OpenCL state one process keeps. Devices are discovered once,
 * contexts and queues are created on first use, programs are built once per device (with
 * the binary cache behind), kernel objects are kept. The process executor's children use a
 * session once; the thread executor keeps one for the whole shell.
 */
#ifndef CARSH_RUNTIME_SESSION_H
#define CARSH_RUNTIME_SESSION_H

#include <pthread.h>

#include "runtime/runtime.h"

struct rt_session;

struct rt_feeder;

/* One device in use: its context, its one in-order queue (with profiling), and the feeder
 * thread that queues the thread executor's launches (runtime/feeder.h; started on first
 * use). Code that queues commands itself gets the queue from rt_dev_queue. */
struct rt_dev {
	const struct rt_devinfo *info;
	cl_context ctx;
	cl_command_queue q;
	struct rt_feeder *feeder;
	pthread_mutex_t feeder_lock; /* its start */
	char label[160];             /* "NAME (PLATFORM)", as run_stats.device */
};

/* A kernel object of a built program, with the lock its argument setting and enqueueing
 * take: OpenCL captures the arguments at enqueue, so one object serves every job. */
struct rt_kernel {
	cl_kernel k;
	const char *name;
	pthread_mutex_t lock;
};

struct rt_session *rt_session_new(void);
void rt_session_free(struct rt_session *s);
/* The file cache that kept the plans' sources was cleared (a session ended, and s serves the
 * next): its programs are found by their text from now on, never by an address that a new
 * source may take. */
void rt_session_forget_kept(struct rt_session *s);
/* The open devices' sleeping feeders woken to poll for work (rt_feeder_wake). */
void rt_session_wake_feeders(struct rt_session *s);

/* The device a plan asks for (rt_device_pick's rules), with its context and queue created
 * on first use; discovery and creation times go to st. */
int rt_session_device(struct rt_session *s, const struct kernel_plan *kp, struct rt_dev **dev,
                      struct run_stats *st, struct cs_err *e);

/* The plan's kernel on dev, building the program on first use (time to st->build_ms). */
int rt_session_kernel(struct rt_session *s, struct rt_dev *dev, const struct kernel_plan *kp,
                      struct rt_kernel **k, struct run_stats *st, struct cs_err *e);

/* For the calling thread: builds leave standard error as it is (the embedding API's guest
 * rule, docs/api.md) instead of holding back the compiler's "N errors generated.". */
void rt_guest_builds(bool on);

/* Every device the session knows (discovering them if needed). */
int rt_session_devices(struct rt_session *s, const struct rt_devinfo **devs, size_t *n,
                       struct cs_err *e);

struct rt_pending;

/* One execution of a plan on a device of a session. */
struct rt_exec {
	struct rt_dev *dev;
	struct rt_kernel *kern;
	const struct kernel_plan *kp;
	/* Per argument: a device buffer of dev the caller holds for this stream, used as it is
	 * and not read back; NULL: the runtime makes one from the argument's host data and reads
	 * an output back to its host buffer. May be NULL altogether. The runtime borrows them:
	 * no OpenCL call (NVIDIA's reference counting slows a feeder enqueueing beside it), and
	 * a launch handed to the feeder names them until it is queued (runtime/feeder.h). */
	cl_mem *given;
	/* Out, per argument (may be NULL): for each given stream, the buffer bound to it at the
	 * end — swaps exchange them: one of given, or a buffer the runtime made, with a
	 * reference the caller now owns. */
	cl_mem *final;
	/* Wait for the device before returning. Without it, work may still be queued on return
	 * (never when an output goes to a host buffer); its events come back in pending. */
	bool wait;
	/* Profile every command (the times go to run_stats); without it no event is taken. */
	bool profile;
	/* A single launch of given buffers that need not be waited for may go to the device's
	 * feeder (runtime/feeder.h) instead of being queued here. */
	bool feed;
	/* The queue to use (an unprofiled one of the caller's, on dev's context); NULL: dev's. */
	cl_command_queue q;
	/* The kernel object still holds the arguments of the caller's last execution of this
	 * plan on these given buffers (an object of the caller's own): none is set again.
	 * Ignored unless every stream is given and there are no swaps (they rebind). */
	bool args_kept;
	rt_stage_fn stage; /* as in rt_run_plan; may be NULL */
	void *stage_arg;
	struct rt_pending *pending; /* out: the events of work left queued, with profiling */
	struct rt_dev *unfinished;  /* out: without profiling, the device with work left */
	cl_event done; /* out, when work stays queued: its completion (a reference), or NULL */
};

/* rt_run_plan (runtime.h) on the devices, contexts and programs of s, which keeps them for
 * the next plan (a warm worker's session: exec/worker.c). */
int rt_run_plan_on(struct rt_session *s, const struct kernel_plan *kp, rt_stage_fn stage,
                   void *stage_arg, struct run_stats *st, struct cs_err *e);

/* Check the plan against the device, stage, make the buffers, run the S+1 launches with
 * the plan's swap method, read outputs back to their host buffers. */
int rt_execute(struct rt_exec *x, struct run_stats *st, struct cs_err *e);

/* Wait for queued work and add its profiling times to st; frees p. */
int rt_pending_harvest(struct rt_pending *p, struct run_stats *st, struct cs_err *e);

/* Work without events on d: harvesting it finishes d's queue. */
struct rt_pending *rt_pending_finish(struct rt_dev *d);
/* Whether harvesting p finishes d's queue. */
bool rt_pending_finishes(const struct rt_pending *p, const struct rt_dev *d);

#endif
