/*
 * A kernel plan: everything the runtime needs to run one flow-model on one device, with every
 * expression already evaluated and every host buffer in place. The model layer builds it from
 * the XML files; executors hand it to the runtime.
 */
#ifndef CARSH_RUNTIME_PLAN_H
#define CARSH_RUNTIME_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "data/types.h"

enum arg_kind { ARG_INPUT, ARG_OUTPUT, ARG_INOUT, ARG_CONSTANT, ARG_LOCAL };

enum swap_method { SWAP_SWAP, SWAP_COPY_DEVICE, SWAP_COPY_HOST };

struct kernel_arg {
	enum arg_kind kind;
	char *name;
	struct cs_type type;
	size_t count;                        /* elements: streams and Local */
	size_t bytes;                        /* count * type_size(type); constants: type_size */
	unsigned char value[TYPE_MAX_BYTES]; /* Constant: the value */
	void *host;       /* streams: Input/InOut data read before the first launch; Output/InOut
	                     destination written after the last. Owned by the executor. */
	bool host_shared; /* host maps a virtual buffer's shared memory (page-aligned, lives as
	                    long as the job): a CPU device may use it in place */
};

/* Argument indices of one swap pair: after each run the output's data becomes the input. */
struct swap_pair_idx {
	size_t input;
	size_t output;
};

struct kernel_plan {
	char *label;       /* the executable's file name, for messages */
	char *source;      /* OpenCL C text */
	bool source_kept;  /* source, source_name, kernel, build_options and the arguments'
	                      names belong to the file cache, which keeps them (and their
	                      addresses) until the process ends: not freed with the plan */
	char *source_name; /* its file, or "<inline in x.xml>" */
	char *kernel;
	char *build_options; /* never NULL */
	unsigned dims;       /* 1 to 3 */
	size_t global[3];
	size_t local[3];
	bool has_local;
	struct kernel_arg *args;
	size_t nargs;
	long long swap_count; /* S: the kernel runs S+1 times */
	enum swap_method swap_method;
	struct swap_pair_idx *pairs;
	size_t npairs;
	/* Device choice, strongest first (DESIGN §4); NULL where not given. */
	char *device_exe; /* <Device select> of the executable */
	char *device_cli; /* --device or CARSH_DEVICE */
	char *device_fm;  /* <RuntimeType device> of the flow-model */
};

/* Free what the plan owns (not the host buffers). */
void kernel_plan_free(struct kernel_plan *kp);
const char *arg_kind_name(enum arg_kind k); /* "Input", "Output", ... as in the XML */
/* Streams are the buffers with data (Input, Output, InOut); the kernel reads Input and
 * InOut, writes Output and InOut. */
bool arg_is_stream(enum arg_kind k);
bool arg_is_read(enum arg_kind k);
bool arg_is_written(enum arg_kind k);
const char *swap_method_name(enum swap_method m);

#endif
