/* <FlowModel> (DESIGN §3.2): a kernel plus the typed description of its arguments. */
#ifndef CARSH_MODEL_FLOWMODEL_H
#define CARSH_MODEL_FLOWMODEL_H

#include <stddef.h>

#include "data/params.h"
#include "data/record.h"
#include "data/types.h"
#include "model/xml.h"
#include "runtime/plan.h"

enum partition { PART_BLOCK, PART_COPY };

/* <Struct name="P"><Field name="n" type="int"/>...</Struct>: the type of a by-value
 * Constant or of a stream's elements (type="struct P"), laid out as OpenCL C lays it out
 * (data/record.h); a field may be a fixed array (count="4") or an earlier struct. */
struct fm_struct {
	struct cs_record rec;
	int line;
};

/* One kernel argument, in kernel order. Expressions stay text until a scope is known. */
struct fm_arg {
	enum arg_kind kind;
	char *name;
	struct cs_type type; /* with type_param: the flow-model's default's, else float */
	char *type_param;    /* type="${T}": the parameter naming the type, or NULL */
	char *count;         /* streams and Local */
	char *value;         /* Constant */
	char *struct_name;   /* type="struct P": P, else NULL */
	size_t struct_index; /* then its place in the flow-model's structs */
	enum partition partition;
	bool partition_given;
	char *unit; /* elements per work-item; NULL means 1 */
	int line;
	/* image="2d" (model/fmimage.h): type is the pixel's, count "(width)*(height)" */
	unsigned image_dims; /* 0: a buffer */
	unsigned image_order, image_type;
	char *width, *height, *depth; /* depth: image="3d" only */
	/* <Sampler> (kind Constant): OpenCL's addressing and filter modes */
	bool is_sampler;
	bool sampler_normalized;
	unsigned sampler_address, sampler_filter;
};

struct flowmodel {
	char *name;
	char *file; /* the file it was read from (for an inline one, the enclosing file) */
	char *dir;  /* relative paths start here */
	int line;
	struct params params; /* defaults, weakest in every scope */
	char *device;         /* <RuntimeType device>: any cpu gpu accelerator; NULL = any */
	char *source;         /* kernel source text */
	char *source_name;    /* its file name, or "<inline in FILE>" */
	char *kernel;
	char *build_options;  /* never NULL; its -I folders absolute (model/buildopts.h) */
	char *includes;       /* the digest of the files the source includes (runtime/includes.h) */
	char **include_paths; /* every place an include was looked for, present or not */
	size_t ninclude_paths;
	int source_line;   /* inline source: the line of this file its first line is on; 0
	                      for a source file */
	int kernel_line;   /* <Kernel> */
	int options_line;  /* <BuildOptions>; 0 when there is none */
	int worksize_line; /* <WorkSize> */
	int args_line;     /* <Arguments>; 0 when there is none */
	char *global[3];
	unsigned dims;
	char *local[3];
	unsigned local_dims; /* 0: no local size */
	bool local_device;   /* local="device": chosen per device at launch */
	struct fm_arg *args;
	size_t nargs;
	struct fm_struct *structs;
	size_t nstructs;
};

/* Read a flow-model file. */
int flowmodel_read(const char *path, struct flowmodel **out, struct cs_err *e);
/* Read a <FlowModel> element (a file's root, or inline in an executable). */
int flowmodel_from_node(const struct xml_ctx *x, xmlNodePtr node, struct flowmodel **out);
void flowmodel_free(struct flowmodel *fm);
/* The argument's type in a scope: its own, or the one its type parameter names. Error:
 * "fm.xml:12: <Input name="x">: type ${T} is 'flaot': unknown type ...". */
int fm_arg_type(const struct flowmodel *fm, const struct fm_arg *a, const struct scope *sc,
                struct cs_type *t, struct cs_err *e);
/* The build options in a scope, each ${NAME} replaced by its value (*out owned); *out is
 * fm->build_options itself when it has none (then *owned is false). */
int fm_build_options(const struct flowmodel *fm, const struct scope *sc, char **out, bool *owned,
                     struct cs_err *e);
/* The argument called name, or NULL. */
const struct fm_arg *flowmodel_arg(const struct flowmodel *fm, const char *name, size_t *index);

#endif
