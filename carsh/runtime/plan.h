/*
 * A kernel plan: everything the runtime needs to run one flow-model on one device, with every
 * expression already evaluated and every host buffer in place. The model layer builds it from
 * the XML files; executors hand it to the runtime.
 */
#ifndef CARSH_RUNTIME_PLAN_H
#define CARSH_RUNTIME_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "data/record.h"
#include "data/types.h"
#include "util/error.h"

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
	bool host_start;  /* Output: starts as host's contents (a virtual buffer's, a fill's);
	                     else it starts undefined and is not uploaded */
	bool is_struct;   /* Constant of a <Struct> type: value holds bytes bytes as the device
	                     lays the struct out; type says nothing then */
	struct cs_record *record; /* a stream or Local of a <Struct> type: its layout (owned by
	                             the plan); type is then uchar, as wide as the struct */
	int line;         /* its element in the flow-model file (kernel_plan.fm_file); 0: none */
	char *count_expr; /* the count as written (streams and Local), or NULL; kept as name */
	/* An image stream (image="2d" or "3d"): an image2d_t of width x height pixels on the
	 * device, or an image3d_t of depth such slices, each pixel one element of type on the
	 * host (count = width * height * depth). The channel order and type are OpenCL's
	 * (runtime/imageformat.h). */
	unsigned image_dims; /* 0: a buffer; 2 or 3: an image */
	unsigned image_order;
	unsigned image_type;
	size_t width, height, depth; /* depth 1 for a 2-D image */
	/* A <Sampler> (kind Constant): a sampler_t made with clCreateSampler for the launch. */
	bool is_sampler;
	bool sampler_normalized;
	unsigned sampler_address;
	unsigned sampler_filter;
};

/* Argument indices of one swap pair: after each run the output's data becomes the input. */
struct swap_pair_idx {
	size_t input;
	size_t output;
};

struct kernel_plan {
	char *label;      /* the executable's file name, for messages */
	char *source;     /* OpenCL C text */
	bool source_kept; /* source, source_name, kernel, build_options, includes and the arguments'
	                     names belong to the file cache, which keeps them (and their
	                     addresses) until the process ends: not freed with the plan */
	bool options_owned; /* build_options is the plan's own even when source_kept: the
	                       flow-model's ${NAME} replaced by this run's values */
	char *source_name;  /* its file, or "<inline in x.xml>" */
	/* Where the plan's parts were written, for messages; kept as source_name. NULL and 0
	 * for a plan made by CarSh itself (a packed kernel). */
	char *fm_file;   /* the flow-model's file */
	int source_line; /* inline source: the line of fm_file its first line is on; 0: a file */
	int kernel_line; /* <Kernel> */
	int worksize_line;
	int args_line; /* <Arguments> */
	char *kernel;
	char *build_options; /* never NULL */
	/* The files the source includes as they were when the flow-model was read
	 * (runtime/includes.h: a digest of their contents); NULL or "": none. Kept as
	 * source. */
	char *includes;
	unsigned dims; /* 1 to 3 */
	size_t global[3];
	size_t local[3];
	bool has_local;
	bool local_device; /* local="device": chosen at launch (runtime/localsize.h) */
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

/* An engine that moves plain buffers only refuses a plan with an image or a sampler:
 * "<Input name="img">: ENGINE moves plain buffers only, not images; WAY_OUT" located at the
 * element. 0 when it has none. */
#define RUN_INSTEAD "run it with 'run' (either executor)"
int kernel_plan_refuse_images(const struct kernel_plan *kp, const char *engine, const char *way_out,
                              struct cs_err *e);

/* Put "FILE:LINE: " in front of e's message: the flow-model element at line (0: the file
 * alone); nothing for a plan with no file. Returns -1. */
int kernel_plan_err_at(const struct kernel_plan *kp, int line, struct cs_err *e);
/* Put the plan's label in front of e's message, unless the message starts with it already
 * (a flow-model run by itself is its own label, and its located errors name it). */
void kernel_plan_err_label(const struct kernel_plan *kp, struct cs_err *e);

#endif
