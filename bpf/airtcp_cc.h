/* Shared definitions of airtcp's BPF congestion controls (struct_ops tcp_congestion_ops). */
#ifndef AIRTCP_CC_H
#define AIRTCP_CC_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define USEC_PER_SEC 1000000ULL

/* The kernel's Reno helpers, exported to struct_ops programs as kfuncs. */
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline void *ca_priv(const struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* The connection's local port: the key of the per-connection records user space reads. */
static __always_inline __u32 conn_key(const struct sock *sk)
{
	return sk->__sk_common.skc_num;
}

#endif
