// SPDX-License-Identifier: GPL-2.0-only
/* Gap patterns and their generators (gaps.h). */
#include <math.h>
#include <string.h>

#include "gaps.h"
#include "units.h"

static int gap_list_parse(const char *s, struct hs_gap_pattern *p, struct hs_error *err)
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(s) >= sizeof(buf))
		return hs_error_set(err, HS_ERR_USAGE, "gap pattern too long");
	strcpy(buf, s);
	p->n = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (p->n == HS_GAP_MAX)
			return hs_error_set(err, HS_ERR_USAGE, "more than %d gaps in '%s'",
					    HS_GAP_MAX, s);
		if (hs_parse_duration_ns(tok, &p->ns[p->n]))
			return hs_error_set(err, HS_ERR_USAGE,
					    "bad gap '%s' (want e.g. 30us, 1.5ms)", tok);
		p->n++;
	}
	if (!p->n)
		return hs_error_set(err, HS_ERR_USAGE, "empty gap pattern");
	return 0;
}

int hs_gap_pattern_parse(const char *spec, struct hs_gap_pattern *p, struct hs_error *err)
{
	uint64_t seed = p->seed;

	memset(p, 0, sizeof(*p));
	p->seed = seed;
	if (!spec)
		return hs_error_set(err, HS_ERR_USAGE, "missing gap pattern");
	if (!strncmp(spec, "period:", 7)) {
		p->kind = HS_GAP_LIST;
		p->n = 1;
		if (hs_parse_duration_ns(spec + 7, &p->ns[0]))
			return hs_error_set(err, HS_ERR_USAGE, "bad period '%s'", spec + 7);
		return 0;
	}
	if (!strncmp(spec, "exp:", 4)) {
		p->kind = HS_GAP_EXP;
		p->n = 1;
		if (hs_parse_duration_ns(spec + 4, &p->ns[0]) || !p->ns[0])
			return hs_error_set(err, HS_ERR_USAGE, "bad exponential mean '%s'", spec + 4);
		return 0;
	}
	p->kind = HS_GAP_LIST;
	return gap_list_parse(spec, p, err);
}

/* splitmix64: small, seedable, and the same on every platform. */
static uint64_t gap_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void hs_gap_gen_init(struct hs_gap_gen *g, const struct hs_gap_pattern *p, unsigned int stream)
{
	g->p = p;
	g->i = 0;
	g->rng = p->seed * 0x100000001b3ull + stream;
	g->seq = NULL;
	g->nseq = 0;
}

void hs_gap_gen_init_seq(struct hs_gap_gen *g, const uint64_t *seq, uint64_t n)
{
	memset(g, 0, sizeof(*g));
	g->seq = seq;
	g->nseq = n;
}

uint64_t hs_gap_gen_next(struct hs_gap_gen *g)
{
	const struct hs_gap_pattern *p = g->p;
	double u, x;

	if (g->seq)
		return g->nseq ? g->seq[g->i++ % g->nseq] : 0;
	if (p->kind == HS_GAP_LIST)
		return p->ns[g->i++ % p->n];
	g->i++;
	/* 53 random bits in [0, 1): log1p(-u) stays finite. */
	u = (double)(gap_rand(&g->rng) >> 11) / 9007199254740992.0;
	x = -(double)p->ns[0] * log1p(-u);
	return x >= 1e18 ? (uint64_t)1e18 : (uint64_t)x;
}
