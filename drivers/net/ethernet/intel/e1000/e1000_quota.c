// SPDX-License-Identifier: GPL-2.0
/* e1000 adaptive NAPI quota: let the quota follow the work the packet stream
 * creates. Tested by KUnit.
 */
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "e1000_quota.h"

/**
 * e1000_quota_sample - feed one poll's cost to the controller
 * @ctl: controller state
 * @start_ns: when the poll started
 * @end_ns: when it ended
 * @pkts: RX packets it handled
 *
 * A poll without packets, or whose clock did not move forward, says nothing
 * about the cost of a packet and is ignored. The first sample is taken as
 * is; later ones move the EWMA by 1/2^E1000_QUOTA_EWMA_SHIFT of the
 * difference. The cost is capped, so the EWMA cannot overflow.
 */
void e1000_quota_sample(struct e1000_quota_ctl *ctl, u64 start_ns, u64 end_ns,
			unsigned int pkts)
{
	u64 cost;

	if (!pkts || end_ns <= start_ns)
		return;

	cost = div_u64(end_ns - start_ns, pkts);
	cost = min(cost, E1000_QUOTA_COST_MAX_NS) << E1000_QUOTA_FRAC;
	cost = max(cost, 1ULL);	/* 0 means "no sample yet" */
	if (!ctl->ewma)
		ctl->ewma = cost;
	else
		ctl->ewma = ctl->ewma - (ctl->ewma >> E1000_QUOTA_EWMA_SHIFT) +
			    (cost >> E1000_QUOTA_EWMA_SHIFT);
	ctl->ewma = max(ctl->ewma, 1ULL);
}

/**
 * e1000_quota_calc - the quota of the next poll
 * @ctl: controller state
 * @target_ns: how long a poll should take
 * @quota_min: the smallest quota
 * @budget: what NAPI passed (the weight): always the upper bound
 *
 * The quota that fits @target_ns is rarely a whole number of packets, and
 * where a packet costs a large part of the target, always rounding it down
 * keeps every poll a packet short of the target: with 47 us of fixed cost
 * a poll and 39 us a packet, a 125 us target asks for 2.0 packets, and any
 * sample above the mean makes it 1 for good. So the fraction left out is
 * carried to the next poll (@ctl->carry), and the quotas average what the
 * cost asks for. A clamped quota carries nothing; a poll that ends before
 * its quota still passes the carry on (less than a packet).
 *
 * Return: clamp(target_ns / cost per packet, quota_min, budget), rounded
 * down after adding the carried fraction; the budget before the first
 * sample, and never more than the budget even when @quota_min is larger.
 */
unsigned int e1000_quota_calc(struct e1000_quota_ctl *ctl,
			      unsigned int target_ns, unsigned int quota_min,
			      unsigned int budget)
{
	u64 want, whole, q;

	if (!ctl->ewma) {
		ctl->carry = 0;
		return budget;
	}

	/* packets << E1000_QUOTA_FRAC, rounded to nearest (rounding down
	 * would drain the carry): (2^32 << 16) + ewma / 2 fits in a u64
	 */
	want = div64_u64(((u64)target_ns << (2 * E1000_QUOTA_FRAC)) +
			 ctl->ewma / 2, ctl->ewma);
	want += ctl->carry;
	whole = want >> E1000_QUOTA_FRAC;
	q = clamp_t(u64, whole, min(quota_min, budget), budget);
	ctl->carry = q == whole ? want & (BIT_ULL(E1000_QUOTA_FRAC) - 1) : 0;
	return q;
}
