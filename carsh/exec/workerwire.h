/* The messages between the shell and a warm worker (exec/workers.h). */
#ifndef CARSH_EXEC_WORKERWIRE_H
#define CARSH_EXEC_WORKERWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/vhome.h"
#include "exec/jobplan.h"
#include "runtime/runtime.h"
#include "util/strvec.h"
#include "util/wire.h"
#include "util/wirebuf.h"

enum {
	WORKER_JOB = 1,  /* shell -> worker: directory, environment, plan; fds: stdin, out, err */
	WORKER_DONE = 2, /* worker -> shell: the job's exit status (uint32) */
	/* client -> session worker: a whole session (server/sessionwire.h); fds: stdin, out, err;
	 * answered by WORKER_DONE with the session's exit status */
	WORKER_SESSION = 3,
	/* shell -> worker: the job environment (u32 count, strings): the device list, which a
	 * served shell asks of a worker instead of starting OpenCL itself (docs/auto.md) */
	WORKER_DEVICES = 4,
	/* worker -> shell: the answer to WORKER_DEVICES (workerwire_encode_devices); a worker
	 * that cannot list them answers WORKER_DONE 1 with the reason in its result area */
	WORKER_DEVLIST = 5,
	/* worker -> shell: the job of a WORKER_JOB reached the worker and starts (no payload),
	 * sent before WORKER_DONE: a worker that ends before it sent this never ran the job.
	 * Not for a window's job: the worker writes its place in the window to the result
	 * area's taken instead (one message less each way per job) */
	WORKER_TAKEN = 6,
	/* shell -> worker: write a buffer's device copy back to its shared memory (str shm, u64
	 * generation); answered by WORKER_DONE, the reason of a failure in the result area */
	WORKER_WRITEBACK = 7,
	/* shell -> worker: release the device copies of a buffer (str shm; "" for all of
	 * them); answered by WORKER_DONE 0 */
	WORKER_DROP = 8,
	/* shell -> worker: wait for the work its jobs left queued (no payload); answered by
	 * WORKER_DONE, 1 with the reason in the result area when that work failed (the worker
	 * then ends, as after any fault of queued work) */
	WORKER_FINISH = 9,
	/* shell -> worker: narrow a float buffer's device copy to 8-bit pixels into its pixels
	 * object (data/vpixels.h) on the device (str shm, u64 generation), as pixels_to_bytes()
	 * does; answered as WORKER_WRITEBACK */
	WORKER_NARROW = 10,
};

/* Where a job's stream bound to a virtual buffer finds its current data (data/vhome.h): on
 * this worker's device at generation gen (here), or in shared memory, generation gen there;
 * there, with uniform, it is value (uniform bytes) repeated, and a device copy is filled on
 * the device instead of copied. One per plan argument; ignored for other streams. */
struct job_home {
	uint64_t gen;
	bool here;
	size_t uniform;
	unsigned char value[VHOME_VALUE_MAX];
	/* In shared memory, the data is the buffer's pixels (data/vpixels.h) widened to kind
	 * scalar: the worker widens them on its device (shared memory's pages are stale). */
	bool pixels;
	enum scalar scalar;
};

/* Whether a stream of bytes with that home is made on the device by filling it with the
 * home's value, reading no shared memory. */
static inline bool job_home_filled(const struct job_home *home, size_t bytes)
{
	return !home->here && vhome_fill_fits(home->uniform, bytes);
}

/* The most devices a device list carries (the shell's placement keeps as many). */
#define WORKERWIRE_MAX_DEVS 64

/* worker_run's return when the worker did not take the job (it died while idle, or before
 * it said WORKER_TAKEN). */
#define WORKER_NOT_TAKEN (-2)

/*
 * The part of the shell's environment that a job's runtime reads: the OpenCL loader and
 * drivers (OCL_*, POCL_*, CUDA_*, ...), CarSh's own settings and the binary cache's place.
 * A server's worker takes it from each job, and is lent only to jobs with the same (it is
 * part of the device key): a loader reads it once, when the worker first opens a device.
 * The entries "NAME=VALUE" of environ that belong to it, in environ's order.
 */
void workerwire_job_env(struct strvec *env);
/* A plan's job environment: workerwire_job_env's, with the loader's variables narrowed to the
 * vendors of its device type when a pure type chooses its device (runtime/icdtypes.h). Sent
 * with the job and part of its worker's key, so that a worker's loader, which reads it once,
 * only ever serves plans of the same narrowing. */
void workerwire_plan_env(const struct kernel_plan *kp, struct strvec *env);
/* Whether an entry "NAME=VALUE" belongs to the job environment. */
bool workerwire_is_job_env(const char *entry);
/* Make this process's job environment env's: the others' entries go. */
void workerwire_apply_env(char *const *env, size_t n);

/* In the status of a session's WORKER_DONE (the exit status in its low byte): the session
 * worker waits for another session (server/served.h). */
#define WORKER_DONE_AGAIN 0x100u

/* A job's flags: its statistics are read (`time`, `set stats=on`), so its commands are
 * profiled and waited for; without it a job whose outputs all stay on the device returns
 * while its kernels may still run (docs/executors.md "What moves when"). */
#define WORKER_JOB_PROFILE 1u
/* A window's job (exec/workers.h): the answer WORKER_DONE carries the exit status and the
 * job's struct job_result (the next job in flight overwrites the result area): its bytes
 * up to msg, then msg up to its NUL and the NUL. */
#define WORKER_JOB_WINDOW 2u
/* Run only if the worker's previous job succeeded; else answered WORKER_DONE_SKIPPED. A
 * window's job without it is the window's first: its place there (job_result.taken) is 1,
 * each next one's one more. */
#define WORKER_JOB_AFTER 4u
/* A window's job with the directory and the standard input, output and error of the job
 * before it (the same files, still sent): a worker that still holds that job's keeps them,
 * and neither enters the directory nor moves descriptors again. It holds them after a
 * window's job only while the next message is already waiting, so that a reader of a job's
 * output sees its end when the window's last job has ended. */
#define WORKER_JOB_SAME_IO 8u
/* A window's job followed, in the same write, by the next job of its run (sent with
 * WORKER_JOB_SAME_IO and no fds): the worker keeps its directory and files for that one and
 * holds its answer back (docs/executors.md "The wire"). */
#define WORKER_JOB_MORE 16u
/* A window's job after another (WORKER_JOB_AFTER) in the job environment of the one before
 * it: the environment is not sent (an empty one is), and the worker keeps the one it
 * applied. */
#define WORKER_JOB_SAME_ENV 32u
/* In the status of a WORKER_JOB_AFTER job's WORKER_DONE: it did not run (low byte 1). */
#define WORKER_DONE_SKIPPED 0x200u

/* A window job's kernel source by reference: a kernel's source is most of a job's message
 * (often 10 KB), and a batch sends the same few again and again. The token names a source
 * the shell's file cache keeps (kernel_plan.source_kept): its address, never reused while
 * that process lives, and a number the process drew (workerwire_source_nonce). text is the
 * source the first time this worker is sent it, else NULL. The worker keeps the last
 * WORKER_SOURCES_KEPT sources defined, in order; the shell counts them the same way. */
struct wire_source {
	uint64_t nonce;
	uint64_t addr;
	const char *text;
};
#define WORKER_SOURCES_KEPT 64

/* The number this process names its kept sources with, drawn afresh in a forked child
 * (whose file cache goes its own way from the fork on). */
uint64_t workerwire_source_nonce(void);

/* homes: one per argument of jp, or NULL (every buffer in shared memory, generation 0);
 * flags: WORKER_JOB_*; src: jp's source by reference (a window's job), or NULL (sent in the
 * plan). */
void workerwire_encode_job(const char *cwd, const struct strvec *env, const struct job_home *homes,
                           uint32_t flags, const struct job_plan *jp, const struct wire_source *src,
                           struct wbuf *out);
/* The plan's part of a job message (what workerwire_encode_job writes last), with src as
 * there: the same for a plan whose content and bound objects are the same. */
void workerwire_encode_plan(const struct job_plan *jp, const struct wire_source *src,
                            struct wbuf *out);
/* workerwire_encode_job's message for a plan of nargs arguments whose part is plan, as
 * workerwire_encode_plan wrote it with the same src (a window's step sent again). */
void workerwire_encode_job_kept(const char *cwd, const struct strvec *env,
                                const struct job_home *homes, uint32_t flags, size_t nargs,
                                const struct wire_source *src, const struct wbuf *plan,
                                struct wbuf *out);
/* A job message's flags, or 0 where it is too short to hold them: read before the rest,
 * which a worker decodes only after it took the job. */
uint32_t workerwire_job_flags(const void *buf, size_t len);
/* A new *cwd, *env (sv_free), *homes (free; one per argument of *jp) and *jp
 * (job_plan_free), the flags in *flags, or -1 with e. */
int workerwire_decode_job(const void *buf, size_t len, char **cwd, struct strvec *env,
                          struct job_home **homes, uint32_t *flags, struct job_plan **jp,
                          struct cs_err *e);
/* As workerwire_decode_job, the plan taken from memo (exec/planmemo.h): *jp is the memo's,
 * never freed by the caller. A source sent by reference is kept there too; a job message
 * that refers to one is refused without a memo. */
struct plan_memo;
int workerwire_decode_job_memo(const void *buf, size_t len, struct plan_memo *memo, char **cwd,
                               struct strvec *env, struct job_home **homes, uint32_t *flags,
                               struct job_plan **jp, struct cs_err *e);

/* WORKER_WRITEBACK's, WORKER_NARROW's and WORKER_DROP's payload (gen unused by a drop); decode: a
 * new *shm (free), or -1 with e. */
void workerwire_encode_buffer(const char *shm, uint64_t gen, struct wbuf *out);
int workerwire_decode_buffer(const void *buf, size_t len, char **shm, uint64_t *gen,
                             struct cs_err *e);

/* WORKER_DEVICES's payload: the job environment; decode: a new *env (sv_free), or -1 with e
 * when truncated or followed by anything. */
void workerwire_encode_env(const struct strvec *env, struct wbuf *out);
int workerwire_decode_env(const void *buf, size_t len, struct strvec *env, struct cs_err *e);

/* WORKER_DEVLIST's payload: a count (u32) and as many struct rt_devinfo, byte for byte, as
 * rt_devices_list gave them (the same build on the same machine reads them: the server is
 * one build's); at most WORKERWIRE_MAX_DEVS, the rest left out. decode: a new *devs (free)
 * and *n, or -1 with e when the length is not the count's or the count is out of bounds. */
void workerwire_encode_devices(const struct rt_devinfo *devs, size_t n, struct wbuf *out);
int workerwire_decode_devices(const void *buf, size_t len, struct rt_devinfo **devs, size_t *n,
                              struct cs_err *e);

#endif
