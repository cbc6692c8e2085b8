// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the e1000 RX policy (e1000_policy.h) and quota controller. */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "e1000_policy.h"
#include "e1000_quota.h"

struct refill_case {
	const char *desc;
	unsigned int cleaned, batch;
	bool due;
};

static const struct refill_case refill_cases[] = {
	{ "N=0 never mid-poll, 0 cleaned", 0, 0, false },
	{ "N=0 never mid-poll, 1 cleaned", 1, 0, false },
	{ "N=0 never mid-poll, 1024 cleaned (largest weight)", 1024, 0, false },
	{ "N=1, 0 cleaned", 0, 1, false },
	{ "N=1, 1 cleaned", 1, 1, true },
	{ "N=16, 15 cleaned", 15, 16, false },
	{ "N=16, 16 cleaned", 16, 16, true },
	{ "N=256 (ring size), 255 cleaned", 255, 256, false },
	{ "N=256 (ring size), 256 cleaned", 256, 256, true },
	{ "N=4096 (largest ring), 4095 cleaned", 4095, 4096, false },
};

static void refill_case_desc(const struct refill_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(refill, refill_cases, refill_case_desc);

static void e1000_refill_due_test(struct kunit *test)
{
	const struct refill_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, e1000_rx_refill_due(c->cleaned, c->batch), c->due);
}

static void e1000_refill_batch_valid_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, e1000_rx_refill_batch_valid(0, 256));
	KUNIT_EXPECT_TRUE(test, e1000_rx_refill_batch_valid(1, 256));
	KUNIT_EXPECT_TRUE(test, e1000_rx_refill_batch_valid(256, 256));
	KUNIT_EXPECT_FALSE(test, e1000_rx_refill_batch_valid(257, 256));
	KUNIT_EXPECT_TRUE(test, e1000_rx_refill_batch_valid(48, 48));
	KUNIT_EXPECT_FALSE(test, e1000_rx_refill_batch_valid(49, 48));
	KUNIT_EXPECT_FALSE(test, e1000_rx_refill_batch_valid(U32_MAX, 4096));
}

/* ring states: (count, next_to_clean, next_to_use, DD on the last HW desc) */
struct ring_case {
	const char *desc;
	unsigned int count, ntc, ntu;
	bool last_done, exhausted;
};

static const struct ring_case ring_cases[] = {
	{ "full ring after open", 256, 0, 255, false, false },
	{ "half used, last not done", 256, 10, 138, false, false },
	{ "last HW desc done, not yet cleaned", 256, 10, 138, true, true },
	{ "cleaned up to the last HW desc", 256, 137, 138, false, true },
	{ "nothing in use (allocation failed)", 256, 42, 42, false, true },
	{ "wrap: ntu 0, cleaned up to 254", 256, 255, 0, false, true },
	{ "wrap: ntu 1, cleaned up to 255", 256, 0, 1, false, true },
	{ "wrap: ntu 1, two in use", 256, 255, 1, false, false },
	{ "wrap: ntu 0, last (254) done", 256, 200, 0, true, true },
	{ "smallest ring, one in use", 48, 47, 0, false, true },
	{ "smallest ring, two in use", 48, 46, 0, false, false },
};

static void ring_case_desc(const struct ring_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ring, ring_cases, ring_case_desc);

static void e1000_ring_exhausted_test(struct kunit *test)
{
	const struct ring_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, e1000_rx_ring_exhausted(c->count, c->ntc, c->ntu,
						      c->last_done),
			c->exhausted);
}

static void e1000_last_hw_desc_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, e1000_rx_last_hw_desc(256, 138), 136U);
	KUNIT_EXPECT_EQ(test, e1000_rx_last_hw_desc(256, 1), 255U);
	KUNIT_EXPECT_EQ(test, e1000_rx_last_hw_desc(256, 0), 254U);
	KUNIT_EXPECT_EQ(test, e1000_rx_last_hw_desc(48, 2), 0U);
}

struct hist_case {
	const char *desc;
	unsigned int work, quota;
	enum e1000_napi_hist bucket;
};

static const struct hist_case hist_cases[] = {
	{ "0 %", 0, 64, E1000_NAPI_HIST_0 },
	{ "1 % (1 of 100)", 1, 100, E1000_NAPI_HIST_1_25 },
	{ "under 1 % (1 of 1024)", 1, 1024, E1000_NAPI_HIST_1_25 },
	{ "25 %", 25, 100, E1000_NAPI_HIST_1_25 },
	{ "25.5 %", 51, 200, E1000_NAPI_HIST_26_50 },
	{ "26 %", 26, 100, E1000_NAPI_HIST_26_50 },
	{ "50 %", 32, 64, E1000_NAPI_HIST_26_50 },
	{ "51 %", 51, 100, E1000_NAPI_HIST_51_75 },
	{ "75 %", 48, 64, E1000_NAPI_HIST_51_75 },
	{ "76 %", 76, 100, E1000_NAPI_HIST_76_99 },
	{ "99 %", 99, 100, E1000_NAPI_HIST_76_99 },
	{ "100 %", 100, 100, E1000_NAPI_HIST_100 },
	{ "quota 1, no work", 0, 1, E1000_NAPI_HIST_0 },
	{ "quota 1, full", 1, 1, E1000_NAPI_HIST_100 },
	{ "largest weight, one short", 1023, 1024, E1000_NAPI_HIST_76_99 },
};

static void hist_case_desc(const struct hist_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hist, hist_cases, hist_case_desc);

static void e1000_hist_bucket_test(struct kunit *test)
{
	const struct hist_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, e1000_napi_hist_bucket(c->work, c->quota),
			c->bucket);
}

static struct kunit_case e1000_policy_test_cases[] = {
	KUNIT_CASE_PARAM(e1000_refill_due_test, refill_gen_params),
	KUNIT_CASE(e1000_refill_batch_valid_test),
	KUNIT_CASE_PARAM(e1000_ring_exhausted_test, ring_gen_params),
	KUNIT_CASE(e1000_last_hw_desc_test),
	KUNIT_CASE_PARAM(e1000_hist_bucket_test, hist_gen_params),
	{}
};

static struct kunit_suite e1000_policy_test_suite = {
	.name = "e1000_policy",
	.test_cases = e1000_policy_test_cases,
};

/* Quota controller: constant cost, steps, clamps and hostile samples. */

/* Feed @n polls of @pkts packets costing @cost_ns each. */
static void feed(struct e1000_quota_ctl *ctl, int n, u64 cost_ns,
		 unsigned int pkts)
{
	u64 t = 1000000;

	while (n--) {
		e1000_quota_sample(ctl, t, t + cost_ns * pkts, pkts);
		t += cost_ns * pkts + 1000;
	}
}

static void e1000_quota_no_sample_test(struct kunit *test)
{
	struct e1000_quota_ctl ctl = {};

	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 200000, 8, 64), 64U);
	KUNIT_EXPECT_EQ(test, e1000_quota_ns_per_pkt(&ctl), 0U);
}

static void e1000_quota_converges_test(struct kunit *test)
{
	struct e1000_quota_ctl ctl = {};

	/* 2 us a packet, 100 us a poll: 50 packets, from the first sample */
	feed(&ctl, 1, 2000, 10);
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 100000, 1, 1024), 50U);
	feed(&ctl, 20, 2000, 37);
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 100000, 1, 1024), 50U);
	KUNIT_EXPECT_EQ(test, e1000_quota_ns_per_pkt(&ctl), 2000U);
}

static void e1000_quota_cost_step_test(struct kunit *test)
{
	struct e1000_quota_ctl ctl = {};
	unsigned int q;

	feed(&ctl, 20, 2000, 10);
	/* the cost doubles: after 16 polls the EWMA is within 1 % of it
	 * (1018870 / 256 ns) and the quota has halved: 100 us / 3.98 us
	 */
	feed(&ctl, 16, 4000, 10);
	KUNIT_EXPECT_EQ(test, ctl.ewma, 1018870ULL);
	q = e1000_quota_calc(&ctl, 100000, 1, 1024);
	KUNIT_EXPECT_EQ(test, q, 25U);
	/* a cheaper poll moves it at once: 1/4 of the way to 1 us, 30.9
	 * packets, and with the 0.12 packet the last quota left out, 31
	 */
	feed(&ctl, 1, 1000, 10);
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 100000, 1, 1024), 31U);
}

static void e1000_quota_carry_test(struct kunit *test)
{
	struct e1000_quota_ctl ctl = {};
	unsigned int i, q, sum = 0;

	/* 2 us a packet, 3 us a poll: 1.5 packets, as 1, 2, 1, 2, ... */
	feed(&ctl, 1, 2000, 10);
	for (i = 0; i < 6; i++) {
		q = e1000_quota_calc(&ctl, 3000, 1, 64);
		KUNIT_EXPECT_EQ(test, q, i % 2 ? 2U : 1U);
		sum += q;
	}
	KUNIT_EXPECT_EQ(test, sum, 9U);
	/* a quota that quota_min raises carries nothing */
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 3000, 4, 64), 4U);
	KUNIT_EXPECT_EQ(test, ctl.carry, 0U);
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 3000, 1, 64), 1U);
}

/* A poll of q packets takes 47 us + 39 us q, give or take 2 us in turn;
 * the target, 125 us, asks for 2.0 packets. Rounding down alone falls to
 * 1 for good at the 20th poll (an estimate just above 62.5 us a packet
 * gives 1, and a 1-packet poll's 86 us then gives 1.45); with the carry
 * the quota is 2 from the 18th poll on, 900 polls long.
 */
static void e1000_quota_closed_loop_test(struct kunit *test)
{
	struct e1000_quota_ctl ctl = {};
	unsigned int i, q = 64, sum = 0;
	u64 t = 1000000, ns;

	for (i = 0; i < 1000; i++) {
		ns = 47000 + 39000ULL * q;
		ns = i % 2 ? ns + 2000 : ns - 2000;
		e1000_quota_sample(&ctl, t, t + ns, q);
		t += ns + 1000;
		q = e1000_quota_calc(&ctl, 125000, 1, 64);
		if (i >= 100)
			sum += q;
	}
	KUNIT_EXPECT_EQ(test, sum, 1800U);
}

static void e1000_quota_clamps_test(struct kunit *test)
{
	struct e1000_quota_ctl ctl = {};

	feed(&ctl, 1, 50000, 4);	/* 50 us a packet, target 100 us: 2 */
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 100000, 8, 64), 8U);
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 100000, 1, 64), 2U);
	/* quota_min above the budget: the budget (the weight) wins */
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 100000, 100, 64), 64U);
	ctl.ewma = 0;
	feed(&ctl, 1, 10, 64);	/* 10 ns a packet: 10000, capped at 64 */
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 100000, 8, 64), 64U);
}

static void e1000_quota_hostile_samples_test(struct kunit *test)
{
	struct e1000_quota_ctl ctl = {};
	unsigned int q;

	e1000_quota_sample(&ctl, 100, 200, 0);		/* 0 packets */
	e1000_quota_sample(&ctl, 100, 100, 10);		/* 0 ns */
	e1000_quota_sample(&ctl, 200, 100, 10);		/* clock backwards */
	KUNIT_EXPECT_EQ(test, ctl.ewma, 0ULL);

	e1000_quota_sample(&ctl, 0, 5, 10);		/* under 1 ns a packet */
	KUNIT_EXPECT_EQ(test, ctl.ewma, 1ULL);		/* 0 means "no sample" */
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 2000000, 1, 1024), 1024U);

	ctl.ewma = 0;
	e1000_quota_sample(&ctl, 0, U64_MAX, 1);	/* huge ns: capped */
	KUNIT_EXPECT_EQ(test, e1000_quota_ns_per_pkt(&ctl),
			(unsigned int)E1000_QUOTA_COST_MAX_NS);
	for (q = 0; q < 1000; q++)
		e1000_quota_sample(&ctl, 0, U64_MAX, 1);
	KUNIT_EXPECT_EQ(test, e1000_quota_ns_per_pkt(&ctl),
			(unsigned int)E1000_QUOTA_COST_MAX_NS);
	/* the largest target over the largest cost: 4294967295 / 10^7 */
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, U32_MAX, 1, 1024), 429U);
	KUNIT_EXPECT_EQ(test, e1000_quota_calc(&ctl, 1, 1, 1024), 1U);
}

/* Properties rather than golden values: over a grid of costs, targets,
 * quota_min and budgets the quota stays within [min(quota_min, budget),
 * budget].
 */
/* Four quotas after one sample at @cost ns a packet: all within bounds. */
static void quota_bounds_check(struct kunit *test, u64 cost, unsigned int target,
			       unsigned int qmin, unsigned int budget)
{
	struct e1000_quota_ctl ctl = {};
	unsigned int i, q;

	feed(&ctl, 1, cost, 10);
	for (i = 0; i < 4; i++) {
		q = e1000_quota_calc(&ctl, target, qmin, budget);
		KUNIT_ASSERT_GE_MSG(test, q, min(qmin, budget),
				    "cost %llu target %u min %u budget %u",
				    cost, target, qmin, budget);
		KUNIT_ASSERT_LE_MSG(test, q, budget,
				    "cost %llu target %u min %u budget %u",
				    cost, target, qmin, budget);
	}
}

static void e1000_quota_bounds_test(struct kunit *test)
{
	static const unsigned int targets[] = { 1, 1000, 125000, 500000,
						2000000 };
	static const unsigned int mins[] = { 1, 8, 64, 100 };
	static const unsigned int budgets[] = { 1, 8, 16, 64 };
	unsigned int t, m, b;
	u64 cost;

	for (cost = 1; cost <= E1000_QUOTA_COST_MAX_NS; cost *= 3)
		for (t = 0; t < ARRAY_SIZE(targets); t++)
			for (m = 0; m < ARRAY_SIZE(mins); m++)
				for (b = 0; b < ARRAY_SIZE(budgets); b++)
					quota_bounds_check(test, cost, targets[t],
							   mins[m], budgets[b]);
}

/* A dearer packet never gets a larger quota (no carry to blur it). */
static void e1000_quota_monotone_test(struct kunit *test)
{
	unsigned int q, last = UINT_MAX;
	u64 cost;

	for (cost = 500; cost <= 2000000; cost += cost / 4) {
		struct e1000_quota_ctl ctl = {};

		feed(&ctl, 1, cost, 10);
		q = e1000_quota_calc(&ctl, 500000, 1, 64);
		KUNIT_ASSERT_LE_MSG(test, q, last, "cost %llu ns", cost);
		last = q;
	}
	KUNIT_EXPECT_EQ(test, last, 1U);
}

/* From any estimate, 64 polls at a constant cost bring the quotas to what
 * the target asks for: their mean is within a packet of target / cost
 * (clamped to [1, 64]).
 */
static void e1000_quota_reaches_target_test(struct kunit *test)
{
	static const u64 starts[] = { 1, 1000, 100000, E1000_QUOTA_COST_MAX_NS };
	static const u64 costs[] = { 2000, 8500, 42000, 300000 };
	unsigned int s, c, i, sum;
	u64 want;

	for (s = 0; s < ARRAY_SIZE(starts); s++)
		for (c = 0; c < ARRAY_SIZE(costs); c++) {
			struct e1000_quota_ctl ctl = {
				.ewma = starts[s] << E1000_QUOTA_FRAC,
			};

			feed(&ctl, 64, costs[c], 10);
			for (i = 0, sum = 0; i < 16; i++)
				sum += e1000_quota_calc(&ctl, 500000, 1, 64);
			want = clamp_t(u64, div64_u64(500000 * 16ULL, costs[c]),
				       16, 64 * 16);
			KUNIT_EXPECT_LE_MSG(test, abs((s64)sum - (s64)want), 16LL,
					    "start %llu ns, cost %llu ns: %u quotas in 16 polls, want %llu",
					    starts[s], costs[c], sum, want);
		}
}

/* e1000_clean()'s return contract, over every budget up to 64, quota,
 * work and TX state: it returns the budget if and only if it stays on the
 * poll list without completing (E1000_POLL_REPOLL), never more than the
 * budget, and with the quota at the budget (adaptive off) it ends the way
 * upstream e1000_clean() does.
 */
static void e1000_poll_end_contract_test(struct kunit *test)
{
	int budget, quota, work, ret, tx;
	enum e1000_poll_end end;

	for (budget = 0; budget <= 64; budget++)
		for (quota = budget ? 1 : 0; quota <= budget; quota++)
			for (work = 0; work <= quota; work++)
				for (tx = 0; tx <= 1; tx++) {
					end = e1000_poll_end_of(budget, quota, work, tx);
					ret = end == E1000_POLL_REPOLL ? budget : work;
					KUNIT_ASSERT_LE(test, ret, budget);
					KUNIT_ASSERT_EQ_MSG(test, ret == budget,
							    end == E1000_POLL_REPOLL,
							    "budget %d quota %d work %d tx %d",
							    budget, quota, work, tx);
					KUNIT_ASSERT_EQ_MSG(test,
							    end == E1000_POLL_RESCHEDULE,
							    tx && work >= quota && quota < budget,
							    "budget %d quota %d work %d tx %d",
							    budget, quota, work, tx);
					if (quota == budget)
						KUNIT_ASSERT_EQ(test, end,
								!tx || work == budget ?
								E1000_POLL_REPOLL :
								E1000_POLL_DONE);
				}
}

static struct kunit_case e1000_quota_test_cases[] = {
	KUNIT_CASE(e1000_quota_no_sample_test),
	KUNIT_CASE(e1000_quota_converges_test),
	KUNIT_CASE(e1000_quota_cost_step_test),
	KUNIT_CASE(e1000_quota_clamps_test),
	KUNIT_CASE(e1000_quota_carry_test),
	KUNIT_CASE(e1000_quota_closed_loop_test),
	KUNIT_CASE(e1000_quota_hostile_samples_test),
	KUNIT_CASE(e1000_quota_bounds_test),
	KUNIT_CASE(e1000_quota_monotone_test),
	KUNIT_CASE(e1000_quota_reaches_target_test),
	KUNIT_CASE(e1000_poll_end_contract_test),
	{}
};

static struct kunit_suite e1000_quota_test_suite = {
	.name = "e1000_quota",
	.test_cases = e1000_quota_test_cases,
};

kunit_test_suites(&e1000_policy_test_suite, &e1000_quota_test_suite);
