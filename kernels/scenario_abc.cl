/*
 * Scenario-based execution written by hand (004 §5.3.1, Figures 45 and 46): three kernel
 * programs A, B and C, each reading streams a, b, c, p and writing d, e, f and its own q,
 * packed into one kernel that a <Swap> runs once per entry of the scenario.
 *
 * The swap pairs are (a, d), (b, e), (c, f) -- the streams that connect one kernel program
 * to the next -- and (index, index_next), the scenario index. Each run reads the scenario
 * entry scenario[index[0]] (0 = A, 1 = B, 2 = C), runs that program with a switch, and
 * work-item 0 writes index_next = index + 1, so the next run takes the next entry. p is
 * read by every program and Aq, Bq, Cq are written only by their own program; they are in
 * no pair, so each keeps what its program wrote last.
 *
 * Every program writes all of d, e and f (the pairs' outputs): with `swap` an output buffer
 * holds the data of two runs ago, so an element left unwritten would differ between swap
 * methods. An entry that is not 0, 1 or 2, or an index past the scenario's m entries, passes
 * a, b, c through unchanged.
 *
 * The programs are arbitrary integer functions (unsigned, so overflow wraps) that make every
 * stream depend on the order of the runs; tests/tools/swapref.c computes the same.
 */
enum { PROGRAM_A = 0, PROGRAM_B = 1, PROGRAM_C = 2 };

__kernel void scenario_abc(__global const int *scenario, __global const int *index,
			   __global const uint *a, __global const uint *b, __global const uint *c,
			   __global const uint *p, __global uint *d, __global uint *e,
			   __global uint *f, __global uint *Aq, __global uint *Bq,
			   __global uint *Cq, __global int *index_next, const int m)
{
	const size_t pid = get_global_id(0);
	const int at = index[0];
	const int program = at >= 0 && at < m ? scenario[at] : -1;
	const uint va = a[pid], vb = b[pid], vc = c[pid], vp = p[pid];

	switch (program) {
	case PROGRAM_A: /* kernel program A */
		d[pid] = va + vb;
		e[pid] = vb ^ vc;
		f[pid] = vc + vp;
		Aq[pid] = va * vb;
		break;
	case PROGRAM_B: /* kernel program B */
		d[pid] = va * 3u + vp;
		e[pid] = va + vc;
		f[pid] = vb - vc;
		Bq[pid] = (va * 3u + vp) ^ (va + vc);
		break;
	case PROGRAM_C: /* kernel program C */
		d[pid] = va ^ vp;
		e[pid] = vb * vc + 1u;
		f[pid] = va + vb + vc;
		Cq[pid] = (va + vb + vc) * 7u;
		break;
	default:
		d[pid] = va;
		e[pid] = vb;
		f[pid] = vc;
		break;
	}
	if (pid == 0) /* processor 0 only advances the index */
		index_next[0] = at + 1;
}
