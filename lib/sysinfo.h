/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_SYSINFO_H
#define HS_SYSINFO_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Facts about the running system that a recording keeps: kernel and
 * halt-polling parameters, cpuidle, and thread/process names read from
 * /proc while the threads still exist.
 */

/* A growable text buffer; oom sticks so callers check once at the end. */
struct hs_sbuf {
	char *s;
	size_t len;
	size_t cap;
	int oom;
};

void hs_sbuf_printf(struct hs_sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hs_sbuf_free(struct hs_sbuf *sb);

/*
 * Appends notes/META.md lines: param.* (kvm), guest.* (haltpoll),
 * cpuidle.driver and cpuidle.governor, for whatever exists here.
 */
void hs_sysinfo_params_append(struct hs_sbuf *sb);

/* "sysname nodename release version machine" (what trace-cmd stores) and the release alone. */
int hs_sysinfo_uname(char *full, size_t fn, char *release, size_t rn);

/* Thread name and thread group of a live thread; -1 when it is gone. */
int hs_sysinfo_thread(int tid, char *comm, size_t n, int *tgid);

/*
 * VM name of a VMM process from QEMU's "-name guest=NAME,..." or "-name NAME";
 * empty when there is none. Returns -1 when the process is gone.
 */
int hs_sysinfo_vm_name(int tgid, char *name, size_t n);

/* Thread ids of a live process, up to max; returns how many, or -1 when it is gone. */
int hs_sysinfo_tasks(int pid, int *tids, int max);

/* Replaces newlines, carriage returns and tabs so a name fits on one metadata line. */
void hs_sysinfo_clean_name(char *s);

#endif
