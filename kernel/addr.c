// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: address helpers shared by the server and netlink code.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <net/ipv6.h>

#include "rmem.h"

static bool rmem_bits_match(const u8 *a, const u8 *b, unsigned int bits)
{
	unsigned int bytes = bits / 8, rest = bits % 8;

	if (memcmp(a, b, bytes))
		return false;
	if (!rest)
		return true;
	return !((a[bytes] ^ b[bytes]) & (0xff << (8 - rest)));
}

/**
 * rmem_prefix_match() - does an address fall in a prefix
 * @p: the prefix
 * @addr: the address (IPv4 or IPv6; IPv4-mapped IPv6 matches IPv4)
 *
 * Return: true if @addr is in @p.
 */
bool rmem_prefix_match(const struct rmem_prefix *p, const struct sockaddr *addr)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)addr;
	const struct sockaddr_in6 *p6 = (const struct sockaddr_in6 *)&p->addr;
	const struct sockaddr_in *p4 = (const struct sockaddr_in *)&p->addr;

	if (p->addr.ss_family == AF_INET) {
		if (addr->sa_family == AF_INET)
			return rmem_bits_match((const u8 *)&p4->sin_addr,
					       (const u8 *)&a4->sin_addr, p->len);
		if (addr->sa_family == AF_INET6 &&
		    ipv6_addr_v4mapped(&a6->sin6_addr))
			return rmem_bits_match((const u8 *)&p4->sin_addr,
					       (const u8 *)&a6->sin6_addr.s6_addr32[3],
					       p->len);
		return false;
	}
	if (p->addr.ss_family == AF_INET6 && addr->sa_family == AF_INET6)
		return rmem_bits_match(p6->sin6_addr.s6_addr,
				       a6->sin6_addr.s6_addr, p->len);
	return false;
}

/**
 * rmem_addr_port() - the port of an IPv4 or IPv6 socket address
 * @ss: the address
 *
 * Return: the port in host order, 0 for other families.
 */
u16 rmem_addr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

/**
 * rmem_addr_same_host() - whether two socket addresses name one host
 * @a: the first address
 * @b: the second (IPv4-mapped IPv6 matches IPv4 in @a)
 *
 * Ports are not compared.
 *
 * Return: true if the addresses are the same.
 */
bool rmem_addr_same_host(const struct sockaddr_storage *a,
			 const struct sockaddr *b)
{
	struct rmem_prefix p = {
		.addr = *a,
		.len = a->ss_family == AF_INET ? 32 : 128,
	};

	if (a->ss_family != AF_INET && a->ss_family != AF_INET6)
		return false;
	return rmem_prefix_match(&p, b);
}
