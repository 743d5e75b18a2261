/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TASKS_H
#define HS_TASKS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Who every thread of a recording was: its name, its process and the VM
 * that process runs, kept however short-lived the thread or its process.
 * /proc only knows threads while they live, so a recording gathers them
 * from several sources, each filling what the others miss:
 *   - a walk of /proc when recording starts (threads that existed before);
 *   - the task:task_newtask, task:task_rename and sched:sched_process_exit
 *     events of the recording itself, applied in time order once it ends
 *     (threads born, renamed or gone during it: exact, nothing polled);
 *   - a watcher that looks for new processes in /proc every few hundred
 *     milliseconds while recording (their command lines, where the VM's
 *     name is: no event carries it);
 *   - the kernel's saved_cmdlines, read-only, as a last resort for names.
 * A name learnt later wins over an earlier one; a thread keeps its last.
 */
#define HS_TASK_COMM 64
#define HS_TASK_VM_NAME 128

struct hs_task {
	int tid;
	int tgid;			/* -1 unknown */
	char comm[HS_TASK_COMM];
};

struct hs_task_process {
	int tgid;
	char comm[HS_TASK_COMM];	/* the main thread's name */
	char vm_name[HS_TASK_VM_NAME];	/* from the command line (lib/vmm.h), or "" */
};

struct hs_tasks;

struct hs_tasks *hs_tasks_alloc(void);
void hs_tasks_free(struct hs_tasks *t);

/* Every thread and process /proc lists now. 0, or -1 when /proc is unreadable. */
int hs_tasks_scan_proc(struct hs_tasks *t);
/*
 * A thread that runs hs_tasks_scan_proc() once, then looks for new
 * processes every interval_ms until hs_tasks_watch_stop(). The table must
 * not be used otherwise in between.
 */
int hs_tasks_watch_start(struct hs_tasks *t, unsigned int interval_ms);
void hs_tasks_watch_stop(struct hs_tasks *t);

/* What the recording's own events say, in time order. */
void hs_tasks_forked(struct hs_tasks *t, int parent, int child, uint64_t clone_flags,
		     const char *comm);
void hs_tasks_renamed(struct hs_tasks *t, int tid, const char *comm);
void hs_tasks_exited(struct hs_tasks *t, int tid, const char *comm);

/* "PID COMM" lines (the kernel's saved_cmdlines): names of threads still unknown. */
void hs_tasks_fill_names(struct hs_tasks *t, const char *text);
/* A process's command line (NUL-separated), for its VM name when none was learnt. */
void hs_tasks_note_cmdline(struct hs_tasks *t, int tgid, const char *cmdline, size_t len);
/* Reads /proc again for a thread that may still live (its latest name). */
void hs_tasks_refresh(struct hs_tasks *t, int tid);

/* NULL when unknown. */
const struct hs_task *hs_tasks_find(const struct hs_tasks *t, int tid);
const struct hs_task_process *hs_tasks_process(const struct hs_tasks *t, int tgid);

#endif
