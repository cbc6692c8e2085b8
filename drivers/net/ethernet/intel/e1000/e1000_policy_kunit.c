// SPDX-License-Identifier: GPL-2.0
/* KUnit tests of the e1000 RX policy (e1000_policy.c). */
#include <kunit/test.h>

#include "e1000_policy.h"

struct refill_case {
	const char *desc;
	unsigned int cleaned, batch;
	bool due;
};

static const struct refill_case refill_cases[] = {
	{ "N=0 never mid-poll, 0 cleaned", 0, 0, false },
	{ "N=0 never mid-poll, 1 cleaned", 1, 0, false },
	{ "N=0 never mid-poll, 4095 cleaned", 4095, 0, false },
	{ "N=1, 0 cleaned", 0, 1, false },
	{ "N=1, 1 cleaned", 1, 1, true },
	{ "N=16, 15 cleaned", 15, 16, false },
	{ "N=16, 16 cleaned", 16, 16, true },
	{ "N=16, 17 cleaned (a failed refill)", 17, 16, true },
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
	{ "over the quota", 65, 64, E1000_NAPI_HIST_100 },
	{ "quota 1, no work", 0, 1, E1000_NAPI_HIST_0 },
	{ "quota 1, full", 1, 1, E1000_NAPI_HIST_100 },
	{ "no overflow at U32_MAX", U32_MAX - 1, U32_MAX, E1000_NAPI_HIST_76_99 },
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

kunit_test_suite(e1000_policy_test_suite);
