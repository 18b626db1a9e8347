// SPDX-License-Identifier: GPL-2.0
/* Mixed prefix lengths for LPM tries: their shares, counts and keys. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include "log.h"
#include "prefixes.h"

static int parse_range(const char *s, struct prefix_mix *mix)
{
	int lo, hi, end = 0;

	if (sscanf(s, "%d..%d%n", &lo, &hi, &end) != 2 || s[end] || lo < 0 || hi < lo ||
	    hi > PREFIX_MIX_MAX)
		return -1;
	for (int len = lo; len <= hi; len++)
		mix->weight[len] = 1;
	return 0;
}

static int parse_weights(const char *s, struct prefix_mix *mix)
{
	for (const char *p = s; *p; ) {
		double w;
		int len, end = 0;

		if (sscanf(p, "%d:%lf%n", &len, &w, &end) != 2 || len < 0 || len > PREFIX_MIX_MAX ||
		    !(w > 0 && isfinite(w)) || mix->weight[len])
			return -1;
		mix->weight[len] = w;
		p += end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

int prefix_mix_parse(const char *s, struct prefix_mix *mix)
{
	double sum = 0;

	memset(mix, 0, sizeof(*mix));
	if (strstr(s, "..") ? parse_range(s, mix) : parse_weights(s, mix)) {
		mb_err("--prefix-len takes a length, LO..HI (every length between, equally) or "
		       "LEN:WEIGHT,... (lengths 0 to %d), not '%s'", PREFIX_MIX_MAX, s);
		return -1;
	}
	for (int len = 0; len <= PREFIX_MIX_MAX; len++)
		sum += mix->weight[len];
	for (int len = 0; len <= PREFIX_MIX_MAX; len++)
		mix->weight[len] /= sum;
	mix->mixed = true;
	return 0;
}

int prefix_mix_longest(const struct prefix_mix *mix)
{
	int longest = 0;

	for (int len = 0; len <= PREFIX_MIX_MAX; len++)
		if (mix->weight[len])
			longest = len;
	return longest;
}

void prefix_mix_counts(const struct prefix_mix *mix, long n, long count[PREFIX_MIX_MAX + 1])
{
	double frac[PREFIX_MIX_MAX + 1];
	long given = 0;

	for (int len = 0; len <= PREFIX_MIX_MAX; len++) {
		double want = n * mix->weight[len];

		count[len] = (long)floor(want);
		frac[len] = mix->weight[len] ? want - count[len] : -1;
		given += count[len];
	}
	for (; given < n; given++) {	/* largest remainder first */
		int best = 0;

		for (int len = 1; len <= PREFIX_MIX_MAX; len++)
			if (frac[len] > frac[best])
				best = len;
		count[best]++;
		frac[best] = -1;
	}
}

int prefix_mix_overfull(const struct prefix_mix *mix, long n)
{
	long count[PREFIX_MIX_MAX + 1];

	prefix_mix_counts(mix, n, count);
	for (int len = 0; len < 63; len++)
		if (count[len] > 1L << len)
			return len;
	return -1;
}

/* An odd multiplier permutes the integers mod 2^len: the k-th prefix of a
 * length is k x mult + off there, distinct for k < 2^len. */
static __u64 scatter(__u64 k, __u64 mult, __u64 off, int len)
{
	__u64 v = k * mult + off;

	return len ? v << (64 - len) : 0;
}

int prefix_table_make(struct prefix_table *t, const struct prefix_mix *mix, long n,
		      unsigned int seed)
{
	long count[PREFIX_MIX_MAX + 1], next[PREFIX_MIX_MAX + 1] = { 0 };
	__u64 mult[PREFIX_MIX_MAX + 1], off[PREFIX_MIX_MAX + 1];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	long at = 0;

	t->n = n;
	t->len = malloc(n ? n : 1);
	t->top = malloc((n ? n : 1) * sizeof(*t->top));
	if (!t->len || !t->top) {
		prefix_table_free(t);
		gsl_rng_free(rng);
		return -ENOMEM;
	}
	gsl_rng_set(rng, seed);
	prefix_mix_counts(mix, n, count);
	for (int len = 0; len <= PREFIX_MIX_MAX; len++) {
		mult[len] = (__u64)gsl_rng_get(rng) << 32 | gsl_rng_get(rng) | 1;
		off[len] = (__u64)gsl_rng_get(rng) << 32 | gsl_rng_get(rng);
		for (long i = 0; i < count[len]; i++)
			t->len[at++] = len;
	}
	gsl_ran_shuffle(rng, t->len, n, 1);
	for (long id = 0; id < n; id++) {
		int len = t->len[id];

		t->top[id] = scatter(next[len]++, mult[len], off[len], len);
	}
	gsl_rng_free(rng);
	return 0;
}

void prefix_table_free(struct prefix_table *t)
{
	free(t->len);
	free(t->top);
	t->len = NULL;
	t->top = NULL;
}

/* SplitMix64's finaliser: host bits that differ from id to id. */
static __u64 mix64(__u64 x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void prefix_key(const struct prefix_table *t, long id, int key_size, bool address, void *key)
{
	__u8 *data = (__u8 *)key + sizeof(__u32);
	int len = t->len[id];
	__u64 bits = t->top[id], host = mix64(id + 1);

	if (address && len < 64)
		bits |= host & (~0ULL >> len);
	*(__u32 *)key = address ? key_size * 8 : len;
	memset(data, 0, key_size);
	for (int b = 0; b < key_size; b++)	/* the address is big-endian, as the trie reads it */
		data[b] = b < 8 ? bits >> (56 - 8 * b) : address ? mix64(host + b) : 0;
}
