// SPDX-License-Identifier: GPL-2.0
/*
 * hostspeed CPU MS: how fast one host CPU runs a fixed chain of integer
 * work right now, for the bench's per-run host record (bench/run.sh,
 * columns host_speed_cpu0 and host_speed_cpu1).
 *
 * Pinned to CPU, it runs chunks of CHUNK dependent multiply-xorshift steps
 * for MS milliseconds of wall time and prints one line:
 *
 *     <mean Msteps/s> <best chunk's Msteps/s> <chunks>
 *
 * The mean is what a thread on that CPU got over the window (the CPU's
 * speed and whatever else ran there: a QEMU thread, the host's softirqs,
 * a neighbour on a shared core); the best chunk is the CPU's speed alone.
 * A TCG guest's speed is host CPU speed, so a run whose host was slower
 * shows here, whatever the guest did.
 *
 * Exit 2 on bad arguments, 1 if the CPU cannot be used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK 65536

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long arg(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "hostspeed: %s: %ld..%ld, not '%s'\n", what, min, max, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	volatile uint64_t sink;
	double t0, t, end, best = 0;
	uint64_t x = 88172645463325252ULL;
	long cpu, ms, chunks = 0;
	cpu_set_t set;
	int i;

	if (argc != 3) {
		fprintf(stderr, "usage: hostspeed CPU MS\n");
		return 2;
	}
	cpu = arg(argv[1], 0, CPU_SETSIZE - 1, "CPU");
	ms = arg(argv[2], 1, 10000, "MS");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "hostspeed: CPU %ld: %s\n", cpu, strerror(errno));
		return 1;
	}
	t0 = now_ns();
	end = t0 + ms * 1e6;
	t = t0;
	do {
		double c0 = t;

		for (i = 0; i < CHUNK; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			x *= 0x2545F4914F6CDD1DULL;
		}
		t = now_ns();
		if (CHUNK / (t - c0) > best)
			best = CHUNK / (t - c0);
		chunks++;
	} while (t < end);
	sink = x;
	(void)sink;
	printf("%.1f %.1f %ld\n", chunks * (double)CHUNK / (t - t0) * 1e3, best * 1e3, chunks);
	return 0;
}
