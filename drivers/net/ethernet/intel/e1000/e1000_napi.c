// SPDX-License-Identifier: GPL-2.0
/* e1000 NAPI accounting: each poll's quota (adaptive or the budget), how
 * polls use it, how often the RX ring is refilled and found exhausted
 * (ethtool -S), and the e1000:e1000_napi_poll tracepoint.
 *
 * The ring walking sums one poll's refills in adapter->poll_acc (only the
 * NAPI poll touches it); e1000_napi_poll_end() commits the poll to the
 * counters in one u64_stats section, so the RX loop takes no lock and
 * ethtool reads a consistent set.
 */
#include "e1000.h"

#define CREATE_TRACE_POINTS
#include "e1000_trace.h"

void e1000_napi_stats_init(struct e1000_adapter *adapter)
{
	u64_stats_init(&adapter->napi_stats.syncp);
}

/* RX descriptors the NIC owns now: RDT - RDH, two MMIO reads. */
static unsigned int e1000_rx_hw_owned(struct e1000_adapter *adapter)
{
	struct e1000_rx_ring *ring = adapter->rx_ring;
	u8 __iomem *hw_addr = adapter->hw.hw_addr;
	u32 rdh = readl(hw_addr + ring->rdh);
	u32 rdt = readl(hw_addr + ring->rdt);

	return rdt >= rdh ? rdt - rdh : rdt + ring->count - rdh;
}

/**
 * e1000_napi_sample_hw - note how few RX descriptors the NIC owns
 * @adapter: board private structure
 *
 * Called by the RX clean path just before a refill, only while the
 * e1000_napi_poll tracepoint is on (poll_acc.sample_hw): the poll's minimum
 * shows whether the ring ran dry during the poll, which the sample at its
 * start cannot.
 */
void e1000_napi_sample_hw(struct e1000_adapter *adapter)
{
	struct e1000_poll_acc *acc = &adapter->poll_acc;

	acc->hw_min = min(acc->hw_min, e1000_rx_hw_owned(adapter));
}

/**
 * e1000_napi_poll_start - begin one poll: its quota, and its accounting
 * @adapter: board private structure
 * @ctx: per-poll state, on the poll's stack
 * @budget: what NAPI passed (the weight)
 *
 * With adaptive_quota off the quota is the budget. The clock is read only
 * for the adaptive quota or the tracepoint, and the descriptors owned by the
 * NIC (two register reads) only for the tracepoint.
 *
 * Return: the most RX packets this poll may handle, at most @budget.
 */
int e1000_napi_poll_start(struct e1000_adapter *adapter,
			  struct e1000_poll_ctx *ctx, int budget)
{
	bool tracing = trace_e1000_napi_poll_enabled();

	memset(&adapter->poll_acc, 0, sizeof(adapter->poll_acc));
	ctx->adaptive = READ_ONCE(adapter->adaptive_quota);
	ctx->hw_owned = 0;
	/* Registers first, then the clock: the MMIO reads (slow, and very
	 * slow under emulation) must not count as the poll's work, or
	 * enabling the tracepoint would change the adaptive quota's EWMA.
	 */
	if (tracing) {
		ctx->hw_owned = e1000_rx_hw_owned(adapter);
		adapter->poll_acc.sample_hw = true;
		adapter->poll_acc.hw_min = ctx->hw_owned;
	}
	ctx->start_ns = ctx->adaptive || tracing ? ktime_get_ns() : 0;
	if (!ctx->adaptive || budget <= 0)
		return budget;
	return e1000_quota_calc(&adapter->quota_ctl,
				READ_ONCE(adapter->poll_target_usecs) * NSEC_PER_USEC,
				READ_ONCE(adapter->quota_min), budget);
}

/**
 * e1000_napi_poll_end - commit one poll to the counters, trace it
 * @adapter: board private structure
 * @ctx: what e1000_napi_poll_start() recorded
 * @budget: what NAPI passed; 0 (netpoll) does no RX and is not counted
 * @quota: the most RX packets the poll allowed itself (adaptive or budget)
 * @work: RX packets handled
 * @complete: the poll is done and will call napi_complete_done()
 *
 * Called while the poll still owns the NAPI instance, before
 * napi_complete_done(): after it, another CPU may run e1000_clean() (an
 * interrupt, a busy poller) and race with poll_acc, the EWMA and the
 * u64_stats writer.
 */
void e1000_napi_poll_end(struct e1000_adapter *adapter,
			 const struct e1000_poll_ctx *ctx, int budget, int quota,
			 int work, bool complete)
{
	const struct e1000_poll_acc *acc = &adapter->poll_acc;
	struct e1000_napi_stats *ns = &adapter->napi_stats;
	struct e1000_quota_ctl *qc = &adapter->quota_ctl;
	enum e1000_napi_hist bucket;
	u64 end_ns = 0;

	if (!budget)
		return;

	if (ctx->start_ns)
		end_ns = ktime_get_ns();
	if (ctx->adaptive)
		e1000_quota_sample(qc, ctx->start_ns, end_ns, work);
	bucket = e1000_napi_hist_bucket(work, quota);
	u64_stats_update_begin(&ns->syncp);
	u64_stats_inc(&ns->v[E1000_NS_POLLS]);
	u64_stats_add(&ns->v[E1000_NS_WORK], work);
	if (work >= quota)
		u64_stats_inc(&ns->v[E1000_NS_QUOTA_FULL]);
	if (complete)
		u64_stats_inc(&ns->v[E1000_NS_COMPLETE]);
	u64_stats_inc(&ns->v[E1000_NS_HIST_0 + bucket]);
	u64_stats_add(&ns->v[E1000_NS_REFILLS], acc->refills);
	u64_stats_add(&ns->v[E1000_NS_REFILL_DESCS], acc->refill_descs);
	u64_stats_add(&ns->v[E1000_NS_RING_EXHAUSTED], acc->ring_exhausted);
	u64_stats_update_end(&ns->syncp);

	/* A poll during which the event was enabled took no samples at its
	 * start (no hw_owned, no clock): it is not traced, rather than traced
	 * with a ring that looks dry.
	 */
	if (acc->sample_hw && trace_e1000_napi_poll_enabled())
		trace_e1000_napi_poll(adapter->netdev, budget, quota, work,
				      acc->refills, ctx->hw_owned, acc->hw_min,
				      end_ns - ctx->start_ns,
				      e1000_quota_ns_per_pkt(qc));
}

/**
 * e1000_napi_stats_fetch - a consistent copy of the counters
 * @adapter: board private structure
 * @out: E1000_NS_NUM values, indexed by enum e1000_napi_stat
 */
void e1000_napi_stats_fetch(struct e1000_adapter *adapter, u64 *out)
{
	const struct e1000_napi_stats *ns = &adapter->napi_stats;
	unsigned int start, i;

	do {
		start = u64_stats_fetch_begin(&ns->syncp);
		for (i = 0; i < E1000_NS_NUM; i++)
			out[i] = u64_stats_read(&ns->v[i]);
	} while (u64_stats_fetch_retry(&ns->syncp, start));
}
