/* Minimal checks for C unit tests: prints the "ok"/"not ok" lines tests/run.sh counts. */
#ifndef HS_CHECK_H
#define HS_CHECK_H
#include <stdint.h>
#include <stdio.h>

static int check_failures;

#define CHECK(cond, name) do {						\
	if (cond) printf("ok %s\n", name);				\
	else { printf("not ok %s: %s:%d: %s\n", name, __FILE__, __LINE__, #cond); check_failures++; } \
} while (0)

#define CHECK_EQ_U64(a, b, name) do {					\
	unsigned long long _a = (a), _b = (b);				\
	if (_a == _b) printf("ok %s\n", name);				\
	else { printf("not ok %s: %s:%d: %llu != %llu\n", name, __FILE__, __LINE__, _a, _b); check_failures++; } \
} while (0)

#define CHECK_DONE() (check_failures ? 1 : 0)

/* xorshift64*: deterministic, so that a failure reproduces */
static uint64_t check_rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t check_rng(void)
{
	check_rng_state ^= check_rng_state >> 12;
	check_rng_state ^= check_rng_state << 25;
	check_rng_state ^= check_rng_state >> 27;
	return check_rng_state * 2685821657736338717ull;
}
#endif
