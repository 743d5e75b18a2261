// SPDX-License-Identifier: GPL-2.0-only
/*
 * Benchmark baseline for `haltstat record`: the simplest possible recorder.
 * Its own tracefs instance, the same events and buffer size, and per CPU a
 * thread that read()s per_cpu/cpuN/trace_pipe_raw page by page into a file.
 * Prints "rawcopy: seconds=S bytes=B lost=L cpu_user=U cpu_sys=S".
 *
 * usage: hs-rawcopy -d SECONDS [-m KIB] [-o DIR] SYSTEM:EVENT...
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <tracefs.h>

struct rc_cpu {
	int raw, out;
	long long bytes;
	pthread_t th;
	bool running;
};

static atomic_bool rc_stop;

static void *rc_reader(void *arg)
{
	struct rc_cpu *c = arg;
	char page[65536];
	struct pollfd pfd = { .fd = c->raw, .events = POLLIN };

	for (;;) {
		bool last = atomic_load(&rc_stop);
		ssize_t r;

		while ((r = read(c->raw, page, sizeof(page))) > 0) {
			if (write(c->out, page, (size_t)r) != r)
				return NULL;
			c->bytes += r;
		}
		if (last)
			return NULL;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return NULL;
	}
}

static long long stat_sum(struct tracefs_instance *in, int cpu)
{
	char path[64], *s, *p;
	long long lost = 0;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	s = tracefs_instance_file_read(in, path, NULL);
	if (!s)
		return 0;
	if ((p = strstr(s, "\noverrun: ")))
		lost += atoll(p + 10);
	if ((p = strstr(s, "\ndropped events: ")))
		lost += atoll(p + 17);
	free(s);
	return lost;
}

static int rc_setup(struct tracefs_instance *in, char **events, int nev, int kib)
{
	if (tracefs_trace_off(in) || tracefs_instance_set_buffer_size(in, (size_t)kib, -1))
		return -1;
	for (int i = 0; i < nev; i++) {
		char *colon = strchr(events[i], ':');

		if (!colon)
			return -1;
		*colon = '\0';
		if (tracefs_event_enable(in, events[i], colon + 1))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = "/tmp";
	double secs = 5;
	int kib = 8192, opt, ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	char name[64];
	long long bytes = 0, lost = 0;
	struct rusage ru;
	struct rc_cpu *cpus;
	struct tracefs_instance *in;
	int ret = 1;

	while ((opt = getopt(argc, argv, "d:m:o:")) != -1) {
		if (opt == 'd')
			secs = atof(optarg);
		else if (opt == 'm')
			kib = atoi(optarg);
		else if (opt == 'o')
			dir = optarg;
		else
			return 2;
	}
	if (optind >= argc || secs <= 0 || kib <= 0 || ncpus <= 0)
		return 2;
	snprintf(name, sizeof(name), "hs_rawcopy_%d", (int)getpid());
	in = tracefs_instance_create(name);
	cpus = calloc((size_t)ncpus, sizeof(*cpus));
	if (!in || !cpus || !tracefs_instance_is_new(in))
		return 1;
	if (rc_setup(in, argv + optind, argc - optind, kib))
		goto out;
	for (int i = 0; i < ncpus; i++) {
		char path[4200];

		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", i);
		cpus[i].raw = tracefs_instance_file_open(in, path, O_RDONLY | O_NONBLOCK);
		snprintf(path, sizeof(path), "%s/hs-rawcopy.%d.cpu%d", dir, (int)getpid(), i);
		cpus[i].out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		unlink(path);
		if (cpus[i].raw < 0 || cpus[i].out < 0)
			goto out;
		cpus[i].running = !pthread_create(&cpus[i].th, NULL, rc_reader, &cpus[i]);
	}
	tracefs_trace_on(in);
	usleep((useconds_t)(secs * 1e6));
	tracefs_trace_off(in);
	atomic_store(&rc_stop, true);
	for (int i = 0; i < ncpus; i++) {
		if (cpus[i].running)
			pthread_join(cpus[i].th, NULL);
		cpus[i].running = false;
		bytes += cpus[i].bytes;
		lost += stat_sum(in, i);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("rawcopy: seconds=%.3f bytes=%lld lost=%lld cpu_user=%.3f cpu_sys=%.3f\n", secs,
	       bytes, lost, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	ret = 0;
out:
	atomic_store(&rc_stop, true);
	for (int i = 0; i < ncpus; i++) {
		if (cpus[i].running)
			pthread_join(cpus[i].th, NULL);
		if (cpus[i].raw > 0)
			close(cpus[i].raw);
		if (cpus[i].out > 0)
			close(cpus[i].out);
	}
	tracefs_instance_destroy(in);
	tracefs_instance_free(in);
	free(cpus);
	return ret;
}
