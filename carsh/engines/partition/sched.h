/*
 * Chunk schedulers of the partition engine (003 §3-5): the iteration space [0, items) of one
 * time step is split lazily into chunks that idle devices ask for. Devices 0 .. ncpu-1 are
 * CPU cores; devices ncpu .. ncpu+ngpu-1, when cfg.gpu is set, are the GPUs (or devices standing
 * in for them; one GPU unless sched_new_gpus says more).
 * A scheduler only decides sizes: it knows nothing of OpenCL, so it can be driven by the
 * engine's device threads or by a simulation (tests/unit/test_partition.c). It is not
 * thread-safe: the engine calls it under one lock.
 *
 *   logfit   003 §4: four GPU samples nEU·2^(k-1), a least-squares fit of a·ln(x)+b, GPU chunk
 *            a/thld with the fourth sample replaced by the last chunk, CPU chunks G·λC/λG;
 *            samples and throughputs kept from one time step to the next
 *   static   003 §5.1: one GPU chunk of gpu_share of the space, the rest to the CPU cores
 *   concord  003 §5.1: a fixed GPU chunk while the cores pick chunks (profiling), re-profiled
 *            until the relative speed is stable or half the space is done, then one split of
 *            the rest by relative speed; the relative speed is kept across time steps
 *   hdss     003 §5.1: training with growing chunks and a log fit until the relative speed
 *            changes by less than 1 % or 20 % of the space is done, then weighted guided
 *            self-scheduling; nothing kept across time steps
 *   cpu, gpu the CPU cores alone, the GPU alone
 *   marrow   001 §3.2-3.3: one split per step (the GPU's share at offset 0, the cores the
 *            rest); a binary search moves it toward the device that finished first by half
 *            the previous move until both finish within a tolerance, and searches again
 *            when a step's finish times drift apart
 *
 * logfit also sits a core out of a step when its smallest chunk could only make the GPU
 * wait, and probes it again with one granule in the next step (not in 003; see
 * docs/partition.md). A known profile (sched_prime, from engines/partition/kb.h) starts
 * logfit from the learnt throughputs and share instead of sampling, and marrow from the
 * learnt split.
 *
 * With several GPUs (docs/partition.md, "Several GPUs") logfit keeps a sample set and a fit
 * per GPU and sizes a core's chunk against the GPUs' throughputs; static splits its GPU share
 * among the GPUs by compute units; gpu, marrow and concord split the GPUs' part by the
 * throughputs they measured (by compute units before there are any); hdss treats the GPUs
 * as one pool of equal devices.
 *
 * docs/partition.md says what was chosen where 003 leaves a detail open.
 */
#ifndef CARSH_ENGINES_PARTITION_SCHED_H
#define CARSH_ENGINES_PARTITION_SCHED_H

#include <stdbool.h>
#include <stddef.h>

enum sched_kind {
	SCHED_LOGFIT,
	SCHED_STATIC,
	SCHED_CONCORD,
	SCHED_HDSS,
	SCHED_CPU,
	SCHED_GPU,
	SCHED_MARROW
};

/* What a chunk was for, as the trace shows it. */
enum sched_phase {
	PHASE_SAMPLE,  /* logfit: one of the four initial GPU samples */
	PHASE_FIT,     /* logfit: sized by the fit (GPU) or by G·λC/λG (CPU) */
	PHASE_STATIC,  /* static: the GPU's one chunk, or the CPU cores' share */
	PHASE_PROFILE, /* concord: profiling */
	PHASE_SPLIT,   /* concord: after the split by relative speed */
	PHASE_TRAIN,   /* hdss: training */
	PHASE_GUIDED,  /* hdss: weighted guided self-scheduling; cpu: guided self-scheduling */
	PHASE_ALONE,   /* gpu: the whole space */
	PHASE_PROBE,   /* logfit: a core's one-granule probe of its throughput */
	PHASE_BALANCE, /* marrow: the split of this step */
	PHASE_TAIL, /* logfit: the GPU's share of the end of a step, sized to end with the cores */
};

struct sched_cfg {
	enum sched_kind kind;
	size_t items;     /* work-items in one time step, a multiple of granule */
	size_t granule;   /* chunk sizes are multiples of it (the flow-model's local size) */
	unsigned ncpu;    /* CPU cores taking part */
	bool gpu;         /* a GPU takes part, as device ncpu */
	unsigned neu;     /* its compute units (nEU, 003 §4 footnote 2) */
	double gpu_share; /* static: the GPU's fraction of the space, 0 to 1 */
	double thld;      /* logfit and hdss: the slope threshold (LOGFIT_THLD) */
	bool gpu_is_core; /* the GPU is a core standing in for one: its chunks are a core's
	                     times in the cost map (sched-map.c) */
};

struct sched_chunk {
	size_t offset;
	size_t size;
	enum sched_phase phase;
};

enum sched_answer { SCHED_CHUNK, SCHED_WAIT, SCHED_DONE };

struct sched;

/* NULL with a reason in why (a static string) when the configuration cannot run: no
 * device, or the gpu scheduler without a GPU. */
struct sched *sched_new(const struct sched_cfg *cfg, const char **why);
/* The same with ngpu GPUs when cfg->gpu is set (devices ncpu .. ncpu+ngpu-1; 0 counts as 1),
 * neus[i] the compute units of GPU i (NULL: cfg->neu for every one). */
struct sched *sched_new_gpus(const struct sched_cfg *cfg, unsigned ngpu, const unsigned *neus,
                             const char **why);
void sched_free(struct sched *s);

/* A new time step: the whole space is to be done again. */
void sched_step_begin(struct sched *s);

/* The next chunk for device dev. SCHED_WAIT: nothing now, ask again after another device's
 * sched_done; SCHED_DONE: nothing more for this device in this step. */
enum sched_answer sched_next(struct sched *s, unsigned dev, struct sched_chunk *out);

/* Device dev spent ms writing its copy streams in this step before it asked for a chunk:
 * LogFit counts them in its first chunk after the samples. */
void sched_copied(struct sched *s, unsigned dev, double ms);

/* Of the chunk device dev finishes next (sched_done), ms went to no command of it: the launch,
 * the wake-ups, the wait for its end. LogFit and Marrow keep a core's chunks large enough to
 * amortise it. */
void sched_fixed(struct sched *s, unsigned dev, double ms);
/* Whether the scheduler uses the fixed costs (the others need not measure them). */
bool sched_learns_fixed(const struct sched *s);

/* Device dev finished chunk c in ms milliseconds (host time, transfers included: 003 §4
 * footnote 1). */
void sched_done(struct sched *s, unsigned dev, const struct sched_chunk *c, double ms);

/* The step is over (every device is done): marrow compares the devices' finish times. */
void sched_step_end(struct sched *s);

/* What a knowledge base keeps of a flow-model on a device set at a problem size
 * (engines/partition/kb.h): the GPU's share of the space and the throughputs, items/ms. With
 * several GPUs: their share together and the sum of their throughputs. */
struct sched_prior {
	double share; /* 0 to 1 */
	double lgpu;  /* the GPU's (the GPUs' together) */
	double lcpu;  /* one core's */
};

/* Start from a known profile, before the first step (logfit and marrow; others ignore it). */
void sched_prime(struct sched *s, const struct sched_prior *p);

/* What this run learnt, for the knowledge base: false when the scheduler learns nothing
 * (not logfit or marrow) or nothing was measured. */
bool sched_profile(const struct sched *s, struct sched_prior *p);

/* The cores' cost map (LogFit and Marrow; sched-map.c) in n regions of the space, each a
 * core's ms an item: one known to start from (a region < 0: unknown), and what this run
 * learnt (false: no map, or a region no core measured). */
void sched_prime_map(struct sched *s, const double *map, unsigned n);
/* Chunks of n items have run before (on PoCL, n: the widest launch of the kernel in the
 * process): the map's chunks may be as wide (sched_map_cap). */
void sched_widest_known(struct sched *s, size_t n);
bool sched_profile_map(const struct sched *s, double *map, unsigned n);

/* Whether dev can get any work in this step (static with a share of 0 or 100 % leaves a
 * device idle: the engine then sends it no data). */
bool sched_uses(const struct sched *s, unsigned dev);

/* Items handed out in this step (equal to items once the step is done). */
size_t sched_assigned(const struct sched *s);

/* The scheduler that runs: the one asked for, or SCHED_CPU for a heterogeneous one when there
 * is no GPU. */
enum sched_kind sched_running(const struct sched *s);

/* For the summary: logfit's current fit and recommended GPU chunk (false when there is
 * none yet), concord's GPU fraction and hdss's relative speed (0 when none). */
bool sched_logfit_state(const struct sched *s, double *a, double *b, double *gpu_chunk);
/* The same for GPU gpu (0 .. ngpu-1): logfit keeps a fit per GPU. */
bool sched_logfit_state_of(const struct sched *s, unsigned gpu, double *a, double *b,
                           double *gpu_chunk);
double sched_gpu_fraction(const struct sched *s);
/* LogFit and Marrow: the cores' mean fixed cost a chunk over the run, and the smallest chunk
 * it allows (items); false where none was learnt. */
bool sched_core_cost(const struct sched *s, double *fixed_ms, double *min_chunk);
double sched_relative_speed(const struct sched *s);

const char *sched_name(enum sched_kind k);
int sched_parse(const char *name, enum sched_kind *k);
const char *sched_phase_name(enum sched_phase p);

#endif
