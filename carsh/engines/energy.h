/*
 * Energy counters for the partition and pipeline engines, read where the machine has them: the
 * GPU's from NVML (libnvidia-ml.so.1, loaded with dlopen at run time:
 * nvmlDeviceGetTotalEnergyConsumption, millijoules since the driver loaded; loaded once and kept
 * for the process), the CPU packages' from the Linux powercap interface
 * (/sys/class/powercap/intel-rapl:N/energy_uj) when it is readable. Either may be absent;
 * each says why in its note.
 */
#ifndef CARSH_ENGINES_ENERGY_H
#define CARSH_ENGINES_ENERGY_H

#include <stdbool.h>
#include <stddef.h>

struct energy_meter;

struct energy_reading {
	bool gpu_ok;
	double gpu_j;
	char gpu_note[160]; /* "NVML: " and the GPU's name, or why there is no reading */
	bool cpu_ok;
	double cpu_j;
	char cpu_note[160];
};

/* gpu_name: the OpenCL name of the GPU taking part (NULL when none does), to pick the NVML
 * device when there are several. Never fails: what cannot be read is noted. */
struct energy_meter *energy_open(const char *gpu_name);
void energy_start(struct energy_meter *m);
/* The energy since energy_start. */
void energy_stop(struct energy_meter *m, struct energy_reading *out);
void energy_close(struct energy_meter *m);

/* The power budget of what the meter reads, watts: the RAPL packages' long-term limits
 * (constraint_0_power_limit_uw) plus, with gpu, NVML's enforced power limit of the GPU it
 * reads (nvmlDeviceGetEnforcedPowerLimit); 0 when a part is unknown. note says where the
 * figure came from, or what is missing. */
double energy_power_limit(const struct energy_meter *m, bool gpu, char *note, size_t len);

#endif
