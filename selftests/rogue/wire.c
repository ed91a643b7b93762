// SPDX-License-Identifier: GPL-2.0
/*
 * rmem_rogue: reporting, the wire layouts rebuilt byte by byte, bounded waits.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rogue.h"

static const char *const status_names[] = {
	"OK", "EVERSION", "EINVAL", "EACCES", "ENOSPC", "EBUSY", "ESIZE",
	"ENOSESSION", "ENOMEM", "EREG", "EAGAIN",
};

/* ---- reporting --------------------------------------------------------- */

void __printf(1, 2) set_why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

int why_errno(const char *what)
{
	set_why("%s: %s", what, strerror(errno));
	return -1;
}

void __printf(2, 3) report(const char *tag, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}


const char *status_name(int status)
{
	if (status >= 0 && status < (int)ARRAY_SIZE(status_names))
		return status_names[status];
	return "unknown";
}

/* ---- little endian fields ---------------------------------------------- */

void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* struct rmem_wire_connect: magic, version, op, flags, qp_index, nr_qps */
static void req_init(uint8_t *b, uint8_t op)
{
	memset(b, 0, WIRE_CONNECT_LEN);
	put32(b, WIRE_MAGIC);
	put16(b + 4, WIRE_VERSION);
	b[6] = op;
}

/* NEW: size at 12, volume[32] at 20, hold_ms at 52 */
void req_new(uint8_t *b, uint16_t nr_qps, uint64_t size)
{
	req_init(b, OP_NEW);
	put16(b + 10, nr_qps);
	put64(b + 12, size);
}

/* JOIN, RECONNECT, LEAVE: token at 12 */
void req_token(uint8_t *b, uint8_t op, uint16_t qp_index,
	       uint16_t nr_qps, const uint8_t *token)
{
	req_init(b, op);
	put16(b + 8, qp_index);
	put16(b + 10, nr_qps);
	memcpy(b + 12, token, WIRE_TOKEN_LEN);
}

/* ---- waiting, bounded -------------------------------------------------- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next rdma_cm event of @ch (non-blocking fd), within @ms. */
int get_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev,
	      int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	int64_t end = now_ms() + ms, left;

	for (;;) {
		if (!rdma_get_cm_event(ch, ev))
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return why_errno("rdma_get_cm_event");
		left = end - now_ms();
		if (left <= 0) {
			set_why("no rdma_cm event in %d s", ms / 1000);
			return -1;
		}
		poll(&pfd, 1, (int)left);
	}
}

int expect_event(struct rdma_event_channel *ch,
		 enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ret = 0;

	if (get_event(ch, &ev, TIMEOUT_MS))
		return -1;
	if (ev->event != want) {
		set_why("%s instead of %s (status %d)", rdma_event_str(ev->event),
			rdma_event_str(want), ev->status);
		ret = -1;
	}
	rdma_ack_cm_event(ev);
	return ret;
}

/* One work completion of @cq within @ms. */
int cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int64_t end = now_ms() + ms;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0) {
			set_why("ibv_poll_cq failed");
			return -1;
		}
		if (n)
			return 0;
		if (now_ms() >= end) {
			set_why("no work completion in %d s", ms / 1000);
			return -1;
		}
		usleep(200);
	}
}
