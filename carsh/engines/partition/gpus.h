/*
 * Which devices the partition engine drives (docs/partition.md, "Several GPUs"): the CPU
 * device it splits into cores, and its GPUs as `--gpu` names them: "auto" (the default: every
 * GPU, else every accelerator), "all" (every GPU and accelerator), "none", "cpu" (a core of
 * the CPU stands in for a GPU), or selectors separated by commas, each as <Device select>
 * takes it (INDEX, type, name substring; the CPU device itself also means the stand-in).
 */
#ifndef CARSH_ENGINES_PARTITION_GPUS_H
#define CARSH_ENGINES_PARTITION_GPUS_H

#include <stdbool.h>

#include "runtime/runtime.h"
#include "util/error.h"

#define PART_MAX_GPUS 16

struct part_devices {
	const struct rt_devinfo *cpu; /* the CPU device to split, or NULL */
	unsigned cores;               /* how many single-core sub-devices it gives */
	/* The GPUs in the order they are driven (gpu0, gpu1, ...): a core standing in comes
	 * first (gpu[0] is then NULL), then the devices in the order named. */
	const struct rt_devinfo *gpu[PART_MAX_GPUS];
	unsigned ngpu; /* a stand-in counted */
	bool standin;
};

/* Choose as sel says (NULL: "auto"). Errors: "--gpu: no OpenCL device matches 'SEL'; ...",
 * "--gpu: device N ('NAME') is named twice", "--gpu: more than 16 GPUs", and the stand-in's
 * "--gpu cpu: a CPU core can stand in for the GPU only on a CPU device with two cores or
 * more". */
int part_choose_devices(const struct rt_devinfo *devs, size_t n, const char *sel,
                        struct part_devices *ch, struct cs_err *e);

/* Whether sel is well-formed, before any device is known: auto, all and none stand alone,
 * and a list has no empty item. Error "--gpu 'SEL': ...". */
int part_gpu_sel_check(const char *sel, struct cs_err *e);

#endif
