// SPDX-License-Identifier: GPL-2.0-only
/* The one-line warnings every writer shows: losses, clamps, empty or filtered-out inputs. */
#include <stdio.h>
#include <string.h>

#include "report_warn.h"

static void report_warn_poll_clamp(struct hs_report *rep)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rep->nvcpus; i++)
		n += rep->vcpus[i].stats.poll_clamped;
	if (rep->poll_host_clamped)
		hs_report_warn(rep, "the vCPUs' polling CPU came out above all the time of the "
			       "host's %d CPUs and was scaled down to it: a bug, or a bad input",
			       rep->meta.ncpus);
	else if (n)
		hs_report_warn(rep, "the polling CPU of %u vCPU%s came out above %s own span and "
			       "was cut down to it: a bug, or a bad input", n, n == 1 ? "" : "s",
			       n == 1 ? "its" : "their");
}

/* One warning for a count of what went wrong, when there is any. */
static void report_warn_count(struct hs_report *rep, uint64_t n, const char *fmt)
{
	char buf[256];

	if (!n)
		return;
	snprintf(buf, sizeof(buf), fmt, (unsigned long long)n);
	hs_report_warn(rep, "%s", buf);
}

static void report_warn_losses(struct hs_report *rep)
{
	const struct hs_meta *m = &rep->meta;

	if (m->lost_events && rep->lost_pct >= 0)
		hs_report_warn(rep, "lost %llu events (%.2f%%): results may be inaccurate",
			       (unsigned long long)m->lost_events, rep->lost_pct);
	else if (m->lost_events)
		hs_report_warn(rep, "lost %llu events: results may be inaccurate",
			       (unsigned long long)m->lost_events);
	if (m->lost_unknown_places)
		hs_report_warn(rep, "events were lost in %llu places (count unknown): "
			       "results may be inaccurate",
			       (unsigned long long)m->lost_unknown_places);
	report_warn_count(rep, m->skipped_lines, "skipped %llu unreadable input lines");
	report_warn_count(rep, m->skipped_pages, "skipped %llu damaged pages of the trace");
	report_warn_count(rep, m->skipped_events, "skipped %llu malformed events");
	report_warn_count(rep, m->clamped_ts, "%llu events had a time stamp earlier than the one "
			     "before on their CPU: taken as simultaneous");
	_Static_assert(HS_ACCOUNT_MAX_VCPUS == HS_ACCOUNT_MAX_GUEST_CPUS,
		       "the warning names one limit for both");
	if (m->over_limit_events)
		hs_report_warn(rep, "%llu events of vCPU threads or guest CPUs past the first "
			       "%d of each were not analysed",
			       (unsigned long long)m->over_limit_events, HS_ACCOUNT_MAX_VCPUS);
}

static void report_warn_filter(struct hs_report *rep, const struct hs_report_filter *f)
{
	char what[256] = "";
	size_t len = 0;
	unsigned int i;

	if (f->vm && f->vm[0])
		len += (size_t)snprintf(what + len, sizeof(what) - len, " VM \"%.64s\"", f->vm);
	if (f->vcpu >= 0 && len < sizeof(what))
		len += (size_t)snprintf(what + len, sizeof(what) - len, " vCPU %d", f->vcpu);
	for (i = 0; i < f->npids && len < sizeof(what); i++)
		len += (size_t)snprintf(what + len, sizeof(what) - len, "%s%d",
					i ? "," : " pid ", f->pids[i]);
	hs_report_warn(rep, "no vCPU thread matches the filter:%s", what);
}

static enum hs_kvm_seen report_kvm_seen(const struct hs_report *rep)
{
	if (rep->events_wakeup)
		return HS_KVM_HALTING;
	if (rep->meta.kvm_formats > 0 || rep->events_poll_ns)
		return HS_KVM_IDLE;
	return rep->meta.kvm_formats == 0 ? HS_KVM_ABSENT : HS_KVM_UNKNOWN;
}

/* Words for a report without halts that fit what the input shows; true when added. */
static bool report_warn_kvm(struct hs_report *rep)
{
	unsigned int n = rep->nwarnings;

	if (rep->kvm == HS_KVM_IDLE)
		hs_report_warn(rep, "kvm was loaded (the input has its event formats or events) "
			       "but no vCPU halted: no VM ran, or none went idle");
	else if (rep->kvm == HS_KVM_ABSENT)
		hs_report_warn(rep, "no kvm event formats in the input: kvm was not loaded where "
			       "it was recorded, or that is not a KVM host");
	else
		hs_report_warn(rep, "no kvm_vcpu_wakeup events, and the input does not tell "
			       "whether kvm was loaded (pasted text keeps no event formats)");
	return rep->nwarnings > n;
}

void hs_report_warnings(struct hs_report *rep, const struct hs_account *acct,
			const struct hs_report_filter *f, bool filtered_out)
{
	const struct hs_account_opts *o = hs_account_options(acct);

	report_warn_losses(rep);
	report_warn_poll_clamp(rep);
	rep->kvm = report_kvm_seen(rep);
	if (!rep->events_total && (o->start_ns || o->end_ns))
		hs_report_warn(rep, "no events in the selected time range");
	else if (rep->kvm != HS_KVM_HALTING && report_warn_kvm(rep))
		rep->kvm_note = rep->warnings[rep->nwarnings - 1];
	if (filtered_out)
		report_warn_filter(rep, f);
}
