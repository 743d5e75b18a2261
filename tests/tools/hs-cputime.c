// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPU a command takes, to the microsecond: /usr/bin/time prints
 * hundredths of a second, a tenth of what a 2 s recording costs, and a
 * python wrapper's fork adds milliseconds of its own.
 *
 * usage: hs-cputime OUT CMD [ARG...]
 * Runs CMD and writes "USER SYS" (seconds) to OUT; exits with CMD's status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	FILE *out;
	pid_t pid;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: hs-cputime OUT CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "hs-cputime: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "hs-cputime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "hs-cputime: wait: %s\n", strerror(errno));
			return 2;
		}
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%ld.%06ld %ld.%06ld\n", (long)ru.ru_utime.tv_sec,
			    (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
			    (long)ru.ru_stime.tv_usec) < 0 || fclose(out)) {
		fprintf(stderr, "hs-cputime: cannot write %s\n", argv[1]);
		return 2;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
