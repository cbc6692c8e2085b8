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

/* The EWMA in ns per packet, for ethtool -S and the tracepoint. */
static inline unsigned int
e1000_quota_ns_per_pkt(const struct e1000_quota_ctl *ctl)
{
	return ctl->ewma >> E1000_QUOTA_FRAC;
}

#endif /* _E1000_QUOTA_H_ */
