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

#include "../../user/crypto.h"
#include "rogue.h"

static const char *const status_names[] = {
	"OK", "EVERSION", "EINVAL", "EACCES", "ENOSPC", "EBUSY", "ESIZE",
	"ENOSESSION", "ENOMEM", "EREG", "EAGAIN", "EAUTH", "ENOKEY",
	"ESESSIONS", "EQUOTA", "EHANDSHAKES", "EOWNER", "EREPLAY",
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

void put64(uint8_t *p, uint64_t v)
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

/* NEW: nonce at 12, 12 reserved bytes at 44 */
void req_new(uint8_t *b, uint16_t nr_qps, const uint8_t *nonce)
{
	req_init(b, OP_NEW);
	put16(b + 10, nr_qps);
	memcpy(b + 12, nonce, WIRE_NONCE_LEN);
}

/* JOIN, RECONNECT, LEAVE: handle at 12, counter at 20, mac at 28 (zero) */
void req_ctl(uint8_t *b, uint8_t op, uint16_t qp_index, uint16_t nr_qps,
	     uint64_t handle, uint64_t counter)
{
	req_init(b, op);
	put16(b + 8, qp_index);
	put16(b + 10, nr_qps);
	put64(b + 12, handle);
	put64(b + 20, counter);
}

/* The first 28 bytes of HMAC(skey, "rmem-ctl" || b[0..28) || le32 qpn). */
void req_sign(uint8_t *b, const uint8_t *skey, uint32_t qpn)
{
	uint8_t msg[8 + 28 + 4], mac[SHA256_LEN];

	memcpy(msg, "rmem-ctl", 8);
	memcpy(msg + 8, b, 28);
	put32(msg + 36, qpn);
	hmac_sha256(skey, WIRE_KEY_LEN, msg, sizeof(msg), mac);
	memcpy(b + 28, mac, WIRE_CTL_MAC_LEN);
}

/*
 * struct rmem_wire_auth without its mac: magic, version, flags, reserved,
 * size at 8, hold_ms at 16, reserved2, volume at 24, host at 56, mac at 120
 */
void auth_msg(uint8_t *a, uint64_t size, uint32_t hold_ms,
	      const struct cred *c)
{
	memset(a, 0, WIRE_AUTH_LEN);
	put32(a, WIRE_MAGIC);
	put16(a + 4, WIRE_VERSION);
	a[6] = c->key ? WIRE_AUTH_KEYED : 0;
	put64(a + 8, size);
	put32(a + 16, hold_ms);
	strncpy((char *)a + 56, c->host, WIRE_HOST_MAX - 1);
}

/*
 * HMAC(key, label || challenge || nonce || le32 client_qpn ||
 * le32 server_qpn || auth[0..120)): the client's proof ("rmem-client") or
 * the session key ("rmem-session").
 */
void auth_mac(const uint8_t *key, const char *label, const uint8_t *ch,
	      const uint8_t *nonce, uint32_t client_qpn, uint32_t server_qpn,
	      const uint8_t *auth, uint8_t *out)
{
	uint8_t msg[16 + WIRE_CHALLENGE_LEN + WIRE_NONCE_LEN + 8 + 120];
	size_t n = strlen(label);

	memcpy(msg, label, n);
	memcpy(msg + n, ch, WIRE_CHALLENGE_LEN);
	n += WIRE_CHALLENGE_LEN;
	memcpy(msg + n, nonce, WIRE_NONCE_LEN);
	n += WIRE_NONCE_LEN;
	put32(msg + n, client_qpn);
	put32(msg + n + 4, server_qpn);
	n += 8;
	memcpy(msg + n, auth, 120);
	n += 120;
	hmac_sha256(key, WIRE_KEY_LEN, msg, n, out);
}

/* A key file of "rmemctl key gen": RMEM-1:<base64 of key and CRC-32>: */
int key_file(const char *path, uint8_t *key)
{
	uint8_t raw[WIRE_KEY_LEN + 4];
	char buf[128];
	FILE *f;
	size_t n;

	f = fopen(path, "r");
	if (!f)
		return why_errno(path);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n < 7 + 48 + 1 || strncmp(buf, "RMEM-1:", 7) || buf[7 + 48] != ':' ||
	    base64_decode(buf + 7, 48, raw, sizeof(raw)) != (int)sizeof(raw) ||
	    crc32_ieee(raw, WIRE_KEY_LEN) != get32(raw + WIRE_KEY_LEN)) {
		set_why("%s: not an rmem key file", path);
		return -1;
	}
	memcpy(key, raw, WIRE_KEY_LEN);
	return 0;
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
