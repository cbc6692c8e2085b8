// SPDX-License-Identifier: GPL-2.0
/*
 * wakeup - what an application sees: how late its timer wake-ups are.
 *
 *   wakeup [-f] SECS [PERIOD_US]
 *
 *   SECS        how long to run, 1..3600
 *   PERIOD_US   the period, 100..1000000 (default 1000: every millisecond)
 *   -f          SCHED_FIFO priority 1 and mlockall(), as cyclictest -p1 -m;
 *               the default is SCHED_OTHER, what an ordinary application
 *               (the iperf3 server beside it) gets
 *
 * As cyclictest does: an absolute schedule on CLOCK_MONOTONIC, one wake-up
 * every period from the start (next += period, clock_nanosleep() with
 * TIMER_ABSTIME), and per wake-up its lateness, now - the intended time, in
 * ns. A wake-up that comes a whole period late or more does not shift the
 * schedule: the periods that went by are skipped (counted in wakeup_missed)
 * and the next wake-up is the first intended time still ahead. The run ends
 * when SECS * 1e6 / PERIOD_US periods have been woken for or skipped, or on
 * SIGTERM/SIGINT, which still prints the summary of what was recorded.
 *
 * Output, one "key value" line each, integers, ns unless named otherwise:
 *
 *   wakeup_samples N      wake-ups recorded
 *   wakeup_p50_ns         nearest-rank percentiles of the lateness
 *   wakeup_p99_ns
 *   wakeup_max_ns
 *   wakeup_mean_ns        rounded down
 *   wakeup_over_1ms N     wake-ups 1 ms late or more
 *   wakeup_missed N       periods skipped
 *   wakeup_period_us N    the period asked for
 *   wakeup_fifo 0|1       whether -f was given
 *
 * Nearest-rank percentile: with the N samples sorted ascending, the p-th
 * percentile is the sample at rank ceil(p / 100 * N) (1-based), so it is
 * always a measured value. With no sample every statistic is 0.
 *
 * Samples are stored as u32 ns, saturating at about 4.3 s; the max and the
 * mean come from the exact values. Exit 0 after the summary, 1 on a system
 * error, 2 on bad usage (one line on stderr).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define NSEC_PER_SEC	1000000000LL
#define NSEC_PER_USEC	1000LL
#define NSEC_PER_MSEC	1000000LL

#define SECS_MIN	1
#define SECS_MAX	3600
#define PERIOD_MIN	100
#define PERIOD_MAX	1000000

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wakeup [-f] SECS(1..3600) [PERIOD_US(100..1000000, default 1000)]\n");
	exit(2);
}

/* A decimal integer in [min, max], nothing else; -1 when it is not one. */
static long parse_range(const char *s, long min, long max)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	return ts;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank on sorted samples: rank ceil(p * n / 100), 1-based. */
static uint32_t percentile(const uint32_t *sorted, size_t n, unsigned int p)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (p * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	long secs, period_us = 1000;
	int64_t period, next, now, late, max = 0;
	uint64_t sum = 0, over_1ms = 0, missed = 0;
	size_t cap, n = 0;
	uint32_t *lat;
	struct timespec ts;
	int fifo = 0, arg = 1, rc;

	if (arg < argc && !strcmp(argv[arg], "-f")) {
		fifo = 1;
		arg++;
	}
	if (argc - arg < 1 || argc - arg > 2)
		usage();
	secs = parse_range(argv[arg], SECS_MIN, SECS_MAX);
	if (argc - arg == 2)
		period_us = parse_range(argv[arg + 1], PERIOD_MIN, PERIOD_MAX);
	if (secs < 0 || period_us < 0)
		usage();

	period = period_us * NSEC_PER_USEC;
	cap = (size_t)(secs * 1000000 / period_us);
	lat = malloc(cap * sizeof(*lat));
	if (!lat) {
		fprintf(stderr, "wakeup: no memory for %zu samples\n", cap);
		return 1;
	}
	/* Fault the samples in now, not one page at a time in the loop. */
	memset(lat, 0, cap * sizeof(*lat));

	if (fifo) {
		struct sched_param sp = { .sched_priority = 1 };

		if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
			perror("wakeup: mlockall");
			return 1;
		}
		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("wakeup: sched_setscheduler SCHED_FIFO 1");
			return 1;
		}
	}

	/* No SA_RESTART: the sleep returns EINTR and the loop sees stop. */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL)) {
		perror("wakeup: sigaction");
		return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &ts);
	next = ts_ns(&ts) + period;
	while (!stop && n + missed < cap) {
		ts = ns_ts(next);
		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (rc == EINTR)
			continue;
		if (rc) {
			fprintf(stderr, "wakeup: clock_nanosleep: %s\n",
				strerror(rc));
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts_ns(&ts);
		late = now > next ? now - next : 0;

		lat[n++] = late > UINT32_MAX ? UINT32_MAX : (uint32_t)late;
		sum += late;
		if (late > max)
			max = late;
		if (late >= NSEC_PER_MSEC)
			over_1ms++;

		/* Keep the absolute schedule; skip the periods gone by, and
		 * count as missed only those within the run's SECS: a late
		 * last wake-up must not take the count past cap.
		 */
		next += period;
		if (late >= period) {
			uint64_t gone = late / period;

			next += gone * period;
			if (gone > cap - n - missed)
				gone = cap - n - missed;
			missed += gone;
		}
	}

	qsort(lat, n, sizeof(*lat), cmp_u32);
	printf("wakeup_samples %zu\n", n);
	printf("wakeup_p50_ns %u\n", percentile(lat, n, 50));
	printf("wakeup_p99_ns %u\n", percentile(lat, n, 99));
	printf("wakeup_max_ns %lld\n", (long long)max);
	printf("wakeup_mean_ns %llu\n",
	       n ? (unsigned long long)(sum / n) : 0ULL);
	printf("wakeup_over_1ms %llu\n", (unsigned long long)over_1ms);
	printf("wakeup_missed %llu\n", (unsigned long long)missed);
	printf("wakeup_period_us %ld\n", period_us);
	printf("wakeup_fifo %d\n", fifo);
	free(lat);
	return 0;
}
