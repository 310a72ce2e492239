/* SPDX-License-Identifier: MIT */
/*
 * A small seeded pseudo-random generator (xoshiro256** seeded through
 * splitmix64) shared by tests and regionbench, so every randomized run is
 * reproducible from the seed it prints.
 */
#ifndef RG_RAND_H
#define RG_RAND_H

#include <stdint.h>

struct rg_rand {
	uint64_t s[4];
};

static inline uint64_t rgi_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rg_rand_seed(struct rg_rand *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = rgi_splitmix64(&seed);
}

static inline uint64_t rgi_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rg_rand_next(struct rg_rand *r)
{
	uint64_t *s = r->s;
	uint64_t result = rgi_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rgi_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias is negligible). */
static inline uint64_t rg_rand_below(struct rg_rand *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rg_rand_next(r) * n) >> 64);
}

/* Uniform in [lo, hi], lo <= hi. */
static inline uint64_t rg_rand_range(struct rg_rand *r, uint64_t lo,
				     uint64_t hi)
{
	if (hi - lo == UINT64_MAX)
		return rg_rand_next(r);
	return lo + rg_rand_below(r, hi - lo + 1);
}

/* Shuffle v[0..n) in place (Fisher-Yates). */
static inline void rg_rand_shuffle(struct rg_rand *r, unsigned long *v,
				   unsigned long n)
{
	for (unsigned long i = n; i > 1; i--) {
		unsigned long j = (unsigned long)rg_rand_below(r, i);
		unsigned long t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

#endif /* RG_RAND_H */
