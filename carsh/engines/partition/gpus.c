#include "engines/partition/gpus.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/subdev.h"
#include "util/alloc.h"

static bool alone_word(const char *s, size_t len)
{
	static const char *const words[] = {"auto", "all", "none"};

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == len && strncmp(s, words[i], len) == 0)
			return true;
	return false;
}

int part_gpu_sel_check(const char *sel, struct cs_err *e)
{
	const char *p = sel;

	if (!sel || !strchr(sel, ','))
		return 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (len == 0)
			return err_set(e, "--gpu '%s': an empty selector in the list", sel);
		if (alone_word(p, len))
			return err_set(e,
			               "--gpu '%s': auto, all and none stand alone, not in a list",
			               sel);
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static int add(struct part_devices *ch, const struct rt_devinfo *d, struct cs_err *e)
{
	for (unsigned i = 0; i < ch->ngpu; i++)
		if (ch->gpu[i] == d)
			return err_set(e, "--gpu: device %d ('%s') is named twice", d->index,
			               d->name);
	if (ch->ngpu == PART_MAX_GPUS)
		return err_set(e, "--gpu: more than %d GPUs", PART_MAX_GPUS);
	ch->gpu[ch->ngpu++] = d;
	return 0;
}

/* Every device of the given types, in the order `devices` lists them. */
static int add_type(struct part_devices *ch, const struct rt_devinfo *devs, size_t n,
                    cl_device_type types, struct cs_err *e)
{
	for (size_t i = 0; i < n; i++)
		if ((devs[i].type & types) && add(ch, &devs[i], e))
			return -1;
	return 0;
}

/* One selector of a list: the stand-in, or a device. */
static int add_one(struct part_devices *ch, const struct rt_devinfo *devs, size_t n,
                   const char *sel, struct cs_err *e)
{
	const struct rt_devinfo *gpu;
	bool standin;

	if (rt_device_choose_gpu(devs, n, ch->cpu, sel, &gpu, &standin, e))
		return -1;
	if (standin && ch->standin)
		return err_set(e, "--gpu: a CPU core stands in once ('%s' is named twice)", sel);
	if (standin) {
		/* The stand-in is gpu0: its place among the cores' sub-devices is fixed. */
		memmove(&ch->gpu[1], &ch->gpu[0], ch->ngpu * sizeof(ch->gpu[0]));
		if (ch->ngpu == PART_MAX_GPUS)
			return err_set(e, "--gpu: more than %d GPUs", PART_MAX_GPUS);
		ch->gpu[0] = NULL;
		ch->ngpu++;
		ch->standin = true;
		return 0;
	}
	return gpu ? add(ch, gpu, e) : 0;
}

static int choose_list(struct part_devices *ch, const struct rt_devinfo *devs, size_t n,
                       const char *sel, struct cs_err *e)
{
	char *copy = xstrdup(sel), *save = NULL;
	int rc = 0;

	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save))
		rc = add_one(ch, devs, n, t, e);
	free(copy);
	return rc;
}

int part_choose_devices(const struct rt_devinfo *devs, size_t n, const char *sel,
                        struct part_devices *ch, struct cs_err *e)
{
	memset(ch, 0, sizeof(*ch));
	ch->cpu = rt_device_first(devs, n, CL_DEVICE_TYPE_CPU);
	if (ch->cpu)
		ch->cores = rt_subdevs_max(ch->cpu);
	if (part_gpu_sel_check(sel, e))
		return -1;
	if (!sel || strcmp(sel, "auto") == 0) {
		if (add_type(ch, devs, n, CL_DEVICE_TYPE_GPU, e))
			return -1;
		if (ch->ngpu == 0 && add_type(ch, devs, n, CL_DEVICE_TYPE_ACCELERATOR, e))
			return -1;
	} else if (strcmp(sel, "all") == 0) {
		if (add_type(ch, devs, n, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR, e))
			return -1;
	} else if (choose_list(ch, devs, n, sel, e)) {
		return -1;
	}
	if (ch->standin && (!ch->cpu || ch->cores < 2))
		return err_set(e, "--gpu cpu: a CPU core can stand in for the GPU only on a CPU "
		                  "device with two cores or more");
	if (ch->standin)
		ch->cores--;
	return 0;
}
