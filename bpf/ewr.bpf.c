// SPDX-License-Identifier: GPL-2.0
/*
 * TCP EWR (Ryoo & Kim, "Transmission Control for Future Internet including Error-prone
 * Wireless Region") as a kernel congestion control, airtcp_ewr.
 *
 * The paper computes oCwnd at the receiver (Eqs. 1-3) and advertises it as the receive
 * window; a kernel congestion control runs at the sender and cannot change what the peer
 * advertises, so the same equations run here on the ACK stream, which returns the data's
 * arrival spacing:
 *
 * - Eq. 1 per ACK: Bw_sample = d / (t - t_prev), d the bytes the ACK reports delivered (a
 *   duplicate ACK one MSS, a window update (opening the window or carrying data) none, a
 *   cumulative ACK its advance less what duplicates already counted), over at least
 *   RTT_min / 8: the kernel takes ACKs in batches (a socket's backlog while the sending
 *   process holds it, a softirq's run), so consecutive ACKs can be
 *   microseconds apart though their segments arrived a packet time apart; ACKs closer than
 *   that join the next sample. The first ACK only starts the clock;
 * - Eq. 2: Bw_est = 0.7 Bw_est + 0.3 Bw_sample, the first sample taken whole (delta_1 = 0);
 * - Eq. 3: oCwnd = RTT_min x Bw_est / MSS segments, at least 2, RTT_min the smallest RTT
 *   sample.
 *
 * (b) on each ACK outside loss recovery cwnd = oCwnd (two segments until the first estimate,
 * the simulated receiver's advertisement before it has one); no slow start.
 * (c) on three duplicate ACKs or a timeout, with x = (cwnd/RTT_min - cwnd/SRTT) x RTT_min
 * segments: x < alpha (1): linear increase, x <= beta (9): wait-and-see, else congestion.
 * The kernel's hook returns only ssthresh, the window its recovery (PRR) steers cwnd to, so
 * the branch's usable window (the simulated sender sends min(cwnd, oCwnd)) is returned:
 * min(cwnd + 2, oCwnd), min(cwnd, oCwnd), and 1 segment.
 */
#include "airtcp_cc.h"

char _license[] SEC("license") = "GPL";

/* Eq. 2's delta = 0.7 and the thresholds alpha = 1, beta = 9 (segments, in thousandths). */
#define DELTA_TENTHS 7
#define ALPHA_MILLI 1000
#define BETA_MILLI 9000
/* Eq. 1's shortest interval: RTT_min / 8 (1 ms before an RTT sample). */
#define MIN_GAP_DIV 8

struct ewr {
	__u64 est;         /* Bw_est, bytes per second; 0 before the first sample */
	__u64 last_ack_us; /* arrival of the previous ACK; 0 before the first */
	__u32 pending;     /* bytes of ACKs merged into the next sample */
	__u32 snd_una;
	__u32 accounted;
	__u32 rtt_min_us;
	__u32 first;       /* d of the first ACK, which only starts the clock */
};

enum { EWR_LINEAR, EWR_WAIT, EWR_CONGESTION };

struct ewr_record {
	__u64 est;
	__u32 rtt_min_us;
	__u32 ocwnd;       /* segments, the latest Eq. 3 */
	__u32 mss;
	__s32 last_x_milli;
	__u32 last_ssthresh;
	__u32 branches[3]; /* losses by branch of (c) */
	__u64 samples;
	__u64 est_sum;     /* Bw_est summed over the samples, for its mean */
	__u64 sampled_bytes; /* Eq. 1's d summed over the samples */
	__u64 sampled_us;    /* and their intervals */
	__u64 unsampled;     /* d of the first ACK and of those pending now */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct ewr_record);
} ewr_records SEC(".maps");

static __always_inline struct ewr_record *record(struct sock *sk)
{
	__u32 key = conn_key(sk);
	struct ewr_record *r = bpf_map_lookup_elem(&ewr_records, &key);

	if (!r) {
		struct ewr_record zero = {};

		bpf_map_update_elem(&ewr_records, &key, &zero, BPF_ANY);
		r = bpf_map_lookup_elem(&ewr_records, &key);
	}
	return r;
}

/* Eq. 3 in segments; 0 while the estimate or RTT_min is missing. */
static __always_inline __u32 ocwnd(struct sock *sk, struct ewr *e)
{
	__u32 mss = tcp_sk(sk)->mss_cache ? tcp_sk(sk)->mss_cache : 1;
	__u64 w;

	if (e->est == 0 || e->rtt_min_us == 0)
		return 0;
	w = e->est * e->rtt_min_us / USEC_PER_SEC / mss;
	return w < 2 ? 2 : (__u32)w;
}

SEC("struct_ops/ewr_init")
void BPF_PROG(ewr_init, struct sock *sk)
{
	struct ewr *e = ca_priv(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 key = conn_key(sk);
	struct ewr_record zero = {};

	e->est = 0;
	e->last_ack_us = 0;
	e->pending = 0;
	e->snd_una = tp->snd_una;
	e->accounted = 0;
	e->rtt_min_us = 0;
	e->first = 0;
	tp->snd_cwnd = 2;
	bpf_map_update_elem(&ewr_records, &key, &zero, BPF_ANY);
}

SEC("struct_ops/ewr_in_ack_event")
void BPF_PROG(ewr_in_ack_event, struct sock *sk, __u32 flags)
{
	struct ewr *e = ca_priv(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 now = tp->tcp_mstamp;
	__u32 advance = tp->snd_una - e->snd_una;
	__u64 d, sample, gap;

	e->snd_una = tp->snd_una;
	if (advance == 0 && (flags & CA_ACK_WIN_UPDATE)) {
		/* A window update, not a duplicate (the kernel's own test): nothing delivered. */
		d = 0;
	} else if (advance == 0) {
		d = tp->mss_cache;
		e->accounted += tp->mss_cache;
	} else {
		d = advance > e->accounted ? advance - e->accounted : 0;
		e->accounted = e->accounted > advance ? e->accounted - advance : 0;
	}
	if (e->last_ack_us == 0) {
		e->last_ack_us = now;
		e->first = d;
		return;
	}
	/* ACKs closer than the shortest sample interval join the next sample. */
	gap = e->rtt_min_us ? e->rtt_min_us / MIN_GAP_DIV : 1000;
	if (now < e->last_ack_us + gap) {
		struct ewr_record *r = record(sk);

		e->pending += d;
		if (r)
			r->unsampled = e->first + e->pending;
		return;
	}
	d += e->pending;
	gap = now - e->last_ack_us;
	sample = d * USEC_PER_SEC / gap;
	e->pending = 0;
	e->last_ack_us = now;
	if (e->est == 0)
		e->est = sample;
	else
		e->est = (DELTA_TENTHS * e->est + (10 - DELTA_TENTHS) * sample) / 10;

	struct ewr_record *r = record(sk);

	if (r) {
		r->samples++;
		r->est_sum += e->est;
		r->sampled_bytes += d;
		r->sampled_us += gap;
		r->unsampled = e->first;
		r->est = e->est;
		r->rtt_min_us = e->rtt_min_us;
		r->mss = tp->mss_cache;
		r->ocwnd = ocwnd(sk, e);
	}
}

SEC("struct_ops/ewr_pkts_acked")
void BPF_PROG(ewr_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct ewr *e = ca_priv(sk);
	__s32 rtt = sample->rtt_us;

	if (rtt > 0 && (e->rtt_min_us == 0 || (__u32)rtt < e->rtt_min_us))
		e->rtt_min_us = rtt;
}

SEC("struct_ops/ewr_cong_avoid")
void BPF_PROG(ewr_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct ewr *e = ca_priv(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 w = ocwnd(sk, e);

	if (w == 0)
		return;
	tp->snd_cwnd = w < tp->snd_cwnd_clamp ? w : tp->snd_cwnd_clamp;
}

SEC("struct_ops/ewr_ssthresh")
__u32 BPF_PROG(ewr_ssthresh, struct sock *sk)
{
	struct ewr *e = ca_priv(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd;
	__u32 srtt = tp->srtt_us >> 3;
	__u32 w = ocwnd(sk, e);
	__s64 x = 0;
	__u32 ret;
	int branch;

	if (w == 0)
		w = cwnd;
	/* x = cwnd (1 - RTT_min / SRTT) segments, in thousandths. */
	if (e->rtt_min_us && srtt)
		x = (__s64)cwnd * 1000 - (__s64)cwnd * 1000 * e->rtt_min_us / srtt;
	if (x < ALPHA_MILLI) {
		branch = EWR_LINEAR;
		ret = cwnd + 2 < w ? cwnd + 2 : w;
	} else if (x <= BETA_MILLI) {
		branch = EWR_WAIT;
		ret = cwnd < w ? cwnd : w;
	} else {
		branch = EWR_CONGESTION;
		ret = 1;
	}

	struct ewr_record *r = record(sk);

	if (r) {
		r->rtt_min_us = e->rtt_min_us;
		r->ocwnd = w;
		r->mss = tp->mss_cache;
		r->last_x_milli = x;
		r->last_ssthresh = ret;
		if (branch == EWR_LINEAR)
			r->branches[EWR_LINEAR]++;
		else if (branch == EWR_WAIT)
			r->branches[EWR_WAIT]++;
		else
			r->branches[EWR_CONGESTION]++;
	}
	return ret;
}

SEC("struct_ops/ewr_undo_cwnd")
__u32 BPF_PROG(ewr_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops airtcp_ewr = {
	.init = (void *)ewr_init,
	.in_ack_event = (void *)ewr_in_ack_event,
	.pkts_acked = (void *)ewr_pkts_acked,
	.cong_avoid = (void *)ewr_cong_avoid,
	.ssthresh = (void *)ewr_ssthresh,
	.undo_cwnd = (void *)ewr_undo_cwnd,
	.name = "airtcp_ewr",
};
