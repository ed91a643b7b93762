// SPDX-License-Identifier: GPL-2.0
/*
 * rmem_swapload: a memory-bound workload for swap tests and the swap
 * benchmark.  It maps SIZE MiB of anonymous memory, writes a pattern into
 * every page, then makes PASSES passes over all pages that each check the
 * page against the pattern of the previous pass and write the pattern of
 * the next, so that every pass swaps the whole working set in and out once
 * when it does not fit in RAM.  A last pass checks only.
 *
 *   rmem_swapload [-p PASSES] [-s SEED] [-r] SIZE_MIB
 *
 *   -r   visit pages in a random (seeded) order instead of sequentially
 *
 * Prints one line of key=value results and exits 0 only if every page held
 * what was written to it:
 *
 *   swapload size_mib=1024 passes=2 order=seq errors=0 seconds=41.2
 *     majflt=524288 touch_us_p50=... touch_us_p99=... slow_touches=...
 *     slow_us_mean=... user_s=... sys_s=...
 *
 * user_s and sys_s: the CPU time the workload used in user space and in
 * the kernel (its page faults, the reclaim it did itself); the rest of
 * seconds it waited, mostly for swap-ins.  touch_us_*: latency of the first access to each page in the checking
 * passes (the cost of a major fault, when the page was swapped out);
 * slow_touches counts the accesses above 20 us, slow_us_mean their mean.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL
#define WORDS		(PAGE / sizeof(uint64_t))
#define SLOW_US		20.0

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The pattern of page @i in pass @pass: a xorshift stream from a seed. */
static void fill(uint64_t *p, uint64_t seed, uint64_t pass, uint64_t i)
{
	uint64_t x = mix(seed ^ mix(pass + 1) ^ (i * 0x9e3779b97f4a7c15ULL)) | 1;
	size_t w;

	for (w = 0; w < WORDS; w++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[w] = x;
	}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr, "usage: rmem_swapload [-p PASSES] [-s SEED] [-r] SIZE_MIB\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, pass, i, n, errors = 0, slow = 0;
	unsigned long passes = 2, size_mib;
	double t0, t1, *lat, slow_sum = 0;
	size_t nlat = 0;
	uint64_t *order, buf[WORDS];
	struct rusage ru0, ru1;
	int opt, random_order = 0;
	char *mem;

	while ((opt = getopt(argc, argv, "p:s:r")) != -1) {
		switch (opt) {
		case 'p':
			passes = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			random_order = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	size_mib = strtoul(argv[optind], NULL, 0);
	if (!size_mib || !passes)
		usage();
	n = size_mib * (1024 * 1024 / PAGE);

	mem = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	order = malloc(n * sizeof(*order));
	lat = malloc(n * passes * sizeof(*lat));
	if (mem == MAP_FAILED || !order || !lat) {
		fprintf(stderr, "rmem_swapload: cannot allocate %lu MiB: %s\n",
			size_mib, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	if (random_order) {
		uint64_t x = mix(seed) | 1;

		for (i = n - 1; i > 0; i--) {
			uint64_t j, t;

			x = mix(x + i);
			j = x % (i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}

	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_us();
	for (i = 0; i < n; i++)
		fill((uint64_t *)(mem + order[i] * PAGE), seed, 0, order[i]);
	for (pass = 1; pass <= passes; pass++) {
		for (i = 0; i < n; i++) {
			uint64_t *p = (uint64_t *)(mem + order[i] * PAGE);
			volatile uint64_t first;
			double a = now_us(), d;

			first = p[0];	/* the fault, if any, happens here */
			d = now_us() - a;
			(void)first;
			lat[nlat++] = d;
			if (d > SLOW_US) {
				slow++;
				slow_sum += d;
			}
			fill(buf, seed, pass - 1, order[i]);
			if (memcmp(p, buf, PAGE)) {
				if (errors < 5)
					fprintf(stderr, "rmem_swapload: page %llu differs in pass %llu\n",
						(unsigned long long)order[i],
						(unsigned long long)pass);
				errors++;
			}
			if (pass < passes)
				fill(p, seed, pass, order[i]);
		}
	}
	t1 = now_us();
	getrusage(RUSAGE_SELF, &ru1);

	qsort(lat, nlat, sizeof(*lat), cmp_double);
	printf("swapload size_mib=%lu passes=%lu order=%s errors=%llu seconds=%.2f majflt=%ld touch_us_p50=%.1f touch_us_p99=%.1f slow_touches=%llu slow_us_mean=%.1f user_s=%.2f sys_s=%.2f\n",
	       size_mib, passes, random_order ? "random" : "seq",
	       (unsigned long long)errors, (t1 - t0) / 1e6,
	       ru1.ru_majflt - ru0.ru_majflt, lat[nlat / 2],
	       lat[nlat * 99 / 100], (unsigned long long)slow,
	       slow ? slow_sum / slow : 0.0,
	       tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime),
	       tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime));
	return errors ? 1 : 0;
}
