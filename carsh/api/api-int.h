/*
 * What the embedding API's files (api-machine.c, api-open.c, api-flowmodel.c, api-remote.c,
 * api-pipeline.c) share: the handles' insides, and the machine interface both kinds of
 * machine implement. Each handle has a lock that serializes the calls made on it and an
 * error of its own; references (machine <- buffer, flow-model, pipeline; flow-model <-
 * pipeline; buffer <- flow-model) let the caller free handles in any order.
 */
#ifndef CARSH_API_API_INT_H
#define CARSH_API_API_INT_H

#include <pthread.h>
#include <stdbool.h>

#include "carsh.h"
#include "data/params.h"
#include "exec/jobplan.h"
#include "model/flowmodel.h"
#include "runtime/feeder.h"
#include "runtime/session.h"
#include "util/error.h"
#include "util/wire.h"

/* One machine interface, implemented twice and chosen when the machine is made: on this
 * process's device (api-open.c, api-flowmodel.c) and on the user's server (api-remote.c).
 * The public calls check their arguments, then call these; the flow-model's take its lock. */
struct flowmodel_ops {
	/* Read a flow-model from path, or parse xml (called name): a new handle in *out. */
	int (*make)(carsh_machine *m, const char *path, const char *xml, const char *name,
	            carsh_flowmodel **out);
	/* Release what the implementation holds; the handle's lock and machine stay. */
	void (*fini)(carsh_flowmodel *fm);
	int (*set_param)(carsh_flowmodel *fm, const char *name, const char *value);
	int (*stream_bytes)(carsh_flowmodel *fm, const char *stream, size_t *bytes);
	int (*bind_memory)(carsh_flowmodel *fm, const char *stream, void *mem, size_t bytes);
	int (*fire)(carsh_flowmodel *fm, bool async);
	int (*wait)(carsh_flowmodel *fm);
	int (*test)(carsh_flowmodel *fm, int *done);
	int (*set_profiling)(carsh_flowmodel *fm, int on);
	int (*stats)(carsh_flowmodel *fm, struct carsh_stats *out);
};

struct machine_ops {
	/* false where the machine's open failed: nothing made on it could ever run */
	bool (*opened)(const carsh_machine *m);
	/* The last reference is gone: release the device or the server's worker. */
	void (*close)(carsh_machine *m);
	int (*device_count)(carsh_machine *m, size_t *n);
	int (*device_info)(carsh_machine *m, size_t i, struct carsh_device_info *out);
	/* 0, or CARSH_E_STATE with e's message: what call makes needs device memory in this
	 * process (virtual buffers, pipelines, CaravelaMPI's requests). */
	int (*local_only)(struct cs_err *e, const char *call);
	const struct flowmodel_ops *fm;
};

/* The flow-models of a machine on this process's device (api-flowmodel.c). */
extern const struct flowmodel_ops local_flowmodel_ops;

/* Two queues on the machine's device: its own without profiling, where fires go, and the
 * runtime's with profiling (rt_dev_queue), for flow-models whose kernel times are asked for
 * (carsh_flowmodel_set_profiling). A profiling queue makes every command dearer on some
 * drivers (docs/api.md, "What a fire costs"); machine_queue keeps the two in one order. */
struct carsh_machine {
	pthread_mutex_t lock; /* err, and the creation of handles on the machine */
	int refs;
	const struct machine_ops *ops;
	struct rt_session *rt;
	struct rt_dev *dev;
	cl_command_queue q;      /* the plain queue */
	cl_command_queue last_q; /* the queue of the latest commands (atomic) */
	char device_index[24];   /* the device as a plan names it: its index in `devices` */
	struct cs_err err;
	struct remote *remote; /* a server machine's own state (api-remote.c) */
};

struct carsh_buffer {
	carsh_machine *m;
	int refs;
	cl_mem mem;
	size_t bytes;
};

enum fm_bind { FM_UNBOUND, FM_MEMORY, FM_BUFFER };

/* A stream's binding. Caller memory is a CL_MEM_USE_HOST_PTR buffer that stays mapped (the
 * host's) except while a fire runs: OpenCL's rule for memory both sides use. */
struct fm_stream {
	enum fm_bind how;
	void *host;
	size_t bytes;
	cl_mem mem; /* FM_MEMORY: ours; FM_BUFFER: buf's */
	bool mapped;
	carsh_buffer *buf;
};

/* Fires a flow-model queues before the next fire_async waits for them (carsh.h). */
#define FM_QUEUE_MAX 64

struct carsh_flowmodel {
	pthread_mutex_t lock;
	int refs;
	carsh_machine *m;
	struct flowmodel *fm;
	struct params params;
	struct job_plan *jp;    /* NULL until planned, and again after a parameter changes */
	struct rt_kernel *kern; /* &own once built */
	/* The flow-model's own kernel object (two flow-models of one kernel share the session's):
	 * it keeps the arguments of the last fire, so a fire sets none unless args_kept is false
	 * (the plan or a binding changed, or a fire failed). */
	struct rt_kernel own;
	bool args_kept;
	cl_command_queue q;        /* the queue of its latest commands: machine_queue(m, profile) */
	struct fm_stream *streams; /* one per argument; used for streams */
	cl_mem *given;
	bool profile;
	bool in_flight;   /* fires are queued: queued of them, since the last wait */
	bool in_pipeline; /* a pipeline's stage: its streams are the pipeline's */
	cl_event done;    /* the last queued fire's completion (the queue is in order) */
	unsigned queued;
	struct rt_pending *pending[FM_QUEUE_MAX]; /* each queued fire's profiled work */
	double fire_start[FM_QUEUE_MAX];
	struct run_stats rs;
	unsigned long long fires;
	double fire_ms, last_fire_ms;
	struct cs_err err;
	struct remote_fm *remote; /* a server machine's flow-model's own state (api-remote.c) */
};

/* Set e's message and return code (a carsh_errcode). */
int api_fail(struct cs_err *e, int code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

void machine_ref(carsh_machine *m);
void buffer_ref(carsh_buffer *b);
void flowmodel_ref(carsh_flowmodel *fm);
/* Copy a message into the machine's error (creation failures of its handles). */
int machine_fail(carsh_machine *m, int code, const struct cs_err *e);
/* 0, or CARSH_E_STATE with the reason where the machine's open failed: nothing made on a
 * machine without a device could ever run (a fire would reach for the missing device). */
int machine_usable(carsh_machine *m, const char *call);
int machine_failf(carsh_machine *m, int code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* The queue for the next commands on m, with profiling or without. Moving to the other queue
 * first waits for the one used last, so that the machine's commands keep the order they
 * were called in (what a single in-order queue gives). */
cl_command_queue machine_queue(carsh_machine *m, bool profiling);

/* For the pipeline, with fm->lock held: the stream called name (planning first), its index
 * and kind; bind it to a buffer; fire and wait. */
int fm_stream_locked(carsh_flowmodel *fm, const char *name, size_t *idx, struct cs_err *e);
int fm_bind_buffer_locked(carsh_flowmodel *fm, size_t idx, carsh_buffer *b, struct cs_err *e);
int fm_fire_locked(carsh_flowmodel *fm, struct cs_err *e);

/* A new handle with ops, one reference. */
carsh_machine *machine_new(const struct machine_ops *ops);

/* ---- server machines (api-remote.c; docs/api.md, "Machines on the server") ----
 * Make m (a new handle) a machine on the user's server: its calls go there; the handles'
 * locks and errors are the same as a local machine's. */
int remote_open(carsh_machine *m, const char *device);

/* The worker's side (api-serve.c): serve the machine that open (API_OPEN, which it frees)
 * asked for on sock until the client closes it; the process's exit status. */
int api_serve(int sock, struct wire_msg *open);

#endif
