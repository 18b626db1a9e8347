// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"

#define BUCKETS (1u << 16)

static size_t bucket_of(const struct mb_profile *p, uint64_t vaddr, unsigned int insns)
{
	return ((vaddr >> 2) ^ (vaddr >> 18) ^ insns) & (p->nbuckets - 1);
}

int mb_profile_init(struct mb_profile *p)
{
	p->nbuckets = BUCKETS;
	p->buckets = calloc(p->nbuckets, sizeof(*p->buckets));
	return p->buckets ? 0 : -1;
}

void mb_profile_free(struct mb_profile *p)
{
	for (size_t b = 0; p->buckets && b < p->nbuckets; b++)
		for (struct mb_site *s = p->buckets[b], *next; s; s = next) {
			next = s->next;
			free(s);
		}
	free(p->buckets);
	memset(p, 0, sizeof(*p));
}

struct mb_site *mb_profile_site(struct mb_profile *p, uint64_t vaddr, unsigned int insns)
{
	struct mb_site **head = &p->buckets[bucket_of(p, vaddr, insns)], *s;

	for (s = *head; s; s = s->next)
		if (s->vaddr == vaddr && s->insns == insns)
			return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->vaddr = vaddr;
	s->insns = insns;
	s->next = *head;
	*head = s;
	return s;
}

void mb_profile_reset(struct mb_profile *p)
{
	for (size_t b = 0; b < p->nbuckets; b++)
		for (struct mb_site *s = p->buckets[b]; s; s = s->next)
			memset(&s->counts, 0, sizeof(s->counts));
}

void mb_profile_write(const struct mb_profile *p, const struct mb_windows *w, unsigned int run)
{
	for (size_t b = 0; b < p->nbuckets; b++)
		for (const struct mb_site *s = p->buckets[b]; s; s = s->next) {
			const struct mb_counts *c = &s->counts;

			if (!c->insns && !c->accesses)
				continue;
			fprintf(w->out, "site run=%u vaddr=0x%" PRIx64 " ", run, s->vaddr);
			mb_counts_write(w, w->out, c);
			fputc('\n', w->out);
		}
	fflush(w->out);
}

void mb_profile_mark(struct mb_profile *p, const struct mb_windows *w, enum mb_mark mark,
		     bool open)
{
	if (mark == MB_MARK_BEGIN || (open && mark == MB_MARK_MEASURED))
		mb_profile_reset(p);
	else if (open && mark == MB_MARK_END)
		mb_profile_write(p, w, w->run);
}
