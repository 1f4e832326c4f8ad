#include "runtime/plan.h"

#include <stdlib.h>
#include <string.h>

/* The plan itself may live on the stack or inside a job: free its contents and leave it
 * zeroed, so a second call is harmless. */
void kernel_plan_free(struct kernel_plan *kp)
{
	if (!kp)
		return;
	free(kp->label);
	if (kp->source_kept && kp->options_owned)
		free(kp->build_options);
	if (!kp->source_kept) {
		free(kp->source);
		free(kp->source_name);
		free(kp->kernel);
		free(kp->build_options);
		free(kp->includes);
		free(kp->fm_file);
		for (size_t i = 0; i < kp->nargs; i++) {
			free(kp->args[i].name);
			free(kp->args[i].count_expr);
		}
	}
	for (size_t i = 0; i < kp->nargs; i++) {
		record_free(kp->args[i].record);
		free(kp->args[i].record);
	}
	free(kp->args);
	free(kp->pairs);
	free(kp->device_exe);
	free(kp->device_cli);
	free(kp->device_fm);
	memset(kp, 0, sizeof(*kp));
}

bool arg_is_stream(enum arg_kind k)
{
	return arg_is_read(k) || arg_is_written(k);
}

bool arg_is_read(enum arg_kind k)
{
	return k == ARG_INPUT || k == ARG_INOUT;
}

bool arg_is_written(enum arg_kind k)
{
	return k == ARG_OUTPUT || k == ARG_INOUT;
}

const char *arg_kind_name(enum arg_kind k)
{
	switch (k) {
	case ARG_INPUT:
		return "Input";
	case ARG_OUTPUT:
		return "Output";
	case ARG_INOUT:
		return "InOut";
	case ARG_CONSTANT:
		return "Constant";
	case ARG_LOCAL:
		return "Local";
	}
	return "?";
}

int kernel_plan_refuse_images(const struct kernel_plan *kp, const char *engine, const char *way_out,
                              struct cs_err *e)
{
	for (size_t i = 0; i < kp->nargs; i++) {
		const struct kernel_arg *a = &kp->args[i];

		if (!a->image_dims && !a->is_sampler)
			continue;
		err_set(e, "<%s name=\"%s\">: %s moves plain buffers only, not %s; %s",
		        a->is_sampler ? "Sampler" : arg_kind_name(a->kind), a->name, engine,
		        a->is_sampler ? "samplers" : "images", way_out);
		return kernel_plan_err_at(kp, a->line, e);
	}
	return 0;
}

/* The spellings of <Swap method="..."> (DESIGN §3.3). */
const char *swap_method_name(enum swap_method m)
{
	switch (m) {
	case SWAP_SWAP:
		return "swap";
	case SWAP_COPY_DEVICE:
		return "copy-device";
	case SWAP_COPY_HOST:
		return "copy-host";
	}
	return "?";
}

int kernel_plan_err_at(const struct kernel_plan *kp, int line, struct cs_err *e)
{
	if (!kp->fm_file)
		return -1;
	if (line > 0)
		return err_prefix(e, "%s:%d: ", kp->fm_file, line);
	return err_prefix(e, "%s: ", kp->fm_file);
}

void kernel_plan_err_label(const struct kernel_plan *kp, struct cs_err *e)
{
	size_t n;

	if (!kp->label)
		return;
	n = strlen(kp->label);
	if (strncmp(e->msg, kp->label, n) == 0 && e->msg[n] == ':')
		return;
	err_prefix(e, "%s: ", kp->label);
}
