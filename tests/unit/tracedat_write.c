// SPDX-License-Identifier: GPL-2.0-only
/*
 * hs_tracedat_write: synthetic ring-buffer pages go in, libtracecmd (an
 * independent reader) must get every event back with its value, pid and
 * timestamp, the options, and the metadata trailer at the end. The file
 * made around one CPU's data where it lies (hs_tracedat_write_around) must
 * be the same file, byte for byte, whichever CPU it is made around.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "../../formats/trace/tracedat_write.h"
#include "check.h"

#define PAGE 4096

/*
 * libtracecmd 1.3.1 parses the trace clock twice (option and flyrecord) and
 * leaks the first copy (allocated by sscanf %ms, whose stack LSan cannot
 * unwind past libc); that is its bug, not ours.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:isoc99_vsscanf\n";
}
#define EV_ID 60001

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";
static const char fake_format[] =
	"name: hs_fake\nID: 60001\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:u64 val;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"val=%llu\", REC->val\n";

/* One page of n events (16-byte payload: type_len 4), 1000 ns apart, values base+i. */
static void fill_page(unsigned char *pg, uint64_t ts, int n, uint64_t base, int32_t pid)
{
	unsigned char *p = pg + 16;
	uint64_t commit = (uint64_t)n * 20;

	memset(pg, 0, PAGE);
	memcpy(pg, &ts, 8);
	memcpy(pg + 8, &commit, 8);
	for (int i = 0; i < n; i++) {
		uint32_t hdr = 4u | ((i ? 1000u : 0u) << 5);
		uint16_t type = EV_ID;
		uint64_t val = base + (uint64_t)i;

		memcpy(p, &hdr, 4);
		memcpy(p + 4, &type, 2);
		memcpy(p + 8, &pid, 4);
		memcpy(p + 12, &val, 8);
		p += 20;
	}
}

struct seen {
	int count[2];
	uint64_t sum;
	int bad_pid;
	uint64_t last_ts;
	int unordered;
};

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct seen *s = data;
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep_find_event(tep, EV_ID);
	unsigned long long val = 0;
	int pid = tep_data_pid(tep, rec);

	if (!ev || tep_read_number_field(tep_find_field(ev, "val"), rec->data, &val))
		return -1;
	if (cpu >= 0 && cpu < 2)
		s->count[cpu]++;
	s->sum += val;
	s->bad_pid += pid != (cpu == 0 ? 42 : 43);
	s->unordered += rec->ts < s->last_ts;
	s->last_ts = rec->ts;
	return 0;
}

/* flags: O_APPEND makes copy_file_range refuse, so CPU 1 goes through the plain copy */
static int write_file(const char *path, int cpu1_fd, int flags)
{
	static unsigned char pages0[3 * PAGE];
	struct hs_tracedat_format fmt = { "hstest", fake_format, sizeof(fake_format) - 1 };
	struct hs_tracedat_cpu cpus[2] = {
		{ pages0, -1, sizeof(pages0) },
		{ NULL, cpu1_fd, PAGE },
	};
	const char *stats[2] = { "overrun: 0\n", "overrun: 7\n" };
	static const char meta[] = "haltstat_version=0.1.0\nlost.cpu1=7\n";
	struct hs_tracedat_desc d = {
		.page_size = PAGE,
		.header_page = header_page, .header_page_len = sizeof(header_page) - 1,
		.header_event = header_event, .header_event_len = sizeof(header_event) - 1,
		.formats = &fmt, .nformats = 1,
		.cmdlines = "42 vcpu-a\n43 vcpu b\n", .cmdlines_len = 20,
		.ncpus = 2, .cpus = cpus,
		.uname = "Linux test 6.18 #1 x86_64", .clock = "local", .cpustat = stats,
		.meta = meta, .meta_len = sizeof(meta) - 1,
	};
	struct hs_error err = { 0 };
	int fd, ret;

	for (int i = 0; i < 3; i++)
		fill_page(pages0 + i * PAGE, 1000000 + (uint64_t)i * 1000000, 100, 0, 42);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | flags, 0600);
	if (fd < 0)
		return -1;
	ret = hs_tracedat_write(fd, &d, &err);
	if (close(fd))
		ret = -1;
	return ret;
}

/* 1 when both files hold the same bytes (files of this test are small) */
static int same_bytes(const char *a, const char *b)
{
	static unsigned char x[1 << 16], y[1 << 16];
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	size_t na = fa ? fread(x, 1, sizeof(x), fa) : 0, nb = fb ? fread(y, 1, sizeof(y), fb) : 0;

	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return na > 0 && na < sizeof(x) && na == nb && !memcmp(x, y, na);
}

static int check_trailer(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	uint64_t len = 0;
	int ok;

	if (end < 16 || pread(fd, buf, 16, end - 16) != 16) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	for (int i = 0; i < 8; i++)
		len |= (uint64_t)(unsigned char)buf[i] << (8 * i);
	ok = !memcmp(buf + 8, "HSMETA01", 8) && len == 35 &&
	     pread(fd, buf, 35, end - 16 - 35) == 35 && !memcmp(buf, "haltstat_version=0.1.0\n", 23);
	close(fd);
	return ok;
}

#define AROUND_CPUS 3

/* CPU i's data: AROUND_PAGES[i] pages in a file of its own, from offset 0. */
static const int around_pages[AROUND_CPUS] = { 2, 1, 3 };

static int around_files(const char *dir, int *fds)
{
	unsigned char page[PAGE];

	for (int i = 0; i < AROUND_CPUS; i++) {
		fds[i] = open(dir, O_TMPFILE | O_RDWR, 0600);
		if (fds[i] < 0)
			return -1;
		for (int p = 0; p < around_pages[i]; p++) {
			fill_page(page, 1000000 * (uint64_t)(p + 1) + (uint64_t)i, 10 + i, 100 * (uint64_t)i, 42 + i);
			if (write(fds[i], page, PAGE) != PAGE)
				return -1;
		}
	}
	return 0;
}

static void around_close(int *fds)
{
	for (int i = 0; i < AROUND_CPUS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void around_desc(struct hs_tracedat_desc *d, struct hs_tracedat_cpu *cpus,
			struct hs_tracedat_format *fmt, const int *fds)
{
	static const char meta[] = "haltstat_version=0.1.0\n";

	*fmt = (struct hs_tracedat_format){ "hstest", fake_format, sizeof(fake_format) - 1 };
	for (int i = 0; i < AROUND_CPUS; i++)
		cpus[i] = (struct hs_tracedat_cpu){ NULL, fds[i], (uint64_t)around_pages[i] * PAGE };
	*d = (struct hs_tracedat_desc){
		.page_size = PAGE,
		.header_page = header_page, .header_page_len = sizeof(header_page) - 1,
		.header_event = header_event, .header_event_len = sizeof(header_event) - 1,
		.formats = fmt, .nformats = 1,
		.cmdlines = "42 a\n", .cmdlines_len = 5,
		.ncpus = AROUND_CPUS, .cpus = cpus, .clock = "local",
		.meta = meta, .meta_len = sizeof(meta) - 1,
	};
}

/* The bytes of fd, whole (small here): their length, or -1. */
static ssize_t around_read(int fd, unsigned char *buf, size_t cap)
{
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0 || (size_t)end > cap)
		return -1;
	return pread(fd, buf, (size_t)end, 0);
}

/* A directory whose file system inserts ranges (ext4, xfs), else NULL. */
static const char *around_dir(void)
{
	const char *dirs[] = { getenv("HS_BUILD"), "/var/tmp", "/tmp" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int fd = dirs[i] ? open(dirs[i], O_TMPFILE | O_RDWR, 0600) : -1;
		bool ok = fd >= 0 && ftruncate(fd, 2 * PAGE) == 0 &&
			  fallocate(fd, FALLOC_FL_INSERT_RANGE, 0, PAGE) == 0;

		if (fd >= 0)
			close(fd);
		if (ok)
			return dirs[i];
	}
	return NULL;
}

static void test_around(void)
{
	static unsigned char want[1 << 16], got[1 << 16];
	struct hs_tracedat_format fmt;
	struct hs_tracedat_cpu cpus[AROUND_CPUS];
	struct hs_tracedat_desc d;
	struct hs_error err = { 0 };
	const char *dir = around_dir();
	int fds[AROUND_CPUS], out;
	ssize_t nwant;

	if (!dir) {
		printf("skip tdw_write_around: no file system here inserts ranges\n");
		return;
	}
	out = open(dir, O_TMPFILE | O_RDWR, 0600);
	CHECK(out >= 0 && around_files(dir, fds) == 0, "tdw_around_files");
	around_desc(&d, cpus, &fmt, fds);
	CHECK(hs_tracedat_write(out, &d, &err) == 0, "tdw_around_copy_written");
	nwant = around_read(out, want, sizeof(want));
	close(out);
	around_close(fds);
	for (unsigned int k = 0; k < AROUND_CPUS; k++) {
		char name[64];
		ssize_t n;

		CHECK(around_files(dir, fds) == 0, "tdw_around_files_again");
		around_desc(&d, cpus, &fmt, fds);
		snprintf(name, sizeof(name), "tdw_around_cpu%u_written", k);
		CHECK_EQ_U64(hs_tracedat_write_around(&d, k, &err), 0, name);
		n = around_read(fds[k], got, sizeof(got));
		snprintf(name, sizeof(name), "tdw_around_cpu%u_same_bytes", k);
		CHECK(nwant > 0 && n == nwant && !memcmp(want, got, (size_t)n), name);
		around_close(fds);
	}
	/* pages in memory are not a file to make it around: nothing changes */
	CHECK(around_files(dir, fds) == 0, "tdw_around_files_buf");
	around_desc(&d, cpus, &fmt, fds);
	cpus[1].buf = want;
	CHECK_EQ_U64(hs_tracedat_write_around(&d, 1, &err), 1, "tdw_around_not_in_memory");
	CHECK_EQ_U64(lseek(fds[1], 0, SEEK_END), PAGE, "tdw_around_not_in_memory_unchanged");
	around_close(fds);
}

int main(void)
{
	char path[] = "/tmp/hs-tdw-XXXXXX", cpu1[] = "/tmp/hs-tdw-cpu1-XXXXXX";
	char plain[] = "/tmp/hs-tdw-plain-XXXXXX";
	unsigned char page[PAGE];
	struct seen s = { 0 };
	struct tracecmd_input *h;
	int fd = mkstemp(path), fd1 = mkstemp(cpu1), fdp = mkstemp(plain);

	if (fd < 0 || fd1 < 0 || fdp < 0)
		return 1;
	close(fd);
	close(fdp);
	unlink(cpu1);
	fill_page(page, 1500000, 50, 1000, 43);
	CHECK(write(fd1, page, PAGE) == PAGE, "tdw_cpu_file");
	CHECK(write_file(path, fd1, 0) == 0, "tdw_write");
	CHECK(write_file(plain, fd1, O_APPEND) == 0, "tdw_write_plain_copy");
	CHECK(same_bytes(path, plain), "tdw_plain_copy_same_file");
	unlink(plain);
	close(fd1);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	CHECK(h != NULL, "tdw_libtracecmd_opens");
	if (h) {
		CHECK(tracecmd_iterate_events(h, NULL, 0, on_record, &s) == 0, "tdw_iterate");
		CHECK_EQ_U64(s.count[0], 300, "tdw_cpu0_events");
		CHECK_EQ_U64(s.count[1], 50, "tdw_cpu1_events");
		/* cpu0: 3 x sum(0..99); cpu1: sum(1000..1049) */
		CHECK_EQ_U64(s.sum, 3 * 4950 + 50 * 1000 + 1225, "tdw_values");
		CHECK_EQ_U64(s.bad_pid, 0, "tdw_pids");
		CHECK_EQ_U64(s.unordered, 0, "tdw_time_order");
		CHECK(!strcmp(tep_data_comm_from_pid(tracecmd_get_tep(h), 43), "vcpu b"),
		      "tdw_cmdlines");
		tracecmd_close(h);
	}
	CHECK(check_trailer(path), "tdw_meta_trailer");
	unlink(path);
	test_around();
	return CHECK_DONE();
}
