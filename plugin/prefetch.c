// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "prefetch.h"

#define PAGE_SHIFT 12
#define STREAMS 16		/* pages a vCPU follows at once */
#define STRIDES 256		/* instructions a vCPU follows at once */
#define STRIDE_MAX 2048
#define STRIDE_SEEN 1		/* repeats of one stride before it fetches */
#define PENDING 64		/* prefetched lines a vCPU remembers, by line */

struct stream {
	uint64_t page;		/* + 1, 0: empty */
	uint64_t line;		/* the page's last line accessed */
	int step;		/* +1 or -1: the last step, 0: none */
};

struct stride {
	uint64_t pc;		/* 0: empty */
	uint64_t vaddr;
	int64_t stride;
	unsigned int seen;
};

struct pending {
	uint64_t line;		/* + 1, 0: empty */
	uint64_t ready;		/* the vCPU's instructions when it arrives */
	enum mb_level from;
};

struct mb_prefetch {
	struct mb_prefetch_geometry g;
	int ncpus;
	unsigned int line_shift;
	struct stream *streams;	/* [cpu * STREAMS + page % STREAMS] */
	struct stride *strides;	/* [cpu * STRIDES + pc % STRIDES] */
	struct pending *pending;	/* [cpu * PENDING + line % PENDING] */
};

struct mb_prefetch *mb_prefetch_new(const struct mb_prefetch_geometry *g, int ncpus,
				    unsigned int line_shift)
{
	struct mb_prefetch *p;

	if (g->stream > MB_PREFETCH_STREAM_MAX || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->g = *g;
	p->ncpus = ncpus;
	p->line_shift = line_shift;
	p->streams = calloc((size_t)ncpus * STREAMS, sizeof(*p->streams));
	p->strides = calloc((size_t)ncpus * STRIDES, sizeof(*p->strides));
	p->pending = calloc((size_t)ncpus * PENDING, sizeof(*p->pending));
	if (p->streams && p->strides && p->pending)
		return p;
	mb_prefetch_free(p);
	return NULL;
}

void mb_prefetch_free(struct mb_prefetch *p)
{
	if (!p)
		return;
	free(p->streams);
	free(p->strides);
	free(p->pending);
	free(p);
}

void mb_prefetch_flush(struct mb_prefetch *p)
{
	memset(p->streams, 0, (size_t)p->ncpus * STREAMS * sizeof(*p->streams));
	memset(p->strides, 0, (size_t)p->ncpus * STRIDES * sizeof(*p->strides));
	memset(p->pending, 0, (size_t)p->ncpus * PENDING * sizeof(*p->pending));
}

static bool same_page(uint64_t a, uint64_t b)
{
	return a >> PAGE_SHIFT == b >> PAGE_SHIFT;
}

/* A second step of one line in one direction fetches the lines after it. */
static unsigned int stream_train(struct mb_prefetch *p, int cpu, uint64_t paddr,
				 struct mb_prefetch_request *out)
{
	uint64_t page = paddr >> PAGE_SHIFT, line = paddr >> p->line_shift;
	struct stream *s = &p->streams[(size_t)cpu * STREAMS + page % STREAMS];
	int64_t step = (int64_t)(line - s->line);
	unsigned int n = 0;

	if (s->page != page + 1) {
		*s = (struct stream){ page + 1, line, 0 };
		return 0;
	}
	if (!step)
		return 0;
	if ((step == 1 || step == -1) && step == s->step)
		for (unsigned int i = 1; i <= p->g.stream; i++) {
			uint64_t ahead = (line + step * (int64_t)i) << p->line_shift;

			if (!same_page(ahead, paddr))
				break;
			out[n++] = (struct mb_prefetch_request){ ahead, MB_L1D };
		}
	s->step = step == 1 || step == -1 ? (int)step : 0;
	s->line = line;
	return n;
}

/* An instruction's stride seen STRIDE_SEEN times fetches one stride ahead. */
static unsigned int stride_train(struct mb_prefetch *p, int cpu, uint64_t pc, uint64_t vaddr,
				 uint64_t paddr, struct mb_prefetch_request *out)
{
	struct stride *s = &p->strides[(size_t)cpu * STRIDES + pc % STRIDES];
	int64_t stride = (int64_t)(vaddr - s->vaddr);
	uint64_t ahead = paddr + stride;

	if (s->pc != pc) {
		*s = (struct stride){ pc, vaddr, 0, 0 };
		return 0;
	}
	s->seen = stride && stride == s->stride ? s->seen + 1 : 0;
	s->stride = stride;
	s->vaddr = vaddr;
	if (s->seen < STRIDE_SEEN || stride > STRIDE_MAX || stride < -STRIDE_MAX ||
	    !same_page(ahead, paddr) || ahead >> p->line_shift == paddr >> p->line_shift)
		return 0;
	out[0] = (struct mb_prefetch_request){ ahead, MB_L1D };
	return 1;
}

unsigned int mb_prefetch_train(struct mb_prefetch *p, int cpu, uint64_t pc, uint64_t vaddr,
			       uint64_t paddr, enum mb_level hit,
			       struct mb_prefetch_request *out)
{
	unsigned int n = 0;

	if (p->g.stream)
		n += stream_train(p, cpu, paddr, out + n);
	if (p->g.stride && pc)
		n += stride_train(p, cpu, pc, vaddr, paddr, out + n);
	if (p->g.adjacent && hit > MB_L2)
		out[n++] = (struct mb_prefetch_request){
			paddr ^ (1ull << p->line_shift), MB_L2 };
	return n;
}

static struct pending *pending_of(const struct mb_prefetch *p, int cpu, uint64_t paddr)
{
	uint64_t line = paddr >> p->line_shift;

	return &p->pending[(size_t)cpu * PENDING + line % PENDING];
}

void mb_prefetch_sent(struct mb_prefetch *p, int cpu, uint64_t paddr, enum mb_level from,
		      uint64_t insns)
{
	*pending_of(p, cpu, paddr) = (struct pending){ (paddr >> p->line_shift) + 1,
						       insns + p->g.wait[from], from };
}

bool mb_prefetch_pending(const struct mb_prefetch *p, int cpu, uint64_t paddr)
{
	return pending_of(p, cpu, paddr)->line == (paddr >> p->line_shift) + 1;
}

enum mb_level mb_prefetch_use(struct mb_prefetch *p, int cpu, uint64_t paddr, uint64_t insns)
{
	struct pending *e = pending_of(p, cpu, paddr);
	enum mb_level wait = MB_L1D;

	if (e->line == (paddr >> p->line_shift) + 1 && insns < e->ready)
		wait = e->from;
	e->line = 0;
	return wait;
}
