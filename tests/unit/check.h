/* Minimal checks for C unit tests: prints the "ok"/"not ok" lines tests/run.sh counts. */
#ifndef HS_CHECK_H
#define HS_CHECK_H
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
#endif
