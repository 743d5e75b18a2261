// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sysinfo.h"

void hs_sbuf_printf(struct hs_sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->oom)
		return;
	for (;;) {
		size_t room = sb->cap - sb->len;

		va_start(ap, fmt);
		n = vsnprintf(sb->s ? sb->s + sb->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			sb->oom = 1;
			return;
		}
		if ((size_t)n < room) {
			sb->len += (size_t)n;
			return;
		}
		size_t cap = sb->cap ? sb->cap * 2 : 4096;
		while (cap - sb->len <= (size_t)n)
			cap *= 2;
		char *s = realloc(sb->s, cap);

		if (!s) {
			sb->oom = 1;
			return;
		}
		sb->s = s;
		sb->cap = cap;
	}
}

void hs_sbuf_free(struct hs_sbuf *sb)
{
	free(sb->s);
	memset(sb, 0, sizeof(*sb));
}

/* Reads a small text file into buf without the trailing newline; -1 when unreadable. */
static int read_line(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, n - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void append_param(struct hs_sbuf *sb, const char *key, const char *dir, const char *file)
{
	char path[256], val[128];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_line(path, val, sizeof(val)) || !val[0])
		return;
	/* Boolean parameters print Y/N in sysfs; the metadata wants 1/0. */
	if (!strcmp(val, "Y") || !strcmp(val, "N"))
		snprintf(val, sizeof(val), "%d", val[0] == 'Y');
	hs_sysinfo_clean_name(val);
	hs_sbuf_printf(sb, "%s=%s\n", key, val);
}

void hs_sysinfo_params_append(struct hs_sbuf *sb)
{
	static const char kvm[] = "/sys/module/kvm/parameters";
	static const char hp[] = "/sys/module/haltpoll/parameters";
	static const char idle[] = "/sys/devices/system/cpu/cpuidle";
	static const char *const kvm_params[] = {
		"halt_poll_ns", "halt_poll_ns_grow", "halt_poll_ns_grow_start", "halt_poll_ns_shrink",
	};
	static const char *const guest_params[] = {
		"halt_poll_ns", "halt_poll_grow", "halt_poll_grow_start", "halt_poll_shrink",
		"halt_poll_allow_shrink",
	};
	char key[64], file[64];

	for (size_t i = 0; i < sizeof(kvm_params) / sizeof(kvm_params[0]); i++) {
		snprintf(key, sizeof(key), "param.%s", kvm_params[i]);
		append_param(sb, key, kvm, kvm_params[i]);
	}
	for (size_t i = 0; i < sizeof(guest_params) / sizeof(guest_params[0]); i++) {
		snprintf(key, sizeof(key), "guest.%s", guest_params[i]);
		snprintf(file, sizeof(file), "guest_%s", guest_params[i]);
		append_param(sb, key, hp, file);
	}
	append_param(sb, "cpuidle.driver", idle, "current_driver");
	if (access("/sys/devices/system/cpu/cpuidle/current_governor", R_OK) == 0)
		append_param(sb, "cpuidle.governor", idle, "current_governor");
	else
		append_param(sb, "cpuidle.governor", idle, "current_governor_ro");
}

int hs_sysinfo_uname(char *full, size_t fn, char *release, size_t rn)
{
	struct utsname u;

	if (uname(&u))
		return -1;
	snprintf(full, fn, "%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version,
		 u.machine);
	snprintf(release, rn, "%s", u.release);
	return 0;
}

void hs_sysinfo_clean_name(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r' || *s == '\t')
			*s = ' ';
}

static int thread_tgid(int tid)
{
	char path[64], buf[512];
	FILE *f;
	int tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		if (!strncmp(buf, "Tgid:", 5)) {
			tgid = atoi(buf + 5);
			break;
		}
	}
	fclose(f);
	return tgid;
}

int hs_sysinfo_thread(int tid, char *comm, size_t n, int *tgid)
{
	char path[96];
	int g;

	if (tid <= 0)
		return -1;
	g = thread_tgid(tid);
	if (g <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", g, tid);
	if (read_line(path, comm, n))
		return -1;
	hs_sysinfo_clean_name(comm);
	*tgid = g;
	return 0;
}

static void vm_name_from_arg(const char *arg, char *name, size_t n)
{
	const char *v = arg;
	const char *g = strstr(arg, "guest=");

	/* "-name guest=NAME,debug-threads=on" (libvirt) or "-name NAME[,process=...]" */
	if (g && (g == arg || g[-1] == ','))
		v = g + 6;
	snprintf(name, n, "%.*s", (int)strcspn(v, ","), v);
	hs_sysinfo_clean_name(name);
}

int hs_sysinfo_vm_name(int tgid, char *name, size_t n)
{
	char path[64], buf[65536];
	ssize_t r;
	int fd;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	for (char *p = buf; p < buf + r; p += strlen(p) + 1) {
		char *next = p + strlen(p) + 1;

		if ((!strcmp(p, "-name") || !strcmp(p, "--name")) && next < buf + r) {
			vm_name_from_arg(next, name, n);
			break;
		}
	}
	return 0;
}

int hs_sysinfo_tasks(int pid, int *tids, int max)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		int tid = atoi(de->d_name);

		if (tid > 0)
			tids[n++] = tid;
	}
	closedir(d);
	return n;
}
