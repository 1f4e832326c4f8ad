/* Items in flight and where their buffers' data is (engines/pipeline/pipeitem.h). */
#include "engines/pipeline/pipeitem.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define HOST 1u

static unsigned space_bit(unsigned s)
{
	return 2u << s;
}

int pitem_pool_new(const struct pipe_plan *pp, size_t n, struct pitem_pool **out, struct cs_err *e)
{
	struct pitem_pool *p = xcalloc(1, sizeof(*p));

	*out = NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->tok = xcalloc(n, sizeof(*p->tok));
	p->free_list = xcalloc(n, sizeof(size_t));
	p->n = n;
	p->limit = n;
	for (size_t t = 0; t < n; t++) {
		struct pitem *it = &p->tok[t];

		it->nb = pp->nbufs;
		it->b = xcalloc(pp->nbufs, sizeof(*it->b));
		for (size_t i = 0; i < pp->nbufs; i++) {
			it->b[i].bytes = pp->bufs[i].bytes;
			it->b[i].host = data_alloc(1, pp->bufs[i].bytes, pp->bufs[i].name, e);
			if (!it->b[i].host) {
				pitem_pool_free(p);
				return err_prefix(e, "item buffer: ");
			}
		}
		p->free_list[p->nfree++] = n - 1 - t;
	}
	*out = p;
	return 0;
}

void pitem_pool_free(struct pitem_pool *p)
{
	if (!p)
		return;
	for (size_t t = 0; t < p->n; t++) {
		for (size_t i = 0; p->tok[t].b && i < p->tok[t].nb; i++) {
			for (unsigned s = 0; s < PITEM_SPACES; s++)
				if (p->tok[t].b[i].mem[s])
					(void)clReleaseMemObject(p->tok[t].b[i].mem[s]);
			free(p->tok[t].b[i].host);
		}
		free(p->tok[t].b);
	}
	free(p->tok);
	free(p->free_list);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

int pitem_pool_prepare(struct pitem_pool *p, const struct pipe_devs *dv, const struct pitem_q *q,
                       struct cs_err *e)
{
	static const cl_uint zero = 0;

	for (int d = 0; d < PD_NDOM; d++) {
		cl_command_queue cq;

		if ((d == PD_GPU && (!dv->has_gpu || dv->space[d] == dv->space[PD_CG])))
			continue;
		cq = q->queue(q->arg, dv->space[d]);
		for (size_t t = 0; t < p->n; t++)
			for (size_t i = 0; i < p->tok[t].nb; i++) {
				struct pitem_buf *b = &p->tok[t].b[i];
				cl_mem mem;
				cl_int err;

				if (pitem_ensure(dv, q, &p->tok[t], i, (enum pd_dom)d, false, &mem,
				                 e))
					return -1;
				/* Every buffer's size is a multiple of its element's, at least 1
				 * byte: fill with the largest pattern that divides it. */
				err = clEnqueueFillBuffer(cq, mem, &zero,
				                          b->bytes % 4 ? (b->bytes % 2 ? 1 : 2) : 4,
				                          0, b->bytes, 0, NULL, NULL);
				if (err != CL_SUCCESS)
					return err_set(e, "clearing an item buffer (%s) failed: %s",
					               pd_dom_name((enum pd_dom)d),
					               rt_cl_error_name(err));
			}
		if (clFinish(cq) != CL_SUCCESS)
			return err_set(e, "clearing the item buffers (%s) failed",
			               pd_dom_name((enum pd_dom)d));
	}
	return 0;
}

struct pitem *pitem_get(struct pitem_pool *p)
{
	struct pitem *it;

	pthread_mutex_lock(&p->lock);
	while (p->nfree == 0 || p->out >= p->limit)
		pthread_cond_wait(&p->cond, &p->lock);
	it = &p->tok[p->free_list[--p->nfree]];
	p->out++;
	pthread_mutex_unlock(&p->lock);
	return it;
}

void pitem_put(struct pitem_pool *p, struct pitem *it)
{
	pthread_mutex_lock(&p->lock);
	p->free_list[p->nfree++] = (size_t)(it - p->tok);
	p->out--;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

int pitem_to_host(const struct pipe_devs *dv, const struct pitem_q *q, struct pitem *it, size_t i,
                  struct cs_err *e)
{
	struct pitem_buf *b = &it->b[i];

	if (b->valid & HOST)
		return 0;
	for (unsigned s = 0; s < dv->nspace; s++) {
		cl_int err;

		if (!(b->valid & space_bit(s)))
			continue;
		err = clEnqueueReadBuffer(q->queue(q->arg, s), b->mem[s], CL_TRUE, 0, b->bytes,
		                          b->host, 0, NULL, NULL);
		if (err != CL_SUCCESS)
			return err_set(e, "reading an item buffer back to the host failed: %s",
			               rt_cl_error_name(err));
		b->valid |= HOST;
		return 0;
	}
	return err_set(e, "internal error: an item buffer has no current copy");
}

int pitem_ensure(const struct pipe_devs *dv, const struct pitem_q *q, struct pitem *it, size_t i,
                 enum pd_dom d, bool read, cl_mem *mem, struct cs_err *e)
{
	struct pitem_buf *b = &it->b[i];
	unsigned s = dv->space[d];
	cl_int err;

	if (!b->mem[s]) {
		b->mem[s] = clCreateBuffer(dv->ctx[d], CL_MEM_READ_WRITE, b->bytes, NULL, &err);
		if (err != CL_SUCCESS) {
			b->mem[s] = NULL;
			return err_set(
			        e, "an item buffer of %zu bytes (%s): clCreateBuffer failed: %s",
			        b->bytes, pd_dom_name(d), rt_cl_error_name(err));
		}
	}
	*mem = b->mem[s];
	if (!read || (b->valid & space_bit(s)) || !b->valid)
		return 0;
	if (pitem_to_host(dv, q, it, i, e))
		return -1;
	/* Not blocking: the kernel that reads it follows on the same in-order queue, and waiting
	 * here as well cost a PoCL core's thread one more wake-up per buffer. */
	err = clEnqueueWriteBuffer(q->domain(q->arg, d), b->mem[s], CL_FALSE, 0, b->bytes, b->host,
	                           0, NULL, NULL);
	if (err != CL_SUCCESS)
		return err_set(e, "writing an item buffer (%s) failed: %s", pd_dom_name(d),
		               rt_cl_error_name(err));
	b->valid |= space_bit(s);
	return 0;
}

void pitem_wrote(const struct pipe_devs *dv, struct pitem *it, size_t i, enum pd_dom d)
{
	it->b[i].valid = space_bit(dv->space[d]);
}

void pitem_reset(struct pitem *it, size_t index)
{
	it->index = index;
	for (size_t i = 0; i < it->nb; i++)
		it->b[i].valid = 0;
}

void pitem_host_wrote(struct pitem *it, size_t i)
{
	it->b[i].valid = HOST;
}
