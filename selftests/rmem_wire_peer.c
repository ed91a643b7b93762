// SPDX-License-Identifier: GPL-2.0
/*
 * rmem_wire_peer: a user-space peer speaking the rmem wire protocol
 * (Documentation/protocol.rst) with a chosen version, to check how the
 * kernel client and server treat a peer they do not understand.
 *
 *   rmem_wire_peer client ADDR PORT VERSION
 *	send a NEW connect request of VERSION to an rmem server; print the
 *	server's answer; exit 0 if it refused with EVERSION (status 1),
 *	1 if it refused otherwise, 2 if it accepted, 3 on other errors.
 *   rmem_wire_peer server ADDR PORT VERSION
 *	listen; refuse the first connect request with EVERSION and our
 *	VERSION in the reject data; exit 0 once done.
 *   rmem_wire_peer noreads ADDR PORT VERSION
 *	listen; accept the first connect request granting no RDMA READ
 *	(responder resources 0), with no rmem data; exit 0 at the first
 *	event after it but ESTABLISHED (the client's refusal, a disconnect
 *	or an error: the test judges the client), 3 on errors.
 *   rmem_wire_peer impostor|impostor-nokey ADDR PORT VERSION
 *	a server that does not know the client's key: accept the first
 *	RMEM_WIRE_NEW with a challenge, take the AUTH message and answer
 *	with a READY signed with made-up bytes (impostor), or one that
 *	claims no key was used (impostor-nokey); exit 0 at the first event
 *	after that but ESTABLISHED, 3 on errors.  A client with a key must
 *	refuse both.
 *
 * Layouts are rebuilt here byte by byte (little endian) on purpose: this
 * program is the protocol's outside view, not a user of kernel headers.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define WIRE_MAGIC	0x4d454d52
#define WIRE_NEW	1
#define ST_EVERSION	1

static struct rdma_cm_event *wait_event(struct rdma_event_channel *ch,
					enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev)) {
		perror("rdma_get_cm_event");
		exit(3);
	}
	if (ev->event != want && want != (enum rdma_cm_event_type)-1) {
		fprintf(stderr, "unexpected event %s (status %d)\n",
			rdma_event_str(ev->event), ev->status);
		exit(3);
	}
	return ev;
}

static void put16(uint8_t *p, uint16_t v) { v = htole16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htole32(v); memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { v = htole64(v); memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return le16toh(v); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return le32toh(v); }

static struct rdma_addrinfo *resolve(const char *addr, const char *port,
				     int passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;

	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res)) {
		perror("rdma_getaddrinfo");
		exit(3);
	}
	return res;
}

/* a queue pair of one work request each way: the peer posts none */
static int create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return rdma_create_qp(id, NULL, &qpa);
}

/* listen at ADDR PORT on @ch; print "listening" (tests wait for it) */
static int listen_on(struct rdma_event_channel *ch, const char *addr,
		     const char *port)
{
	struct rdma_addrinfo *ai = resolve(addr, port, 1);
	struct rdma_cm_id *id;

	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(id, ai->ai_src_addr) || rdma_listen(id, 4)) {
		perror("listen");
		return 3;
	}
	printf("listening\n");
	fflush(stdout);
	return 0;
}

static int run_client(const char *addr, const char *port, uint16_t version)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_addrinfo *ai = resolve(addr, port, 0);
	struct rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7,
				      .initiator_depth = 1 };
	uint8_t req[56] = {0};
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	int ret;

	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, ai->ai_dst_addr, 2000))
		return perror("connect setup"), 3;
	rdma_ack_cm_event(wait_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 2000))
		return perror("rdma_resolve_route"), 3;
	rdma_ack_cm_event(wait_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	if (create_qp(id))
		return perror("rdma_create_qp"), 3;

	put32(req, WIRE_MAGIC);
	put16(req + 4, version);
	req[6] = WIRE_NEW;
	put16(req + 10, 1);		/* nr_qps */
	put64(req + 12, 1 << 20);	/* size */
	cp.private_data = req;
	cp.private_data_len = sizeof(req);
	if (rdma_connect(id, &cp))
		return perror("rdma_connect"), 3;

	ev = wait_event(ch, (enum rdma_cm_event_type)-1);
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
		/* the challenge answers in the request's version */
		if (ev->param.conn.private_data_len < 8 ||
		    get16((const uint8_t *)ev->param.conn.private_data + 4) !=
		    version) {
			printf("accepted a version %u request with a challenge of another version\n",
			       version);
			return 3;
		}
		printf("accepted a version %u request\n", version);
		return 2;
	}
	if (ev->event != RDMA_CM_EVENT_REJECTED) {
		printf("event %s\n", rdma_event_str(ev->event));
		return 3;
	}
	if (ev->param.conn.private_data_len < 8 ||
	    get32(ev->param.conn.private_data) != WIRE_MAGIC) {
		printf("rejected without rmem reject data\n");
		return 1;
	}
	printf("rejected: server version %u, status %u\n",
	       get16((const uint8_t *)ev->param.conn.private_data + 4),
	       get16((const uint8_t *)ev->param.conn.private_data + 6));
	ret = get16((const uint8_t *)ev->param.conn.private_data + 6) ==
	      ST_EVERSION ? 0 : 1;
	rdma_ack_cm_event(ev);
	return ret;
}

static int run_server(const char *addr, const char *port, uint16_t version)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	uint8_t rej[8];
	struct rdma_cm_event *ev;

	if (listen_on(ch, addr, port))
		return 3;
	ev = wait_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	put32(rej, WIRE_MAGIC);
	put16(rej + 4, version);
	put16(rej + 6, ST_EVERSION);
	if (rdma_reject(ev->id, rej, sizeof(rej)))
		return perror("rdma_reject"), 3;
	printf("refused a connect request as version %u\n", version);
	rdma_ack_cm_event(ev);
	return 0;
}

/* accept the first request with responder resources 0: a server that
 * grants no RDMA READ */
static int run_noreads(const char *addr, const char *port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7,
				      .responder_resources = 0,
				      .initiator_depth = 0 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *conn;

	if (listen_on(ch, addr, port))
		return 3;
	ev = wait_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	conn = ev->id;
	rdma_ack_cm_event(ev);
	if (create_qp(conn))
		return perror("rdma_create_qp"), 3;
	if (rdma_accept(conn, &cp))
		return perror("rdma_accept"), 3;
	printf("accepted a connect request, granting no RDMA READ\n");
	/* ESTABLISHED (or not, if the client refused first), then the end */
	for (;;) {
		ev = wait_event(ch, (enum rdma_cm_event_type)-1);
		printf("event %s\n", rdma_event_str(ev->event));
		if (ev->event != RDMA_CM_EVENT_ESTABLISHED) {
			rdma_ack_cm_event(ev);
			return 0;
		}
		rdma_ack_cm_event(ev);
	}
}

/* wait up to 10 s for one completion on @cq; 0 if it succeeded */
static int poll_one(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int i, n;

	for (i = 0; i < 10000; i++) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			break;
		if (n) {
			if (wc.status == IBV_WC_SUCCESS)
				return 0;
			fprintf(stderr, "%s: %s\n", what,
				ibv_wc_status_str(wc.status));
			return 3;
		}
		usleep(1000);
	}
	fprintf(stderr, "%s: no completion\n", what);
	return 3;
}

static void random_bytes(uint8_t *p, size_t len)
{
	FILE *f = fopen("/dev/urandom", "re");

	if (!f || fread(p, 1, len, f) != len) {
		perror("/dev/urandom");
		exit(3);
	}
	fclose(f);
}

/*
 * Offsets of the version 3 messages (protocol.rst): the challenge (REP
 * private data, 96 bytes), AUTH (152, SENT by the client) and READY (144).
 */
#define CHALLENGE_LEN	96
#define AUTH_LEN	152
#define READY_LEN	144

static int run_impostor(const char *addr, const char *port, uint16_t version,
			int claim_key)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7,
				      .responder_resources = 1,
				      .initiator_depth = 1 };
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	static uint8_t buf[512];
	uint8_t *auth = buf, *ready = buf + 256, chal[CHALLENGE_LEN] = {0};
	struct ibv_recv_wr rwr = { .num_sge = 1 }, *bad_r;
	struct ibv_send_wr swr = { .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bad_s;
	struct ibv_sge rsge, ssge;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *conn;
	uint64_t size, chunk = 4 << 20;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	uint32_t nr;

	if (listen_on(ch, addr, port))
		return 3;
	ev = wait_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	conn = ev->id;
	if (ev->param.conn.private_data_len < 56 ||
	    ((const uint8_t *)ev->param.conn.private_data)[6] != WIRE_NEW) {
		fprintf(stderr, "not a NEW connect request\n");
		return 3;
	}
	rdma_ack_cm_event(ev);
	pd = ibv_alloc_pd(conn->verbs);
	cq = pd ? ibv_create_cq(conn->verbs, 4, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr)
		return perror("verbs setup"), 3;
	qpa.send_cq = cq;
	qpa.recv_cq = cq;
	if (rdma_create_qp(conn, pd, &qpa))
		return perror("rdma_create_qp"), 3;
	rsge = (struct ibv_sge){ (uintptr_t)auth, 256, mr->lkey };
	rwr.sg_list = &rsge;
	if (ibv_post_recv(conn->qp, &rwr, &bad_r))
		return perror("ibv_post_recv"), 3;

	/* a well-formed challenge: auth required, a nonce, no key behind it */
	put32(chal, WIRE_MAGIC);
	put16(chal + 4, version);
	chal[8] = 3;			/* RMEM_AUTH_REQUIRED */
	random_bytes(chal + 16, 32 + 16);	/* nonce, pool id */
	memcpy(chal + 64, "impostor", 8);
	cp.private_data = chal;
	cp.private_data_len = sizeof(chal);
	if (rdma_accept(conn, &cp))
		return perror("rdma_accept"), 3;
	rdma_ack_cm_event(wait_event(ch, RDMA_CM_EVENT_ESTABLISHED));
	if (poll_one(cq, "AUTH receive"))
		return 3;
	printf("AUTH message from host '%.64s', flags %u\n", (char *)auth + 56,
	       auth[6]);

	/* READY: the session the client asked for, signed with noise */
	memcpy(&size, auth + 8, 8);
	size = le64toh(size);
	nr = (size + chunk - 1) / chunk;
	put32(ready, WIRE_MAGIC);
	put16(ready + 4, version);
	random_bytes(ready + 8, 8);		/* handle */
	memcpy(ready + 16, chal + 48, 16);	/* pool id */
	put64(ready + 32, 1);			/* generation */
	put64(ready + 40, size);
	put64(ready + 48, chunk);
	put32(ready + 56, nr);
	put32(ready + 60, 0x1234);		/* table rkey */
	put32(ready + 72, nr * 16);		/* table length */
	put32(ready + 76, claim_key ? 1 : 0);	/* RMEM_WIRE_READY_KEYED */
	if (!claim_key)
		random_bytes(ready + 80, 32);	/* a session key in clear */
	random_bytes(ready + 112, 32);		/* the "proof" */
	ssge = (struct ibv_sge){ (uintptr_t)ready, READY_LEN, mr->lkey };
	swr.sg_list = &ssge;
	if (ibv_post_send(conn->qp, &swr, &bad_s))
		return perror("ibv_post_send"), 3;
	if (poll_one(cq, "READY send"))
		return 3;
	printf("sent a READY %s\n", claim_key ? "signed with made-up bytes" :
	       "that claims no key was used");
	ev = wait_event(ch, (enum rdma_cm_event_type)-1);
	printf("event %s\n", rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s client|server|noreads|impostor|impostor-nokey ADDR PORT VERSION\n", argv[0]);
		return 3;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "client"))
		return run_client(argv[2], argv[3], atoi(argv[4]));
	if (!strcmp(argv[1], "noreads"))
		return run_noreads(argv[2], argv[3]);
	if (!strcmp(argv[1], "impostor"))
		return run_impostor(argv[2], argv[3], atoi(argv[4]), 1);
	if (!strcmp(argv[1], "impostor-nokey"))
		return run_impostor(argv[2], argv[3], atoi(argv[4]), 0);
	return run_server(argv[2], argv[3], atoi(argv[4]));
}
