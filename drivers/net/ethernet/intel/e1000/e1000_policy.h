/* SPDX-License-Identifier: GPL-2.0 */
/* e1000 RX policy: when to give descriptors back, how a poll used its quota.
 *
 * Pure functions of their arguments: no adapter, no ring, no register access,
 * so that KUnit can test every decision (e1000_policy_kunit.c). The ring
 * walking in e1000_main.c feeds them indices and counts and applies the answer.
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

bool e1000_rx_refill_batch_valid(unsigned int batch, unsigned int ring_count);
bool e1000_rx_ring_exhausted(unsigned int ring_count, unsigned int next_to_clean,
			     unsigned int next_to_use, bool last_hw_desc_done);
unsigned int e1000_rx_last_hw_desc(unsigned int ring_count,
				   unsigned int next_to_use);
enum e1000_napi_hist e1000_napi_hist_bucket(unsigned int work,
					    unsigned int quota);

#endif /* _E1000_POLICY_H_ */
