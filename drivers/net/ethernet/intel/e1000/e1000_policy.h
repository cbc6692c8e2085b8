/* SPDX-License-Identifier: GPL-2.0 */
/* e1000 RX policy: when to give descriptors back, how a poll used its quota.
 *
 * Pure functions of their arguments: no adapter, no ring, no register access,
 * so that every decision can be tested on its own. The ring walking in
 * e1000_main.c feeds them indices and counts and applies the answer. Inline:
 * they run once per packet or per refill, and a call into another file would
 * cost more than they do.
 */
#ifndef _E1000_POLICY_H_
#define _E1000_POLICY_H_

#include <linux/types.h>

/* Upstream's fixed E1000_RX_BUFFER_WRITE: the default refill batch. */
#define E1000_RX_REFILL_BATCH_DEFAULT	16

/**
 * enum e1000_napi_hist - share of the quota one poll used
 * @E1000_NAPI_HIST_0: no packet
 * @E1000_NAPI_HIST_1_25: more than 0, at most 25 %
 * @E1000_NAPI_HIST_26_50: more than 25 %, at most 50 %
 * @E1000_NAPI_HIST_51_75: more than 50 %, at most 75 %
 * @E1000_NAPI_HIST_76_99: more than 75 %, less than 100 %
 * @E1000_NAPI_HIST_100: the whole quota
 * @E1000_NAPI_HIST_NUM: number of buckets
 */
enum e1000_napi_hist {
	E1000_NAPI_HIST_0,
	E1000_NAPI_HIST_1_25,
	E1000_NAPI_HIST_26_50,
	E1000_NAPI_HIST_51_75,
	E1000_NAPI_HIST_76_99,
	E1000_NAPI_HIST_100,
	E1000_NAPI_HIST_NUM,
};

/**
 * e1000_rx_refill_due - hand cleaned descriptors back to the NIC now?
 * @cleaned: descriptors cleaned since the last refill
 * @batch: the rx_refill_batch setting; 0 means only once the poll's work
 *         is done (the 2005 driver), N means every N descriptors
 *
 * Asked once per packet, hence inline. The end-of-poll refill always
 * happens and is not decided here.
 */
static inline bool e1000_rx_refill_due(unsigned int cleaned, unsigned int batch)
{
	return batch && cleaned >= batch;
}

/**
 * e1000_rx_refill_batch_valid - is @batch a valid rx_refill_batch?
 * @batch: 0 (after the poll) or 1..@ring_count
 * @ring_count: descriptors in the RX ring
 */
static inline bool e1000_rx_refill_batch_valid(unsigned int batch,
					       unsigned int ring_count)
{
	return batch <= ring_count;
}

/**
 * e1000_rx_last_hw_desc - index of the last descriptor the NIC may fill
 * @ring_count: descriptors in the RX ring (at least 2)
 * @next_to_use: the driver's next_to_use
 *
 * The NIC owns [RDH, RDT) and e1000 writes RDT = next_to_use - 1, so the
 * last descriptor it can fill is next_to_use - 2, modulo the ring.
 */
static inline unsigned int e1000_rx_last_hw_desc(unsigned int ring_count,
						 unsigned int next_to_use)
{
	return next_to_use >= 2 ? next_to_use - 2 : next_to_use + ring_count - 2;
}

/**
 * e1000_rx_ring_exhausted - had the NIC run out of descriptors?
 * @ring_count: descriptors in the RX ring
 * @next_to_clean: the first descriptor the driver has not cleaned
 * @next_to_use: the driver's next_to_use, before the refill
 * @last_hw_desc_done: DD is set in e1000_rx_last_hw_desc()'s descriptor
 *
 * Asked just before a refill moves the tail. The NIC was left with no free
 * descriptor if it has written back the last one it owned: either that
 * descriptor is done and not yet cleaned, or the driver has already cleaned
 * everything up to it, leaving at most the one descriptor at RDT (which the
 * NIC never owns) between next_to_clean and next_to_use. No register read:
 * one look at a descriptor in coherent memory per refill.
 */
static inline bool e1000_rx_ring_exhausted(unsigned int ring_count,
					   unsigned int next_to_clean,
					   unsigned int next_to_use,
					   bool last_hw_desc_done)
{
	unsigned int in_use = next_to_use - next_to_clean;

	if (next_to_use < next_to_clean)
		in_use += ring_count;
	return last_hw_desc_done || in_use <= 1;
}

/**
 * e1000_napi_hist_bucket - bucket of the share of @quota that @work used
 * @work: packets the poll handled
 * @quota: the poll's quota, at least 1
 *
 * Bounds are exact fractions (no rounding): 25 % is in 1_25, 25.5 % in 26_50.
 */
static inline enum e1000_napi_hist
e1000_napi_hist_bucket(unsigned int work, unsigned int quota)
{
	u64 w = work, q = quota;

	if (!work)
		return E1000_NAPI_HIST_0;
	if (work >= quota)
		return E1000_NAPI_HIST_100;
	if (4 * w <= q)
		return E1000_NAPI_HIST_1_25;
	if (2 * w <= q)
		return E1000_NAPI_HIST_26_50;
	if (4 * w <= 3 * q)
		return E1000_NAPI_HIST_51_75;
	return E1000_NAPI_HIST_76_99;
}

#endif /* _E1000_POLICY_H_ */
