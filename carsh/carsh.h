/*
 * carsh.h — the CarSh library, its one public header (docs/api.md, man 3 carsh).
 *
 * Two APIs live here:
 * - The embedding API (the second half of this file): 004's Caravela calls (machines,
 *   flow-models, streams bound to the caller's memory, fire, wait, statistics) and its
 *   meta-pipeline calls, with opaque handles. A guest in the caller's process: it installs
 *   no signal handler, changes no signal mask, leaves no thread of its own running, never
 *   exits and prints nothing; every error is a code plus a message read from the handle.
 * - The session API (just below): the shell's state (variables, virtual buffers, jobs,
 *   options), running command lines, scripts and XML files exactly as the `carsh` program
 *   does, which is a thin front-end on it. A session is the shell's: it blocks SIGTERM and
 *   SIGHUP, starts a signal thread and prints its errors on stderr.
 */
#ifndef CARSH_H
#define CARSH_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses, as in POSIX shells. A job killed by signal N gives 128+N. */
enum {
	CARSH_OK = 0,
	CARSH_FAIL = 1,        /* a command failed */
	CARSH_USAGE = 2,       /* wrong arguments to carsh or to a builtin */
	CARSH_NOT_FOUND = 127, /* no such command or file */
};

struct carsh_options {
	const char *device; /* --device, else $CARSH_DEVICE; NULL for the default choice */
	bool thread_exec;   /* -T: the thread executor */
	bool interactive;   /* report jobs before prompts; a failing command does not stop */
	bool mpi; /* --mpi: join an MPI job even where the launcher's environment does not say so
	             (an MPI launcher's is recognized without it; docs/scale-out.md) */
};

struct carsh_session;

const char *carsh_version(void);

/* A new session. Also removes shared-memory segments left by carsh processes that no longer
 * run. Started by an MPI launcher (or with opt->mpi) it joins the MPI job first; NULL, with
 * the message printed, when that fails. Out of memory ends the program. */
struct carsh_session *carsh_session_new(const struct carsh_options *opt);

/* The number of MPI ranks of the session (1 without MPI) and, in *rank, this one's. */
int carsh_ranks(int *rank);

/* Run commands from a string; file (may be NULL) and first_line name it in messages.
 * Returns the status of the last command run; a non-interactive session stops at the first
 * failing command. Errors are printed on stderr. */
int carsh_run_string(struct carsh_session *s, const char *text, const char *file, int first_line);

/* Run text of len bytes read from a file: as carsh_run_string, but a NUL byte in it is
 * refused ("x.csh:3: a NUL byte in a script ...", status 2) instead of ending the text. */
int carsh_run_text(struct carsh_session *s, const char *text, size_t len, const char *file,
                   int first_line);

/* Run a file of commands. */
int carsh_run_script(struct carsh_session *s, const char *path);

/* Run a file given on the command line: an XML file (by its name or its first byte) with
 * NAME=VALUE parameters, else a script with NAME=VALUE variables set first. A pipe or FIFO
 * is read once. */
int carsh_run_file(struct carsh_session *s, const char *path, int nparams, char **params);

/* Run an XML file (the root element decides how) with NAME=VALUE parameters. */
int carsh_run_xml(struct carsh_session *s, const char *path, int nparams, char **params);

/* What completion offers for the next word of a command whose words so far are argv[0]
 * (the command) .. argv[argc - 1]: builtins after `help`, a builtin's operations (`virtbuf
 * fill`), buffer names where a buffer is expected. A NULL-terminated array of new strings
 * (free each and the array), or NULL when file names fit there. */
char **carsh_completion_words(struct carsh_session *s, int argc, char **argv);

/* Run one command given as words, e.g. {"run", "f.xml", "x=-"} (no parsing, no
 * expansion). */
int carsh_run_argv(struct carsh_session *s, int argc, char **argv);

/* True when name is a builtin. */
bool carsh_is_command(const char *name);

/* Set a variable from "NAME=VALUE" (as `set` does); 0, or 2 with a message on stderr. */
int carsh_set(struct carsh_session *s, const char *assignment);

/* True when text ends inside quotes or after a '\' and needs another line. */
bool carsh_text_incomplete(const char *text);

/* Print notices of background jobs that finished since the last call ("[1]+ Done  x.xml"). */
void carsh_report_jobs(struct carsh_session *s);

/* True once `exit` ran (or a fatal signal arrived); *status receives the exit status. */
bool carsh_exit_requested(const struct carsh_session *s, int *status);

/* Ask the foreground job to stop (the interactive front-end's Ctrl-C). Safe in a signal
 * handler. */
void carsh_interrupt(struct carsh_session *s);

/* The i-th builtin's name (NULL past the end), for completion. */
const char *carsh_command_name(size_t i);

/* Wait for the background jobs: end of input is an implicit sync ("waiting for N background
 * job(s) before exiting"). Returns the status of the first that failed, 0 when none did.
 * carsh_interrupt during the wait ends the program as SIGINT ends a script: its jobs stopped,
 * its virtual buffers deleted, status 130. An interactive front-end calls it while its
 * Ctrl-C handler is still installed; carsh_session_end calls it too. */
int carsh_session_wait(struct carsh_session *s);

/* End the session: wait for background jobs, delete its virtual buffers. Returns the exit
 * status the program should end with: `exit N`, else the last command's status, else (not
 * interactive) that of the first background job that failed, as for a batch. */
int carsh_session_end(struct carsh_session *s);

/* ==== The embedding API (docs/api.md): 004 Table 1 and §4.2.3-4.2.4 in CarSh's names ====
 *
 * Handles are opaque. Every call that can fail returns 0 (CARSH_E_NONE) or a negative
 * carsh_errcode, and leaves a one-line message ("saxpy.xml:14: <Input name="x">: ...") that
 * carsh_*_last_error of the handle returns until its next failing call. A call that creates
 * a handle reports its failure on the parent handle (a flow-model's on its machine).
 * Calls on one handle may come from several threads: they are serialized (the message read
 * after a failure may then be another thread's). Handles hold references to their parents,
 * so they may be freed in any order; freeing NULL does nothing. */

enum carsh_errcode {
	CARSH_E_NONE = 0,
	CARSH_E_ARG = -1,    /* a NULL handle or pointer, a bad value (a negative limit ...) */
	CARSH_E_FILE = -2,   /* a flow-model that cannot be read, or is not valid */
	CARSH_E_NAME = -3,   /* no stream, parameter, stage or port of that name or number */
	CARSH_E_SIZE = -4,   /* the bytes given do not match the stream's */
	CARSH_E_STATE = -5,  /* not now: a stream unbound, a fire in flight, no data sent */
	CARSH_E_DEVICE = -6, /* no such device, a build error, an OpenCL failure */
	CARSH_E_MPI = -7,    /* an MPI call failed, or the library was built without MPI */
	/* a server machine's worker (or the server) ended: the machine and its handles are
	 * lost; they may still be freed (open another machine) */
	CARSH_E_LOST = -8,
};

typedef struct carsh_machine carsh_machine;
typedef struct carsh_flowmodel carsh_flowmodel;
typedef struct carsh_buffer carsh_buffer;
typedef struct carsh_pipeline carsh_pipeline;

/* ---- machines (CARAVELA_CreateMachine, CARAVELA_QueryShader) ---- */

/* Open the local machine on one OpenCL device: device is a selector as for `carsh
 * --device` (cpu, gpu, accelerator, an index of `carsh devices`, a name substring) or NULL
 * for the first GPU, else the first CPU. *out is set even on failure (as sqlite3_open
 * does): read carsh_machine_last_error, then carsh_machine_free it. Returns
 * CARSH_E_DEVICE when there is no OpenCL platform or no such device. */
int carsh_machine_open(const char *device, carsh_machine **out);

/* Open a machine at a place: "local" (or NULL), as carsh_machine_open; or "server", the
 * user's carsh server (docs/server.md: $CARSH_SERVER_DIR, else $XDG_RUNTIME_DIR/carsh, else
 * /tmp/carsh-UID; started on demand, as the shell starts it), which lends the machine a
 * worker that opens device there and runs its flow-models: the same calls, codes and
 * messages as on a local machine, but streams bound to the caller's memory are copied to
 * the worker's shared memory before each fire and back after it (no zero copy), and a
 * server machine has no virtual buffers or pipelines (CARSH_E_STATE). The server is the
 * one of the carsh program $CARSH_EXE, else the installed one. A worker that ends makes
 * every later call CARSH_E_LOST. CARSH_SERVER=off, or no server to be had:
 * CARSH_E_DEVICE with the reason. Other MPI ranks are not machines here: CaravelaMPI
 * (carsh_mpi_*) moves streams between the ranks' own machines. *out is set even on
 * failure, as for carsh_machine_open; freeing a server machine gives its worker back. */
int carsh_machine_open_at(const char *where, const char *device, carsh_machine **out);

/* Drop the caller's reference; the devices' contexts go when the last flow-model, buffer
 * and pipeline made on the machine are freed too. */
void carsh_machine_free(carsh_machine *m);

/* The message of the handle's last failing call, "" when none failed (never NULL; valid
 * until the handle's next call). */
const char *carsh_machine_last_error(const carsh_machine *m);

struct carsh_device_info {
	char name[256];
	char vendor[128];
	char platform[128];
	const char *type; /* "cpu", "gpu", "accelerator" or "other" */
	unsigned compute_units;
	unsigned long long global_mem; /* bytes */
	unsigned long long max_alloc;  /* bytes per buffer */
	int selected;                  /* 1: the device this machine runs on */
};

/* How many OpenCL devices the host has (every platform), and one's description: i counts
 * from 0 in the order `carsh devices` lists them. */
int carsh_machine_device_count(carsh_machine *m, size_t *n);
int carsh_machine_device_info(carsh_machine *m, size_t i, struct carsh_device_info *out);

/* ---- flow-models (CARAVELA_CreateFlowModelFromFile, MapFlowModelIntoShader, Fire) ---- */

/* A flow-model from a <FlowModel> file, or from XML text (name is used in messages and its
 * directory for relative <Source file=...>; NULL: "<string>", relative to the current
 * directory). The program is built at the first fire. On failure *out is NULL and the
 * message is the machine's (CARSH_E_FILE). */
int carsh_flowmodel_from_file(carsh_machine *m, const char *path, carsh_flowmodel **out);
int carsh_flowmodel_from_string(carsh_machine *m, const char *xml, const char *name,
                                carsh_flowmodel **out);

/* Waits for a fire in flight, gives the caller's memory back (every stream bound to it is
 * up to date) and drops the references it held. */
void carsh_flowmodel_free(carsh_flowmodel *fm);
const char *carsh_flowmodel_last_error(const carsh_flowmodel *fm);

/* Set a parameter (<Param name=...>) to a value or an integer expression over others, as
 * `run f.xml N=1024` does. Counts, work sizes and constants are evaluated again at once: a
 * value that makes one of them wrong (not a number, out of range) is refused here and the
 * flow-model stays as it was; a bound stream whose size changes is refused at the next fire
 * (CARSH_E_SIZE). */
int carsh_flowmodel_set_param(carsh_flowmodel *fm, const char *name, const char *value);

/* The bytes of a stream (Input, Output or InOut) with the parameters set now:
 * CARSH_E_NAME when there is no such stream. */
int carsh_flowmodel_stream_bytes(carsh_flowmodel *fm, const char *stream, size_t *bytes);

/* Bind a stream to the caller's memory, bytes long (it must be the stream's size): the
 * device works on it in place where it can (CL_MEM_USE_HOST_PTR: no copy on a CPU device;
 * a GPU copies at each fire). The memory belongs to the library from the bind until
 * carsh_flowmodel_free or another bind of the stream, except between fires: after
 * carsh_flowmodel_fire returns (or a wait or test says the fire is done), the caller may
 * read and write it until the next fire. Page-aligned memory lets more devices use it in
 * place. A stream of structs (type="struct P") is count records laid out as the device lays
 * out the kernel's struct: each field at a multiple of its alignment (a scalar's or a
 * vector's size, so long, double and int2 at multiples of 8), the whole padded to its
 * largest; an array of the same C struct, with vectors aligned to their size
 * (__attribute__((aligned(8))) on a float[2] standing for a float2), is that memory. */
int carsh_flowmodel_bind_memory(carsh_flowmodel *fm, const char *stream, void *mem, size_t bytes);

/* Bind a stream to a virtual buffer (carsh_buffer_new), which stays on the device between
 * fires and may be bound to streams of several flow-models of the machine. */
int carsh_flowmodel_bind_buffer(carsh_flowmodel *fm, const char *stream, carsh_buffer *b);

/* Run the flow-model once with the streams bound now and wait for it. Every stream must be
 * bound (CARSH_E_STATE). The first fire builds the program (or loads it from the binary
 * cache); a kernel that fails on the device is reported here. */
int carsh_flowmodel_fire(carsh_flowmodel *fm);

/* The same without waiting: the work is queued on the device. Fires queue behind each other
 * as OpenCL's commands do: fire_async N times, then one wait, gives what N fires one at a
 * time give (each fire reads what the one before it wrote), without a round trip each.
 * The caller's memory is the library's until carsh_flowmodel_wait returns, or
 * carsh_flowmodel_test sets *done; parameters and bindings cannot change meanwhile
 * (CARSH_E_STATE). A synchronous fire ends the fires queued before it. Past 64 queued
 * fires, or when profiling is turned on or off between them, a fire first waits for those
 * queued. No thread is started. */
int carsh_flowmodel_fire_async(carsh_flowmodel *fm);
/* Waits for every fire queued. */
int carsh_flowmodel_wait(carsh_flowmodel *fm);
/* *done: 1 when the last fire queued is over (then all are) or none is in flight, 0 while
 * one runs. A failed fire returns its error here. */
int carsh_flowmodel_test(carsh_flowmodel *fm, int *done);

/* Time each command on the device (kernel_ms in the statistics); off by default. Profiled
 * fires take an event per command and go to the machine's profiling queue, which costs some
 * drivers on every command: leave it off where the time of a fire matters (docs/api.md). */
int carsh_flowmodel_set_profiling(carsh_flowmodel *fm, int on);

struct carsh_stats {
	unsigned long long fires;    /* fires completed */
	unsigned long long launches; /* kernel launches queued */
	double fire_ms;              /* the fires' time, from each call to its wait */
	double last_fire_ms;
	double build_ms;  /* building the program, or loading it from the binary cache */
	int cache_hit;    /* 1: the program came from the binary cache */
	double kernel_ms; /* kernel time on the device; with profiling only */
	char device[160]; /* "NAME (PLATFORM)" */
};

int carsh_flowmodel_stats(carsh_flowmodel *fm, struct carsh_stats *out);

/* ---- virtual buffers (CARAVELA_GetInputData / GetOutputData) ---- */

/* A buffer of bytes on the machine's device, zero-filled. It is counted: a flow-model or
 * pipeline bound to it keeps it until it is unbound or freed. Errors go to the machine. */
int carsh_buffer_new(carsh_machine *m, size_t bytes, carsh_buffer **out);
void carsh_buffer_free(carsh_buffer *b);
size_t carsh_buffer_size(const carsh_buffer *b);
/* Copy between the caller's memory and bytes of the buffer at offset, waiting for the
 * device work queued before that uses it (CARSH_E_SIZE past the end). */
int carsh_buffer_write(carsh_buffer *b, size_t offset, const void *src, size_t bytes);
int carsh_buffer_read(carsh_buffer *b, size_t offset, void *dst, size_t bytes);

/* ---- meta-pipelines (004 §4.2.3-4.2.4) ---- */

/* 004 §4.2.1's port kinds of a connection. */
enum carsh_port_kind {
	CARSH_PORT_INTERMEDIATE = 0, /* output to input, no initial data */
	CARSH_PORT_INITONCE = 1,     /* a feedback input, sent once before the first run */
};

/* CARAVELA_CreatePipeline. */
int carsh_pipeline_new(carsh_machine *m, carsh_pipeline **out);
void carsh_pipeline_free(carsh_pipeline *p);
const char *carsh_pipeline_last_error(const carsh_pipeline *p);

/* CARAVELA_AddShaderToPipeline + AttachFlowModelToShader: a stage called name (letters,
 * digits, '_', '-') running fm, which must be of the pipeline's machine. The pipeline holds
 * a reference to fm and binds its connected and port streams to buffers of its own; fm's
 * other streams must be bound by the caller. */
int carsh_pipeline_add(carsh_pipeline *p, const char *name, carsh_flowmodel *fm);

/* CARAVELA_ConnectIO (+ SpecifyInitOncePort, SpecifyIntermediateInput/Output): the output
 * stream of stage from feeds the input stream of stage to. The data crosses after every
 * limit-th run of from (limit >= 1, the iteration limit IT of 004 Figure 15); the larger
 * buffer is cut to the smaller (004 §4.2.2). An INITONCE connection's input is a port:
 * *port (may be NULL) receives its number for carsh_pipeline_send. A connected or port
 * stream is the pipeline's buffer: one the caller bound is refused (CARSH_E_STATE, here or
 * at implement), and an InOut connected to itself too (CARSH_E_ARG: an InOut keeps its data
 * between runs; an ENTRANCE port gives its first data). */
int carsh_pipeline_connect(carsh_pipeline *p, const char *from, const char *output, const char *to,
                           const char *input, enum carsh_port_kind kind, long limit, int *port);

/* CARAVELA_SpecifyEntrancePort / SpecifyExitPort: an input the application feeds (data must
 * be sent before every limit-th run) or an output it reads (taken after every limit-th
 * run). *port receives the port's number. */
int carsh_pipeline_entrance(carsh_pipeline *p, const char *stage, const char *input, long limit,
                            int *port);
int carsh_pipeline_exit(carsh_pipeline *p, const char *stage, const char *output, long limit,
                        int *port);

/* CARAVELA_ImplementPipelineModel: check 004 §4.2.1's conditions (an EXIT port, every stage
 * connected), that every cycle holds an INITONCE connection (Algorithm 1), that every
 * stream is connected, a port or bound; then make the buffers. No stage runs. */
int carsh_pipeline_implement(carsh_pipeline *p);

/* CARAVELA_SendInputDataToPipeline: bytes (the port's stream size) into an ENTRANCE or
 * INITONCE port. */
int carsh_pipeline_send(carsh_pipeline *p, int port, const void *data, size_t bytes);

/* Run the pipeline iterations times: in each, every stage runs once, producers before their
 * consumers. Stops with CARSH_E_STATE at an iteration whose ENTRANCE or INITONCE port has
 * had no data sent since it was last taken (the message names the port and the iteration). */
int carsh_pipeline_run(carsh_pipeline *p, long iterations);

/* CARAVELA_ReceiveOutputDataFromPipeline: the latest data taken at an EXIT port. *fresh
 * (may be NULL) says whether it was taken since the last receive. */
int carsh_pipeline_receive(carsh_pipeline *p, int port, void *data, size_t bytes, int *fresh);

/* ---- CaravelaMPI (004 §4.1, Table 4): flow-models that receive and send over MPI ----
 *
 * A program started by mpirun (or srun ...) joins the MPI job with carsh_mpi_init and then
 * moves streams between ranks around the fires of its flow-models, in 004's three interface
 * models: Recv-Calculate-Send (carsh_mpi_recvsend: receive inputs, fire, send outputs),
 * Recv-Calculate (carsh_mpi_recv) and Calculate-Send (carsh_mpi_send); the I versions
 * return a request at once and carsh_mpi_wait / carsh_mpi_test complete it. While a wait or
 * test looks at its request, it also advances every other pending request of the process
 * (a receive that ended is fired, a fire that ended is sent), as 004 §4.1.4 asks.
 *
 * Messages go on a communicator of the library's own (a duplicate of MPI_COMM_WORLD): they
 * never match the program's own MPI messages, and the program may use MPI itself. Errors
 * of these calls are one-line messages read with carsh_mpi_last_error, kept per thread. */

typedef struct carsh_request carsh_request;

/* One message. With stream set it is a stream of the request's flow-model: a received one
 * is an Input or InOut, a sent one an Output or InOut, and the bytes are its binding's
 * (caller memory or a carsh_buffer), data and bytes being ignored. With stream NULL it is
 * the caller's bytes at data (for a request without a flow-model, or besides its streams).
 * Messages match by rank and tag, in order, as MPI's do. */
struct carsh_message {
	const char *stream;
	void *data;
	size_t bytes;
	int rank; /* the peer, in MPI_COMM_WORLD */
	int tag;  /* 0 .. 32767 */
};

/* CaravelaMPI_Init: join the MPI job (MPI_Init_thread, asking for MPI_THREAD_MULTIPLE),
 * unless the program initialized MPI already. *rank and *size (each may be NULL) receive
 * this process's rank and the number of ranks. A program whose MPI gives less than
 * MPI_THREAD_MULTIPLE makes these calls from one thread at a time. CARSH_E_MPI without
 * MPI. Calling it again only reads the rank and size. */
int carsh_mpi_init(int *rank, int *size);
/* CaravelaMPI_Finalize: free the library's communicator, and MPI_Finalize if
 * carsh_mpi_init called MPI_Init. CARSH_E_STATE while requests are pending (wait for them
 * first). */
int carsh_mpi_finalize(void);
/* The message of this thread's last failing carsh_mpi_ call ("" when none failed). */
const char *carsh_mpi_last_error(void);

/* CaravelaMPI_Irecvsend: receive recv[0..nrecv), fire fm once, send send[0..nsend), as a
 * request (*req). The messages received land in the streams' memory; nothing of fm may be
 * touched (bound, fired, read) until the request completes, and a flow-model has one
 * request pending at a time (CARSH_E_STATE). fm's streams must be bound. */
int carsh_mpi_irecvsend(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv,
                        const struct carsh_message *send, size_t nsend, carsh_request **req);
/* CaravelaMPI_Irecv (Recv-Calculate): receive, then fire fm; with fm NULL, receive only.
 * The results are in fm's output streams when the request completes. */
int carsh_mpi_irecv(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv,
                    carsh_request **req);
/* CaravelaMPI_Isend (Calculate-Send): fire fm on its streams as bound, then send; with fm
 * NULL, send only (the caller's bytes). */
int carsh_mpi_isend(carsh_flowmodel *fm, const struct carsh_message *send, size_t nsend,
                    carsh_request **req);

/* The synchronous forms: the I call, then carsh_mpi_wait. */
int carsh_mpi_recvsend(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv,
                       const struct carsh_message *send, size_t nsend);
int carsh_mpi_recv(carsh_flowmodel *fm, const struct carsh_message *recv, size_t nrecv);
int carsh_mpi_send(carsh_flowmodel *fm, const struct carsh_message *send, size_t nsend);

/* CaravelaMPI_Wait: complete *req (receive, fire, send), free it and set *req to NULL; a
 * NULL *req returns at once. The request's error (a failed fire, an MPI error) is returned
 * here, and the request is freed all the same. */
int carsh_mpi_wait(carsh_request **req);
/* CaravelaMPI_Test: advance *req (and the others pending) without blocking; *done is 1
 * when it completed, and then it is freed and *req set to NULL, as by carsh_mpi_wait. */
int carsh_mpi_test(carsh_request **req, int *done);

#ifdef __cplusplus
}
#endif

#endif
