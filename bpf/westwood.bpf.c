// SPDX-License-Identifier: GPL-2.0
/*
 * Westwood+ (Grieco & Mascolo, ACM CCR 34(2), 2004) as a kernel congestion control,
 * airtcp_westwood. The rules are those of airtcp's simulated `westwood+`:
 *
 * - bytes delivered per ACK: a duplicate ACK counts one MSS; a cumulative ACK counts what it
 *   acknowledges less what earlier duplicates already counted;
 * - one bandwidth sample per smoothed RTT: once at least SRTT has passed since the window
 *   opened, b = bytes delivered in it / its length, and BWE = 0.9 BWE + 0.1 b (the first
 *   sample sets BWE);
 * - window growth is Reno's;
 * - on three duplicate ACKs or a timeout, ssthresh = max(BWE x RTTmin, 2 segments), with
 *   RTTmin the smallest RTT sample of the connection. The kernel's recovery (PRR) then brings
 *   cwnd to ssthresh, and a timeout sets cwnd to one segment.
 */
#include "airtcp_cc.h"

char _license[] SEC("license") = "GPL";

/* EWMA weight of the old estimate, in tenths (Grieco & Mascolo's 0.9). */
#define ALPHA_TENTHS 9

struct westwood {
	__u64 bwe;          /* bytes per second; 0 before the first sample */
	__u64 win_bytes;    /* bytes delivered in the open window */
	__u64 win_start_us; /* when the open window opened; 0 before the first ACK */
	__u32 snd_una;      /* snd_una after the previous ACK */
	__u32 accounted;    /* bytes duplicate ACKs announced, not yet cumulatively acked */
	__u32 rtt_min_us;   /* smallest RTT sample; 0 before one */
};

/* What the last reduction of a connection was made of, for user space to check. */
struct westwood_record {
	__u64 bwe;
	__u32 rtt_min_us;
	__u32 ssthresh;
	__u32 mss;
	__u32 reductions;
	__u64 samples;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct westwood_record);
} ww_records SEC(".maps");

static __always_inline struct westwood_record *record(struct sock *sk)
{
	__u32 key = conn_key(sk);
	struct westwood_record *r = bpf_map_lookup_elem(&ww_records, &key);

	if (!r) {
		struct westwood_record zero = {};

		bpf_map_update_elem(&ww_records, &key, &zero, BPF_ANY);
		r = bpf_map_lookup_elem(&ww_records, &key);
	}
	return r;
}

SEC("struct_ops/ww_init")
void BPF_PROG(ww_init, struct sock *sk)
{
	struct westwood *w = ca_priv(sk);

	w->bwe = 0;
	w->win_bytes = 0;
	w->win_start_us = 0;
	w->snd_una = tcp_sk(sk)->snd_una;
	w->accounted = 0;
	w->rtt_min_us = 0;
	/* A new connection on a reused port starts a new record. */
	__u32 key = conn_key(sk);
	struct westwood_record zero = {};

	bpf_map_update_elem(&ww_records, &key, &zero, BPF_ANY);
}

/* Bytes this ACK reports delivered (the simulated scheme's rule). A non-advancing ACK that
 * moves the window is a window update, not a duplicate (the kernel's own test), and reports
 * nothing. */
static __always_inline __u32 delivered(struct sock *sk, struct westwood *w, __u32 flags)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 advance = tp->snd_una - w->snd_una;
	__u32 d;

	w->snd_una = tp->snd_una;
	if (advance == 0 && (flags & CA_ACK_WIN_UPDATE))
		return 0;
	if (advance == 0) {
		w->accounted += tp->mss_cache;
		return tp->mss_cache;
	}
	d = advance > w->accounted ? advance - w->accounted : 0;
	w->accounted = w->accounted > advance ? w->accounted - advance : 0;
	return d;
}

SEC("struct_ops/ww_in_ack_event")
void BPF_PROG(ww_in_ack_event, struct sock *sk, __u32 flags)
{
	struct westwood *w = ca_priv(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 now = tp->tcp_mstamp;
	__u32 srtt = tp->srtt_us >> 3;
	__u64 elapsed, b;

	w->win_bytes += delivered(sk, w, flags);
	if (w->win_start_us == 0) {
		w->win_start_us = now;
		return;
	}
	elapsed = now - w->win_start_us;
	if (srtt == 0 || elapsed < srtt || elapsed == 0)
		return;
	b = w->win_bytes * USEC_PER_SEC / elapsed;
	if (w->bwe == 0)
		w->bwe = b;
	else
		w->bwe = (ALPHA_TENTHS * w->bwe + (10 - ALPHA_TENTHS) * b) / 10;
	w->win_start_us = now;
	w->win_bytes = 0;

	struct westwood_record *r = record(sk);

	if (r)
		r->samples++;
}

SEC("struct_ops/ww_pkts_acked")
void BPF_PROG(ww_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct westwood *w = ca_priv(sk);
	__s32 rtt = sample->rtt_us;

	if (rtt > 0 && (w->rtt_min_us == 0 || (__u32)rtt < w->rtt_min_us))
		w->rtt_min_us = rtt;
}

SEC("struct_ops/ww_ssthresh")
__u32 BPF_PROG(ww_ssthresh, struct sock *sk)
{
	struct westwood *w = ca_priv(sk);
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u64 target = w->bwe * w->rtt_min_us / USEC_PER_SEC / mss;
	__u32 ssthresh = target < 2 ? 2 : (__u32)target;
	struct westwood_record *r = record(sk);

	if (r) {
		r->bwe = w->bwe;
		r->rtt_min_us = w->rtt_min_us;
		r->ssthresh = ssthresh;
		r->mss = mss;
		r->reductions++;
	}
	return ssthresh;
}

SEC("struct_ops/ww_cong_avoid")
void BPF_PROG(ww_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops/ww_undo_cwnd")
__u32 BPF_PROG(ww_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops airtcp_westwood = {
	.init = (void *)ww_init,
	.in_ack_event = (void *)ww_in_ack_event,
	.pkts_acked = (void *)ww_pkts_acked,
	.ssthresh = (void *)ww_ssthresh,
	.cong_avoid = (void *)ww_cong_avoid,
	.undo_cwnd = (void *)ww_undo_cwnd,
	.name = "airtcp_westwood",
};
