/* SPDX-License-Identifier: GPL-2.0 */
/* e1000 adaptive NAPI quota.
 *
 * Integer functions of their arguments and of the controller state they are
 * given (no adapter, no clock, no register), tested by the e1000_quota KUnit
 * suite: the driver feeds each poll's duration and packet count and applies
 * the answers.
 */
#ifndef _E1000_QUOTA_H_
#define _E1000_QUOTA_H_

#include <linux/types.h>

/* EWMA weight 1/2^E1000_QUOTA_EWMA_SHIFT; costs kept with FRAC bits. */
#define E1000_QUOTA_EWMA_SHIFT		2
#define E1000_QUOTA_FRAC		8
/* A per-packet cost above this (10 ms) is taken as this. */
#define E1000_QUOTA_COST_MAX_NS		10000000ULL

#define E1000_POLL_TARGET_USECS_DEFAULT	500
#define E1000_QUOTA_MIN_DEFAULT		8

/**
 * struct e1000_quota_ctl - what the controller remembers
 * @ewma: ns per packet, << E1000_QUOTA_FRAC; 0 until the first sample
 * @carry: the fraction of a packet the last quota left out,
 *	<< E1000_QUOTA_FRAC
 */
struct e1000_quota_ctl {
	u64 ewma;
	u32 carry;
};

void e1000_quota_sample(struct e1000_quota_ctl *ctl, u64 start_ns, u64 end_ns,
			unsigned int pkts);
unsigned int e1000_quota_calc(struct e1000_quota_ctl *ctl,
			      unsigned int target_ns, unsigned int quota_min,
			      unsigned int budget);

/**
 * enum e1000_poll_end - how a poll ends
 * @E1000_POLL_REPOLL: return the budget and stay on the poll list, as NAPI
 *	requires when the whole budget was used (or TX is not yet clean)
 * @E1000_POLL_RESCHEDULE: the adaptive quota, below the budget, was used
 *	and packets are waiting: return the packets handled, complete and
 *	schedule again, the interrupt still masked
 * @E1000_POLL_DONE: complete and unmask the interrupt
 */
enum e1000_poll_end {
	E1000_POLL_REPOLL,
	E1000_POLL_RESCHEDULE,
	E1000_POLL_DONE,
};

/**
 * e1000_poll_end_of - how a poll that handled @work RX packets ends
 * @budget: what NAPI passed (0 for netpoll)
 * @quota: the poll's quota, at most @budget; @budget unless adaptive
 * @work: RX packets handled, at most @quota
 * @tx_clean: e1000_clean_tx_irq() cleaned everything it found
 *
 * With @quota == @budget this is upstream e1000_clean()'s rule. A quota
 * below the budget never makes the poll claim more work than it did: the
 * core charges net_rx_action()'s budget, time_squeeze and the napi_poll
 * tracepoint with what the poll returns.
 */
static inline enum e1000_poll_end e1000_poll_end_of(int budget, int quota,
						    int work, bool tx_clean)
{
	if (!tx_clean || work >= budget)
		return E1000_POLL_REPOLL;
	if (work >= quota)
		return E1000_POLL_RESCHEDULE;
	return E1000_POLL_DONE;
}

/* The EWMA in ns per packet, for the e1000_napi_poll tracepoint. */
static inline unsigned int
e1000_quota_ns_per_pkt(const struct e1000_quota_ctl *ctl)
{
	return ctl->ewma >> E1000_QUOTA_FRAC;
}

#endif /* _E1000_QUOTA_H_ */
