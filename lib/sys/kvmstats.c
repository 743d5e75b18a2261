// SPDX-License-Identifier: GPL-2.0-only
/*
 * KVM binary statistics of a vCPU (see kvmstats.h). Layout, from the KVM
 * API: a header {flags, name_size, num_desc, id_offset, desc_offset,
 * data_offset}, num_desc descriptors {flags, exponent, size, offset,
 * bucket_size, name[name_size]} from desc_offset, and the u64 values of
 * descriptor i at data_offset + its offset. Everything is read with pread,
 * so the fd may be a plain file holding the same bytes (the unit test).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kvmstats.h"

#define HS_KVM_STATS_MAX_DESC	4096
#define HS_KVM_STATS_MAX_NAME	4096

const char *const hs_kvm_stat_names[HS_KVM_STAT_N] = {
	[HS_KVM_STAT_ATTEMPTED_POLL] = "halt_attempted_poll",
	[HS_KVM_STAT_SUCCESSFUL_POLL] = "halt_successful_poll",
	[HS_KVM_STAT_POLL_INVALID] = "halt_poll_invalid",
	[HS_KVM_STAT_POLL_SUCCESS_NS] = "halt_poll_success_ns",
	[HS_KVM_STAT_POLL_FAIL_NS] = "halt_poll_fail_ns",
	[HS_KVM_STAT_WAIT_NS] = "halt_wait_ns",
};

/* The unit each value is returned in: counts as is, times in ns. */
static const int hs_kvm_stat_target_exp[HS_KVM_STAT_N] = {
	[HS_KVM_STAT_POLL_SUCCESS_NS] = -9,
	[HS_KVM_STAT_POLL_FAIL_NS] = -9,
	[HS_KVM_STAT_WAIT_NS] = -9,
};

static int kvm_stats_pread(int fd, void *buf, size_t len, uint64_t off, struct hs_error *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return hs_error_set(err, HS_ERR_KVM, "reading KVM statistics: %s",
					    strerror(errno));
		if (r == 0)
			return hs_error_set(err, HS_ERR_KVM, "KVM statistics are truncated");
		done += (size_t)r;
	}
	return 0;
}

static void kvm_stats_match(struct hs_kvm_stats *s, const struct kvm_stats_desc *d,
			    const char *name, uint64_t data_off)
{
	for (unsigned int i = 0; i < HS_KVM_STAT_N; i++) {
		if (strcmp(name, hs_kvm_stat_names[i]))
			continue;
		/* only a plain cumulative counter can be subtracted run to run */
		if ((d->flags & KVM_STATS_TYPE_MASK) != KVM_STATS_TYPE_CUMULATIVE || !d->size)
			return;
		if ((d->flags & KVM_STATS_BASE_MASK) != KVM_STATS_BASE_POW10)
			return;
		s->off[i] = (int64_t)(data_off + d->offset);
		s->exponent[i] = d->exponent;
		return;
	}
}

static int kvm_stats_scan(struct hs_kvm_stats *s, const struct kvm_stats_header *h,
			  struct hs_error *err)
{
	size_t stride = sizeof(struct kvm_stats_desc) + h->name_size;
	size_t len = stride * h->num_desc;
	unsigned char *buf;
	int r;

	buf = malloc(len ? len : 1);
	if (!buf)
		return hs_error_set(err, HS_ERR_RUNTIME, "out of memory");
	r = kvm_stats_pread(s->fd, buf, len, h->desc_offset, err);
	for (unsigned int i = 0; !r && i < h->num_desc; i++) {
		struct kvm_stats_desc d;
		const char *name = (const char *)buf + i * stride + sizeof(d);

		memcpy(&d, buf + i * stride, sizeof(d));
		if (strnlen(name, h->name_size) == h->name_size)
			continue;	/* not terminated: not a name we look for */
		kvm_stats_match(s, &d, name, h->data_offset);
	}
	free(buf);
	return r;
}

int hs_kvm_stats_from_fd(struct hs_kvm_stats *s, int fd, struct hs_error *err)
{
	struct kvm_stats_header h;
	int r;

	s->fd = fd;
	for (unsigned int i = 0; i < HS_KVM_STAT_N; i++) {
		s->off[i] = -1;
		s->exponent[i] = 0;
	}
	r = kvm_stats_pread(fd, &h, sizeof(h), 0, err);
	if (!r && (!h.name_size || h.name_size > HS_KVM_STATS_MAX_NAME ||
		   h.num_desc > HS_KVM_STATS_MAX_DESC))
		r = hs_error_set(err, HS_ERR_KVM, "KVM statistics header is not understood "
				 "(name size %u, %u descriptors)", h.name_size, h.num_desc);
	if (!r)
		r = kvm_stats_scan(s, &h, err);
	if (r)
		hs_kvm_stats_close(s);
	return r;
}

int hs_kvm_stats_open(struct hs_kvm_stats *s, int vcpu_fd, struct hs_error *err)
{
	int fd = ioctl(vcpu_fd, KVM_GET_STATS_FD, NULL);

	if (fd < 0) {
		s->fd = -1;
		return hs_error_set(err, HS_ERR_KVM, "KVM_GET_STATS_FD: %s (needs Linux 5.14+)",
				    strerror(errno));
	}
	return hs_kvm_stats_from_fd(s, fd, err);
}

static uint64_t kvm_stats_scale(uint64_t v, int exp, int target)
{
	for (int e = exp; e > target; e--)
		v = v > UINT64_MAX / 10 ? UINT64_MAX : v * 10;
	for (int e = exp; e < target; e++)
		v /= 10;
	return v;
}

int hs_kvm_stats_read(const struct hs_kvm_stats *s, uint64_t vals[HS_KVM_STAT_N],
		      struct hs_error *err)
{
	for (unsigned int i = 0; i < HS_KVM_STAT_N; i++) {
		uint64_t v = 0;

		if (s->off[i] >= 0) {
			int r = kvm_stats_pread(s->fd, &v, sizeof(v), (uint64_t)s->off[i], err);

			if (r)
				return r;
		}
		vals[i] = kvm_stats_scale(v, s->exponent[i], hs_kvm_stat_target_exp[i]);
	}
	return 0;
}

bool hs_kvm_stats_complete(const struct hs_kvm_stats *s)
{
	return s->fd >= 0 && s->off[HS_KVM_STAT_SUCCESSFUL_POLL] >= 0 &&
	       s->off[HS_KVM_STAT_POLL_SUCCESS_NS] >= 0 && s->off[HS_KVM_STAT_POLL_FAIL_NS] >= 0;
}

void hs_kvm_stats_close(struct hs_kvm_stats *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
