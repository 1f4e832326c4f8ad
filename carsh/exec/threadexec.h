/*
 * The thread executor (DESIGN §5): one OpenCL runtime in the shell's own process, contexts
 * and programs kept for the session, virtual buffers resident on the devices. A job queues
 * its work on its device's one in-order queue and returns without waiting when nothing of
 * its output goes to a host buffer: the queue orders the jobs that follow it on the device,
 * and whatever reads a buffer elsewhere (the host, another device) waits for the work that
 * writes it. The shell waits for a command's queued work when the command ends.
 */
#ifndef CARSH_EXEC_THREADEXEC_H
#define CARSH_EXEC_THREADEXEC_H

#include "exec/executor.h"
#include "exec/resident.h"

struct texec;

struct texec *texec_new(void);
/* Discover the devices and open the one a plan with no device of its own would get (device:
 * --device or CARSH_DEVICE, may be NULL), before any texec exists: a session worker of the
 * user's server (docs/server.md) does it while it waits for its session, and the next
 * texec_new takes that runtime session. */
void texec_prewarm(const char *device);
/* Whether a runtime session waits for the next texec_new: after texec_prewarm, or after a
 * texec_free without teardown that found nothing queued had failed. */
bool texec_warm(void);
/* Waits for everything queued, then releases it all. */
void texec_free(struct texec *t);
/* From now on texec_free waits for what is queued, releases the session's buffers and keeps
 * the runtime session (devices, contexts, programs) for the next texec_new: for a served
 * session worker, which serves its next session on it or _exits, whose client would
 * otherwise wait for the driver's teardown (NVIDIA's: ~100 ms for the flagship's context,
 * programs and buffers, against 8 ms of work). */
void texec_exit_without_teardown(void);
struct rt_session *texec_session(struct texec *t);
struct resident *texec_resident(struct texec *t);

/* Run a plan; work may still be queued on return: texec_flush(tag) waits for it. With
 * profile, every command is timed (st, and texec_flush's st); without, a plain launch goes
 * to the device's feeder and the job returns before it is even queued. */
int texec_run(struct texec *t, struct job_plan *jp, void *tag, bool profile, struct run_stats *st,
              struct cs_err *e);

/* Wait for the work queued under tag; add its profiling times to st. An error of that work
 * (a kernel that failed on the device) is reported here. */
int texec_flush(struct texec *t, void *tag, struct run_stats *st, struct cs_err *e);

/* As exec_plan_foreground / exec_plan_background, on the thread executor. tag: see
 * texec_run. A background job waits for its own queued work before it is done; it takes
 * over jp, and jp->in and jp->out (its own streams, closed when it ends). */
int exec_thread_foreground(const struct exec_env *env, struct texec *t, struct job_plan *jp,
                           void *tag, struct run_stats *st, struct cs_err *e);
int exec_thread_background(const struct exec_env *env, struct texec *t, struct jobs *js,
                           struct job_plan *jp, const char *label, int *id, struct cs_err *e);

#endif
