/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef HS_TRACEDAT_FILE_H
#define HS_TRACEDAT_FILE_H

/*
 * A parsed trace.dat as the page decoder of tracedat_decode.c sees it, filled
 * by the v6 parser there or by the v7 one (tracedat_v7.c). Not a public
 * interface.
 */
#include "tracedat_internal.h"

#define TD_MAXBUFS 64
/* One compressed chunk of CPU data, inflated (trace-cmd writes 10 pages). */
#define TD_MAX_CHUNK (8u << 20)
/* All the CPUs' chunk windows together. */
#define TD_MAX_CHUNKS_TOTAL (256ull << 20)

/* One CPU's compressed chunks: a count (4), then per chunk c (4), u (4), data. */
struct td_chunks {
	uint64_t start, end;	/* file offsets: first chunk header, end of the chunks */
	uint32_t count;
	uint32_t max;		/* largest inflated chunk, where the headers were walked */
};

/*
 * A chunked CPU's inflated size, until its last chunk is inflated: only
 * hs_td_v7_check() walks every chunk header first, the decoder learns the
 * size at the end of the CPU's data (tracedat_decode.c).
 */
#define TD_SIZE_UNKNOWN UINT64_MAX

struct td_buf {
	char name[HS_META_STR];
	uint64_t *off, *size;	/* per CPU: pages in the file; size inflated when chunked */
	struct td_chunks *chunks;	/* per CPU, or NULL: the pages are in the file as they are */
};

struct td_inflater;

struct td_file {
	const unsigned char *buf;
	size_t len, pos;
	const char *sect;	/* section being parsed from buf (v7), NULL: the file */
	struct hs_error *err;
	bool swap, big;
	int version;
	int long_size;
	uint32_t page_size;
	int ncpus;
	struct tep_handle *tep;
	struct hs_ev_layout lay;
	const char *cmd;	/* saved cmdlines */
	size_t cmd_len;
	const char *uname;
	size_t uname_len;
	char *cpustat;		/* CPUSTAT options, concatenated */
	size_t cpustat_len;
	char clock[32];
	char comp[64];		/* v7 compression algorithm */
	uint64_t first_options;	/* v7: the first options section */
	uint64_t data_end;	/* end of the trace data: a haltstat trailer starts after it */
	struct td_inflater *z;	/* chunk inflater (v7 compressed) */
	struct td_buf bufs[TD_MAXBUFS];	/* [0] = top buffer */
	uint64_t buf_opt[TD_MAXBUFS];	/* instance flyrecord offsets (v6) */
	int nbufs;
};

/* An n-byte number in the file's byte order. */
static inline uint64_t hs_td_get(const struct td_file *f, const unsigned char *p, int n)
{
	uint64_t v = 0;

	if (f->big)
		for (int i = 0; i < n; i++)
			v = (v << 8) | p[i];
	else
		for (int i = n - 1; i >= 0; i--)
			v = (v << 8) | p[i];
	return v;
}

/* Bounded reads at f->pos (tracedat_parse.c). */
int hs_td_trunc(struct td_file *f, const char *what);
bool hs_td_has(const struct td_file *f, uint64_t n);
int hs_td_num(struct td_file *f, int n, uint64_t *v, const char *what);
int hs_td_blob(struct td_file *f, int nlen, size_t *off, size_t *len, const char *what);

/* The fixed header (hs_td_head_parse) into f; f->pos after it. */
int hs_td_fixed_header(struct td_file *f);
/* header_page + header_event; ftrace formats; event systems (at f->pos). */
int hs_td_header_page(struct td_file *f);
int hs_td_ftrace_formats(struct td_file *f);
int hs_td_event_formats(struct td_file *f);
/* Options both versions share: CPUSTAT, TRACECLOCK, UNAME. */
int hs_td_option(struct td_file *f, unsigned int id, size_t off, size_t len);
/* "[local] global counter" or a bare name -> "local" in dst */
void hs_td_clock(char *dst, size_t size, const unsigned char *p, size_t n);
int hs_td_overlap(struct td_file *f, const struct td_buf *b);
/* b's per-CPU offsets and sizes, zeroed, for f->ncpus CPUs. */
int hs_td_buf_alloc(struct td_file *f, struct td_buf *b);
/* v6: everything up to the CPU data, and where each buffer's pages are. */
int hs_td_v6_parse(struct td_file *f);
/*
 * Layout, metadata, then every page through the sink, in two halves of its
 * time where that pays; frees nothing (tracedat_split.c).
 */
int hs_td_run(struct td_file *f, int fd, struct hs_sink *s);
void hs_td_file_free(struct td_file *f);

/* v7 inflation (tracedat_chunks.c). fd: pread the chunks from it, or -1: the mapping. */
enum { HS_TD_Z_NONE, HS_TD_Z_ZSTD, HS_TD_Z_ZLIB };
/* A compressed chunk: what zstd or zlib may make of the largest inflated one. */
#define TD_MAX_ZCHUNK (TD_MAX_CHUNK + (TD_MAX_CHUNK >> 6) + 4096)
struct td_inflater *hs_td_inflater_alloc(int fd);
/* Inflates chunks once for both readers of the file, through share (NULL: alone). */
struct hs_td_share;
void hs_td_inflater_share(struct td_inflater *z, struct hs_td_share *share);
int hs_td_inflater_set(struct td_inflater *z, int alg);
int hs_td_inflater_alg(const struct td_inflater *z);
/*
 * n bytes of the file at off (already checked to be in it): copied into
 * small, or else where z holds them until its next read; or mapped.
 */
const unsigned char *hs_td_bytes(const struct td_file *f, uint64_t off, size_t n,
				 unsigned char *small);
/* The chunk streams read in turns (a CPU's each): z's read blocks are laid out for them. */
void hs_td_inflater_streams(struct td_inflater *z, unsigned int streams);
/* Exactly dlen bytes out of src, or -1. */
int hs_td_inflate(struct td_inflater *z, unsigned char *dst, size_t dlen,
		  const unsigned char *src, size_t slen);
/*
 * The header of the chunk at pos, whose CPU's chunks end at end: its
 * compressed and inflated sizes, checked against end, the file and the
 * ceilings; -1: bad (the message is kept for hs_td_chunk_error).
 */
int hs_td_chunk_head(const struct td_file *f, uint64_t pos, uint64_t end, uint32_t *c,
		     uint32_t *u);
/*
 * The next chunk of ch (pos/left advanced) inflated into *win at *len,
 * growing *win (*cap) as needed. 1: done, 0: no chunk left, -1: corrupt or
 * out of memory (the message is kept for hs_td_chunk_error).
 */
int hs_td_chunk_next(const struct td_file *f, const struct td_chunks *ch, uint64_t *pos,
		     uint32_t *left, unsigned char **win, size_t *len, size_t *cap);
/* A window hs_td_chunk_next grew, freed (it counts them all). */
void hs_td_chunk_window_free(const struct td_file *f, unsigned char *win, size_t cap);
int hs_td_chunk_error(const struct td_file *f);
void hs_td_inflater_free(struct td_inflater *z);

/* v7 from the mapped bytes (fd: the file, or -1). HS_TD_V7_FALLBACK: compression not ours. */
#define HS_TD_V7_FALLBACK (-100)
extern bool hs_td_v7_fallback;	/* false: an error instead (fuzzing: no fork) */
int hs_td_v7_read(const unsigned char *buf, size_t len, int fd, struct hs_sink *sink,
		  struct hs_td_share *share, struct hs_error *err);
/*
 * The same parse without decoding, for a file libtracecmd is to read: it
 * trusts every size in the file, so every section, chunk and uncompressed
 * page is checked first.
 */
int hs_td_v7_check(const unsigned char *buf, size_t len, struct hs_error *err);

#endif
