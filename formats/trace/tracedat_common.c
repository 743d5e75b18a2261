// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the trace.dat readers (own and libtracecmd) share besides the page
 * decoder: where haltstat's trailer is, the release in the uname option,
 * the cmdlines, the checked copy of an event format that libtraceevent
 * gets instead of the file's bytes, and a pread of all it asks for.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "tracedat_internal.h"


static void copy_str(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

bool hs_td_pread_full(int fd, unsigned char *dst, size_t n, uint64_t off, size_t *got)
{
	*got = 0;
	while (*got < n) {
		ssize_t r = pread(fd, dst + *got, n - *got, (off_t)(off + *got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return false;
		if (r == 0)
			break;
		*got += (size_t)r;
	}
	return true;
}

/* "Linux host 6.1.0-13-amd64 #1 SMP ..." -> third word */
void hs_td_uname_release(const char *uname, size_t len, struct hs_meta *meta)
{
	const char *s = uname, *end = uname + len;

	if (meta->kernel_release[0])
		return;
	for (int w = 0; w < 2; w++) {
		while (s < end && *s && *s != ' ')
			s++;
		while (s < end && *s == ' ')
			s++;
	}
	const char *e = s;

	while (e < end && *e && *e != ' ' && *e != '\n')
		e++;
	if (e > s)
		copy_str(meta->kernel_release, sizeof(meta->kernel_release), s, e - s);
}

/* saved_cmdlines: "PID COMM\n" */
void hs_td_cmdlines_apply(const char *text, size_t len, struct hs_sink *sink)
{
	const char *s = text, *end = text + len;
	char comm[64];

	while (s < end) {
		const char *nl = memchr(s, '\n', end - s);
		const char *le = nl ? nl : end, *p = s;
		long pid = 0;

		while (p < le && isdigit((unsigned char)*p) && pid <= INT32_MAX)
			pid = pid * 10 + (*p++ - '0');
		if (p > s && p < le && *p == ' ' && pid <= INT32_MAX) {
			copy_str(comm, sizeof(comm), p + 1, le - p - 1);
			if (!memchr(comm, '\0', strlen(comm)))
				sink->thread(sink->priv, (int)pid, -1, comm);
		}
		s = le + 1;
	}
}

/* ---- event formats, rewritten before libtraceevent parses them ---- */

static bool fmt_word(const char *s, size_t n, const char *extra)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && !strchr(extra, s[i]))
			return false;
	return true;
}

/* "KEY:DIGITS;" at *p (after tabs or spaces); the number goes to *v. */
static bool fmt_num(const char **p, const char *e, const char *key, unsigned long *v)
{
	const char *s = *p;
	size_t k = strlen(key);

	while (s < e && (*s == '\t' || *s == ' '))
		s++;
	if ((size_t)(e - s) < k || memcmp(s, key, k))
		return false;
	s += k;
	*v = 0;
	if (s >= e || !isdigit((unsigned char)*s))
		return false;
	while (s < e && isdigit((unsigned char)*s) && *v < 1000000)
		*v = *v * 10 + (unsigned long)(*s++ - '0');
	if (s >= e || *s != ';' || *v >= 1000000)
		return false;
	*p = s + 1;
	return true;
}

/* "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" -> the same, canonical */
static size_t fmt_field(const char *s, const char *e, char *out, size_t room)
{
	const char *decl, *semi;
	unsigned long off, size, sign;
	int n;

	while (s < e && (*s == '\t' || *s == ' '))
		s++;
	if ((size_t)(e - s) < 6 || memcmp(s, "field:", 6))
		return 0;
	decl = s + 6;
	semi = memchr(decl, ';', (size_t)(e - decl));
	if (!semi || !fmt_word(decl, (size_t)(semi - decl), " *[]") || semi - decl > 200)
		return 0;
	s = semi + 1;
	if (!fmt_num(&s, e, "offset:", &off) || !fmt_num(&s, e, "size:", &size) ||
	    !fmt_num(&s, e, "signed:", &sign) || sign > 1)
		return 0;
	n = snprintf(out, room, "\tfield:%.*s;\toffset:%lu;\tsize:%lu;\tsigned:%lu;\n",
		     (int)(semi - decl), decl, off, size, sign);
	return n > 0 && (size_t)n < room ? (size_t)n : 0;
}

/*
 * libtraceevent 1.7 crashes on some malformed formats (a NULL dereference
 * in the print-fmt parser, found by tests/fuzz/fuzz_tracedat). haltstat
 * needs the name, the ID and the plain fields only, so a new text is made
 * from those, each checked, with a constant print fmt: whatever else the
 * file holds never reaches the library. Returns the length, 0 if unusable.
 */
size_t hs_td_format_clean(const char *in, size_t len, char *out, size_t cap)
{
	const char *s = in, *e = in + len;
	size_t used = 0, n;
	int stage = 0;		/* 0 name, 1 ID, 2 "format:", 3 fields */

	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s)), *le = nl ? nl : e;

		if (stage == 0 && le - s > 6 && !memcmp(s, "name: ", 6) &&
		    fmt_word(s + 6, (size_t)(le - s - 6), "") && le - s < 100) {
			n = (size_t)snprintf(out + used, cap - used, "%.*s\n", (int)(le - s), s);
			stage = 1;
		} else if (stage == 1 && le - s > 4 && !memcmp(s, "ID: ", 4) &&
			   fmt_word(s + 4, (size_t)(le - s - 4), "") && le - s < 16) {
			n = (size_t)snprintf(out + used, cap - used, "%.*s\nformat:\n", (int)(le - s), s);
			stage = 2;
		} else if (stage >= 2 && le - s >= 10 && !memcmp(s, "print fmt:", 10)) {
			break;
		} else if (stage >= 2) {
			n = fmt_field(s, le, out + used, cap - used);
			if (n && stage == 2 && used + 1 < cap) {
				stage = 3;
			}
		} else {
			n = 0;
		}
		if (used + n >= cap)
			return 0;
		used += n;
		/* common fields end with an empty line in the kernel's layout */
		if (stage == 3 && le == s && used + 1 < cap)
			out[used++] = '\n';
		s = le + 1;
	}
	if (stage < 2)
		return 0;
	n = (size_t)snprintf(out + used, cap - used, "\nprint fmt: \"x\"\n");
	return used + n < cap ? used + n : 0;
}
