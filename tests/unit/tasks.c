// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/sys/tasks.c: the identity table as a recording's task events and the
 * kernel's saved cmdlines build it, and its walk of this process in /proc.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/sys/tasks.h"
#include "check.h"

#define CLONE_THREAD_FLAG 0x00010000ull

static void test_events(void)
{
	struct hs_tasks *t = hs_tasks_alloc();
	const struct hs_task *k;
	const struct hs_task_process *p;

	/* a VMM forks, execs (a rename), starts a vCPU thread that renames itself and exits */
	hs_tasks_forked(t, 100, 200, 0, "bash");
	hs_tasks_renamed(t, 200, "qemu-system-x86");
	hs_tasks_forked(t, 200, 201, CLONE_THREAD_FLAG, "qemu-system-x86");
	hs_tasks_renamed(t, 201, "CPU 0/KVM");
	hs_tasks_exited(t, 201, "CPU 0/KVM");
	k = hs_tasks_find(t, 201);
	CHECK(k && k->tgid == 200 && !strcmp(k->comm, "CPU 0/KVM"), "tasks_thread_of_forked_process");
	p = hs_tasks_process(t, 200);
	CHECK(p && !strcmp(p->comm, "qemu-system-x86"), "tasks_process_named_by_exec");
	/* the traced command's argv names its VM when /proc was never read for it */
	static const char argv[] = "qemu-system-x86_64\0-name\0guest=web1,debug-threads=on\0";
	hs_tasks_note_cmdline(t, 200, argv, sizeof(argv) - 1);
	p = hs_tasks_process(t, 200);
	CHECK(p && !strcmp(p->vm_name, "web1"), "tasks_command_names_vm");
	hs_tasks_note_cmdline(t, 200, "x\0-name\0other\0", 15);
	CHECK(p && !strcmp(p->vm_name, "web1"), "tasks_command_does_not_override");
	hs_tasks_note_cmdline(t, 4242, argv, sizeof(argv) - 1);
	CHECK(hs_tasks_process(t, 4242) == NULL, "tasks_command_unknown_process_left");
	k = hs_tasks_find(t, 200);
	CHECK(k && k->tgid == 200, "tasks_new_process_is_its_own_group");
	/* a thread of a parent nobody knows: its group stays unknown, not guessed */
	hs_tasks_forked(t, 999, 300, CLONE_THREAD_FLAG, "worker");
	k = hs_tasks_find(t, 300);
	CHECK(k && k->tgid == -1 && !strcmp(k->comm, "worker"), "tasks_unknown_parent_group");
	/* saved_cmdlines names only the threads nothing else named */
	hs_tasks_fill_names(t, "201 stale\n400 CPU 1/KVM\n401 <...>\nbad line\n");
	k = hs_tasks_find(t, 201);
	CHECK(k && !strcmp(k->comm, "CPU 0/KVM"), "tasks_saved_cmdlines_do_not_override");
	k = hs_tasks_find(t, 400);
	CHECK(k && !strcmp(k->comm, "CPU 1/KVM") && k->tgid == -1, "tasks_saved_cmdlines_fill");
	CHECK(hs_tasks_find(t, 401) == NULL, "tasks_saved_cmdlines_skip_unknown");
	/* an exited thread is not read again from /proc: its tid may be someone else's */
	hs_tasks_refresh(t, 201);
	k = hs_tasks_find(t, 201);
	CHECK(k && k->tgid == 200, "tasks_exited_not_refreshed");
	/* names with control characters are made printable */
	hs_tasks_renamed(t, 500, "a\tb\nc");
	k = hs_tasks_find(t, 500);
	CHECK(k && !strcmp(k->comm, "a b c"), "tasks_names_printable");
	hs_tasks_free(t);
}

static void *test_sleeper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "hs-test-vcpu");
	usleep(300000);
	return NULL;
}

/* A live thread of this process, found by the walk of /proc and by the watcher. */
static void test_proc(void)
{
	struct hs_tasks *t = hs_tasks_alloc();
	const struct hs_task *k;
	pthread_t th;
	int found = 0;

	CHECK(hs_tasks_scan_proc(t) == 0, "tasks_scan_proc");
	k = hs_tasks_find(t, getpid());
	CHECK(k && k->tgid == getpid(), "tasks_scan_finds_self");
	CHECK(hs_tasks_watch_start(t, 20) == 0, "tasks_watch_start");
	if (pthread_create(&th, NULL, test_sleeper, NULL) == 0) {
		usleep(150000);
		/* the watcher lists every thread again only now and then: ask for this one */
		hs_tasks_watch_stop(t);
		for (int tid = getpid(); tid < getpid() + 64 && !found; tid++) {
			hs_tasks_refresh(t, tid);
			k = hs_tasks_find(t, tid);
			found = k && !strcmp(k->comm, "hs-test-vcpu") && k->tgid == getpid();
		}
		pthread_join(th, NULL);
	}
	hs_tasks_watch_stop(t);
	CHECK(found, "tasks_refresh_names_live_thread");
	hs_tasks_free(t);
}

int main(void)
{
	test_events();
	test_proc();
	return CHECK_DONE();
}
