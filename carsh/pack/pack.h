/*
 * pack (004 §5.3, scenario-based execution): a batch whose processing flow is a sequence of
 * executables becomes one kernel that a scenario stream drives through swap pairs.
 *
 *   flow.c      reads the batch: set-up, the flow (every Exec run, with the virtual buffer
 *               each stream reads and writes after the swaps before it), clean-up
 *   scenario.c  the data flow: values, which runs read and write them, which are still needed
 *               at the end; the runs (with copy runs where an in-place step needs one), slots
 *               (swap pairs) and plain streams, pass-throughs, fills and saves
 *   clsrc.c     the OpenCL C sources: kernels into functions, renames, the step's NDRange
 *   emit.c      the checks of the steps, the cases and the scenario, the merged OpenCL source,
 *               the flow-model, the executable, the scenario CSV, the packed batch, --explain
 *
 * docs/pack.md says what pack accepts and why.
 */
#ifndef CARSH_PACK_PACK_H
#define CARSH_PACK_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "data/params.h"
#include "exec/jobplan.h"
#include "model/batch.h"
#include "pack/clsrc.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* ---- the batch, flattened ---- */

/* A buffer as the flow sees it: a virtual buffer (by its name when the flow starts) or a
 * data file bound to a stream inside the flow. */
enum phys_kind { PHYS_VBUF, PHYS_FILE };

struct pk_phys {
	enum phys_kind kind;
	char *name; /* virtual buffer name at the start of the flow, or the file's path */
	bool typed;
	struct cs_type type;
	size_t count;
	size_t columns; /* files: columns= of the last stream that wrote it */
	bool columns_given;
	bool live_end;    /* its content after the flow can be seen (not deleted or overwritten
	                     unread by the clean-up) */
	char *final_name; /* virtual buffers: the name it has after the flow, or NULL */
	int cur;          /* scenario.c: its value while simulating */
	int init;         /* scenario.c: its value when the flow starts (-1: not yet made) */
};

/* One Exec of the flow as planned in its scope, with the buffers of its streams. */
struct pk_exec {
	char *where; /* "fft-filter.bat.xml:41: <Exec file=\"reorder.exe.xml\">" */
	char *label; /* short: "reorder.exe.xml" */
	struct job_plan *jp;
	char *device_exe; /* <Device select>, or NULL */
	int *phys;        /* per kernel argument: the buffer of a stream, -1 otherwise */
	size_t source;    /* index into pack->sources */
	char *fn;         /* the function the kernel became */
	const struct cl_fn *cl;
};

/* What happens, in order, inside the flow: runs of executables (an executable with
 * <Swap count="S"> is S+1 runs), and fills of buffers with a value. */
enum flow_op_kind { FO_RUN, FO_FILL };

struct flow_op {
	enum flow_op_kind kind;
	size_t exec;                         /* FO_RUN */
	long long run;                       /* FO_RUN: 0 .. swap count */
	int phys;                            /* FO_FILL */
	unsigned char value[TYPE_MAX_BYTES]; /* FO_FILL */
	char *where;                         /* FO_FILL */
	char *text;                          /* FO_FILL: the value as written */
};

/* A step around the flow, kept as XML text for the packed batch. */
struct pk_text {
	char *xml;
};

struct pack_source {
	char *text;
	char *name; /* the file it came from */
	struct cl_src *cl;
	struct cl_rename *map;
	size_t nmap;
	struct strvec names; /* the 'to' strings of map, owned */
};

/* ---- the data flow and the scenario (scenario.c) ---- */

enum val_def { VD_INIT, VD_RUN, VD_FILL };
enum val_loc { VL_NONE, VL_SLOT, VL_PLAIN };

struct pk_val {
	int phys; /* the buffer it belongs to, -1 for a temporary of an executable's <Swap> */
	int pref; /* the buffer its slot is chosen by */
	struct cs_type type;
	size_t count;
	enum val_def def_kind;
	int def;       /* the run that makes it (-1: the flow's start) */
	int fill;      /* VD_FILL: index into pack->fill_values */
	bool in_place; /* an InOut stream modifies it (the new value is made in its place) */
	int last_use;  /* the last run that reads it, -1 none */
	int final_of;  /* the buffer whose final, visible content it is, -1 none */
	enum val_loc loc;
	int slot;
	int plain;
};

/* One stream argument of one run. */
struct pk_use {
	size_t arg;
	enum arg_kind kind;
	int in;    /* the value read (Input, InOut) */
	int out;   /* the value made (Output, InOut) */
	int plain; /* a Fill-bound input: plain stream; -1 otherwise */
};

enum pk_opkind { PO_PASS, PO_FILL, PO_SAVE };

/* Work a run does besides its kernel: pass a slot's value through, fill a slot or plain
 * output with a value, save a slot's value into a plain output for after the flow. */
struct pk_op {
	enum pk_opkind kind;
	int slot;
	int plain;
	int val;
};

struct pk_run {
	int exec; /* -1: a copy run (only pass-throughs) */
	long long iter;
	char *where;
	struct pk_use *uses;
	size_t nuses;
	int *fills; /* values made by fills after this run */
	size_t nfills, fcap;
	struct pk_op *ops;
	size_t nops, ocap;
	char *state; /* per slot: W written, I in place, F filled, P passed, . idle */
	int kase;
};

struct pk_slot {
	struct cs_type type;
	size_t count;
	char *name;
	int init_phys; /* its input stream starts with this buffer's content; -1: Fill 0 */
	int init_val;
	int final_phys; /* its output stream goes to this buffer after the flow; -1: Discard */
	int cur;        /* while allocating */
	int last_phys;
};

enum plain_kind {
	PL_INIT,    /* Input: a buffer's content at the flow's start */
	PL_FILL,    /* Input: <Fill> */
	PL_FINAL,   /* Output: a buffer's content after the flow */
	PL_SCRATCH, /* Output: <Discard/> */
	PL_LOCAL,   /* Local scratch memory shared by the steps (same work size only) */
};

struct pk_plain {
	enum plain_kind how;
	char *name;
	struct cs_type type;
	size_t count;
	int phys;
	unsigned char fill[TYPE_MAX_BYTES];
	int scratch_rank; /* PL_SCRATCH: the k-th discarded stream of one run */
};

struct pk_case {
	char *code;  /* the body of the case */
	char *first; /* the first run it stands for, for the comment */
	char *title; /* short: the step's kernel */
};

struct pack {
	/* inputs */
	char *batch_file;
	char *name;          /* file names in the directory: NAME.packed.* */
	char *dir;           /* the output directory ("" with --explain alone) */
	struct params shown; /* the parameters pack ran with, for the files' comments */
	/* flow.c */
	struct pk_phys *phys;
	size_t nphys, phys_cap;
	struct pk_exec *execs;
	size_t nexecs, exec_cap;
	struct flow_op *ops;
	size_t nops, ops_cap;
	unsigned char (*fill_values)[TYPE_MAX_BYTES];
	size_t nfill_values, fv_cap;
	struct strvec setup;   /* XML lines of the packed batch before the packed Exec */
	struct strvec cleanup; /* XML lines after it */
	struct strvec after;   /* XML lines right after it: name swaps, moved fills, echoes */
	struct strvec notes;   /* what pack changed, for --explain and the batch's comment */
	int (*partners)[2];    /* buffers exchanged by a swap: their values share slots */
	size_t npartners, partner_cap;
	struct pack_source *sources;
	size_t nsources, src_cap;
	bool uniform; /* every step has the same NDRange: the packed kernel uses it */
	unsigned dims;
	size_t global[3];
	size_t local[3];
	bool has_local;
	size_t G; /* work-items of the packed kernel */
	char *build_options;
	char *device_exe;
	char *device_fm;
	/* scenario.c */
	struct pk_val *vals;
	size_t nvals, val_cap;
	struct pk_run *runs;
	size_t nruns, run_cap;
	struct pk_slot *slots;
	size_t nslots, slot_cap;
	struct pk_plain *plains;
	size_t nplains, plain_cap;
	struct pk_case *cases;
	size_t ncases, case_cap;
	size_t ncopies; /* copy runs inserted before in-place steps */
};

struct pack_opts {
	const char *dir;  /* -o DIR, or NULL */
	const char *name; /* --name, or NULL: the batch's file name */
	bool explain;
	FILE *out; /* where --explain prints */
};

/* The whole of pack: read, analyse, write (when opts->dir) and explain (when
 * opts->explain). The batch runs in scope (caller's NAME=VALUE, shell variables, its own
 * defaults, BATCH_DIR); shown lists the parameters to record in the packed batch. */
int pack_batch(const struct batch *b, const struct scope *scope, const struct params *shown,
               const struct pack_opts *opts, struct cs_err *e);

/* flow.c */
int pack_flow(struct pack *pk, const struct batch *b, const struct scope *scope, struct cs_err *e);
/* scenario.c */
int pack_schedule(struct pack *pk, struct cs_err *e);
/* Buffers a and b exchanged by a swap: their values may share slots. */
void pack_partner(struct pack *pk, int a, int b);
int pack_new_plain(struct pack *pk, enum plain_kind how, const char *base, struct cs_type t,
                   size_t count, int phys);
/* emit.c */
int pack_sources(struct pack *pk, struct cs_err *e);
void pack_cases(struct pack *pk);
int pack_write(struct pack *pk, struct cs_err *e);
void pack_explain(const struct pack *pk, FILE *f);
char *pack_literal(struct cs_type t, const unsigned char *bytes);
/* ' NAME="VALUE"', the value as XML text. */
void pack_attr(struct strbuf *sb, const char *name, const char *value);
void pack_free(struct pack *pk);

#endif
