#include "runtime/kernelcheck.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Words a driver may put in a type name that say nothing about the type. */
static const char *const ignored_words[] = {
        "const",    "volatile", "restrict", "__restrict", "__global", "global", "__constant",
        "constant", "__local",  "local",    "__private",  "private",  NULL,
};

/* Two-word spellings and the one CarSh uses. */
static const struct {
	const char *words;
	const char *name;
} spellings[] = {
        {"unsigned char", "uchar"}, {"unsigned short", "ushort"}, {"unsigned int", "uint"},
        {"unsigned long", "ulong"}, {"unsigned", "uint"},         {"signed char", "char"},
        {"signed short", "short"},  {"signed int", "int"},        {"signed long", "long"},
};

static bool ignored(const char *w, size_t n)
{
	for (size_t i = 0; ignored_words[i]; i++)
		if (strlen(ignored_words[i]) == n && strncmp(ignored_words[i], w, n) == 0)
			return true;
	return false;
}

/* "__attribute__((ext_vector_type(4)))" -> 4; 0 where there is none. */
static unsigned vector_width(const char *s)
{
	const char *v = strstr(s, "ext_vector_type(");

	return v ? (unsigned)strtoul(v + strlen("ext_vector_type("), NULL, 10) : 0;
}

/* The words of s that are not qualifiers or attributes, one space between them. */
static void kept_words(const char *s, char *out, size_t n, unsigned *pointers)
{
	size_t o = 0;

	*pointers = 0;
	out[0] = '\0';
	while (*s) {
		size_t len = strcspn(s, " \t*");

		if (len == 0) {
			*pointers += *s == '*';
			s++;
			continue;
		}
		if (strncmp(s, "__attribute__", 13) == 0)
			break;
		if (!ignored(s, len) && o + len + 2 < n) {
			if (o)
				out[o++] = ' ';
			memcpy(out + o, s, len);
			out[o += len] = '\0';
		}
		s += len;
	}
	for (s = strchr(s, ')'); s && *s; s++) /* '*' after an attribute */
		*pointers += *s == '*';
}

void arg_type_normalise(const char *reported, struct arg_type *out)
{
	char words[64];
	unsigned width = vector_width(reported);

	kept_words(reported, words, sizeof(words), &out->pointers);
	snprintf(out->base, sizeof(out->base), "%s", words);
	for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
		if (strcmp(words, spellings[i].words) == 0)
			snprintf(out->base, sizeof(out->base), "%s", spellings[i].name);
	if (width > 1) {
		size_t len = strlen(out->base);

		snprintf(out->base + len, sizeof(out->base) - len, "%u", width);
	}
}

/* ---- the check ---- */

static const char *space_name(cl_kernel_arg_address_qualifier q)
{
	switch (q) {
	case CL_KERNEL_ARG_ADDRESS_GLOBAL:
		return "__global ";
	case CL_KERNEL_ARG_ADDRESS_CONSTANT:
		return "__constant ";
	case CL_KERNEL_ARG_ADDRESS_LOCAL:
		return "__local ";
	}
	return "";
}

/* Whether a kernel argument in space q, pointer or not, can take the flow-model's kind. */
static bool kind_fits(enum arg_kind k, cl_kernel_arg_address_qualifier q, bool pointer)
{
	switch (k) {
	case ARG_INPUT:
		return pointer &&
		       (q == CL_KERNEL_ARG_ADDRESS_GLOBAL || q == CL_KERNEL_ARG_ADDRESS_CONSTANT);
	case ARG_OUTPUT:
	case ARG_INOUT:
		return pointer && q == CL_KERNEL_ARG_ADDRESS_GLOBAL;
	case ARG_LOCAL:
		return pointer && q == CL_KERNEL_ARG_ADDRESS_LOCAL;
	case ARG_CONSTANT:
		return !pointer && q == CL_KERNEL_ARG_ADDRESS_PRIVATE;
	}
	return false;
}

/* "float4", or "struct Node" for a stream of structs. */
static const char *arg_type_text(const struct kernel_arg *a, char *buf, size_t n)
{
	if (a->record)
		snprintf(buf, n, "struct %s", a->record->name);
	else
		type_name(a->type, buf, n);
	return buf;
}

/* The kernel argument a flow-model element stands for: "__global float *", "float". */
static void expected_decl(const struct kernel_arg *a, char *buf, size_t n)
{
	char tn[80];

	arg_type_text(a, tn, sizeof(tn));
	if (a->kind == ARG_CONSTANT)
		snprintf(buf, n, "%s", tn);
	else
		snprintf(buf, n, "%s%s *", a->kind == ARG_LOCAL ? "__local " : "__global ", tn);
}

struct kparam {
	cl_kernel_arg_address_qualifier space;
	cl_kernel_arg_access_qualifier access;
	struct arg_type type;
};

static const char *access_name(cl_kernel_arg_access_qualifier q)
{
	switch (q) {
	case CL_KERNEL_ARG_ACCESS_READ_ONLY:
		return "read_only";
	case CL_KERNEL_ARG_ACCESS_WRITE_ONLY:
		return "write_only";
	case CL_KERNEL_ARG_ACCESS_READ_WRITE:
		return "read_write";
	}
	return "";
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* What a flow-model gives an image or sampler argument, or NULL for another type. */
static const char *opaque_hint(const char *base)
{
	if (ends_with(base, "sampler_t"))
		return "give it a <Sampler>";
	if (ends_with(base, "image2d_t"))
		return "an image stream: image=\"2d\" width= height= format=";
	if (ends_with(base, "image3d_t"))
		return "an image stream: image=\"3d\" width= height= depth= format=";
	return NULL;
}

/* An image stream takes an image2d_t (image3d_t) the kernel reads (Input) or writes
 * (Output); a <Sampler> a sampler_t. */
static int compare_image(const struct kernel_plan *kp, size_t i, const struct kparam *kpar,
                         struct cs_err *e)
{
	const struct kernel_arg *a = &kp->args[i];
	cl_kernel_arg_access_qualifier want = a->kind == ARG_INPUT
	                                              ? CL_KERNEL_ARG_ACCESS_READ_ONLY
	                                              : CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
	const char *base = kpar->type.base;
	const char *what = a->is_sampler        ? "sampler_t"
	                   : a->image_dims == 3 ? "image3d_t"
	                                        : "image2d_t";
	bool type_ok = kpar->type.pointers == 0 && ends_with(base, what);

	if (!type_ok)
		err_set(e, "<%s name=\"%s\">: a%s %s, but kernel '%s' argument %zu is %s%s",
		        a->is_sampler ? "Sampler" : arg_kind_name(a->kind), a->name,
		        a->is_sampler ? "" : "n", what, kp->kernel, i, base,
		        kpar->type.pointers ? " *" : "");
	else if (!a->is_sampler && kpar->access != want)
		err_set(e,
		        "<%s name=\"%s\">: an %s image is %s %s, but kernel '%s' argument %zu is "
		        "%s %s",
		        arg_kind_name(a->kind), a->name, arg_kind_name(a->kind), access_name(want),
		        what, kp->kernel, i, access_name(kpar->access), what);
	else
		return 0;
	return kernel_plan_err_at(kp, a->line, e);
}

static int compare(const struct kernel_plan *kp, size_t i, const struct kparam *kpar,
                   struct cs_err *e)
{
	const struct kernel_arg *a = &kp->args[i];
	bool pointer = kpar->type.pointers > 0;
	struct cs_type t;
	struct cs_err ignored_err;
	char want[128], tn[80];

	if (a->image_dims || a->is_sampler)
		return compare_image(kp, i, kpar, e);
	if (!kind_fits(a->kind, kpar->space, pointer) || kpar->type.pointers > 1 ||
	    opaque_hint(kpar->type.base)) {
		const char *hint = opaque_hint(kpar->type.base);

		expected_decl(a, want, sizeof(want));
		err_set(e, "<%s name=\"%s\">: %s, but kernel '%s' argument %zu is %s%s%s%s%s%s",
		        arg_kind_name(a->kind), a->name, want, kp->kernel, i,
		        pointer ? space_name(kpar->space) : "", kpar->type.base,
		        pointer ? " *" : "", hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
		return kernel_plan_err_at(kp, a->line, e);
	}
	/* A typedef or a struct: CarSh cannot tell what it is (a struct's typedef may have
	 * another name than the struct). A scalar or a vector is surely no struct. */
	if (type_parse(kpar->type.base, &t, &ignored_err) != 0)
		return 0;
	if (!a->record && t.scalar == a->type.scalar && t.width == a->type.width)
		return 0;
	err_set(e, "<%s name=\"%s\">: %s, but kernel '%s' argument %zu is %s%s",
	        arg_kind_name(a->kind), a->name, arg_type_text(a, tn, sizeof(tn)), kp->kernel, i,
	        kpar->type.base, pointer ? " *" : "");
	return kernel_plan_err_at(kp, a->line, e);
}

static void warn_no_info(const struct rt_devinfo *dev)
{
	static atomic_flag warned = ATOMIC_FLAG_INIT;

	/* Library code does not print, but this is no error: the run goes on. */
	if (!atomic_flag_test_and_set(&warned))
		fprintf(stderr,
		        "carsh: warning: device '%s' keeps no kernel argument information: "
		        "argument types are not checked against the kernels\n",
		        dev->name);
}

static cl_int read_param(cl_kernel k, cl_uint i, struct kparam *out)
{
	char name[256];
	cl_int err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(out->space),
	                                &out->space, NULL);

	if (err == CL_SUCCESS)
		err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(out->access),
		                         &out->access, NULL);
	if (err == CL_SUCCESS)
		err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(name), name, NULL);
	if (err == CL_SUCCESS) {
		name[sizeof(name) - 1] = '\0';
		arg_type_normalise(name, &out->type);
	}
	return err;
}

static int check_count(cl_kernel k, const struct kernel_plan *kp, struct cs_err *e)
{
	cl_uint nargs;
	cl_int err = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL);

	if (err != CL_SUCCESS)
		return err_set(e, "kernel '%s': clGetKernelInfo failed: %s", kp->kernel,
		               rt_cl_error_name(err));
	if (nargs == kp->nargs)
		return 0;
	err_set(e, "kernel '%s' in %s takes %u arguments; the flow-model gives %zu", kp->kernel,
	        kp->source_name, (unsigned)nargs, kp->nargs);
	return kernel_plan_err_at(kp, kp->args_line ? kp->args_line : kp->kernel_line, e);
}

int rt_kernel_check(cl_kernel k, const struct rt_devinfo *dev, const struct kernel_plan *kp,
                    struct cs_err *e)
{
	if (check_count(k, kp, e))
		return -1;
	for (size_t i = 0; i < kp->nargs; i++) {
		struct kparam kpar;
		cl_int err = read_param(k, (cl_uint)i, &kpar);

		if (err == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) {
			warn_no_info(dev);
			return 0;
		}
		if (err != CL_SUCCESS)
			return err_set(e, "kernel '%s': clGetKernelArgInfo(%zu) failed: %s",
			               kp->kernel, i, rt_cl_error_name(err));
		if (compare(kp, i, &kpar, e))
			return -1;
	}
	return 0;
}
