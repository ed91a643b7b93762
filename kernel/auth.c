// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: authentication shared by both roles.
 *
 * Every MAC is HMAC-SHA256 (the kernel crypto API's "hmac(sha256)") of a
 * label, one per use of a key, and then fixed-length fields, so no two
 * messages of the protocol can be taken for one another:
 *
 *   proof   = HMAC(host key,    "rmem-client"  || transcript)
 *   session = HMAC(host key,    "rmem-session" || transcript)
 *   ready   = HMAC(session key, "rmem-ready"   || READY before its mac
 *                                               || counter)
 *   request = HMAC(session key, "rmem-ctl"     || connect request before
 *                                                 its mac || QP number)
 *
 * where the transcript is the server's challenge, the client's nonce,
 * both queue pair numbers and the client's AUTH message before its mac.
 * MACs are compared with crypto_memneq().
 */
#include <crypto/hash.h>
#include <keys/user-type.h>
#include <linux/key.h>
#include <linux/string.h>

#include "auth.h"

/**
 * rmem_mac_alloc() - an HMAC-SHA256 transform keyed with @key
 * @key: the key
 * @len: its length
 *
 * Return: the transform, or an ERR_PTR().
 */
struct crypto_shash *rmem_mac_alloc(const u8 *key, unsigned int len)
{
	struct crypto_shash *tfm;
	int ret;

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return tfm;
	ret = crypto_shash_setkey(tfm, key, len);
	if (ret) {
		crypto_free_shash(tfm);
		return ERR_PTR(ret);
	}
	return tfm;
}

/**
 * rmem_mac_free() - free a transform of rmem_mac_alloc(), wiping its key
 * @tfm: the transform, or NULL
 */
void rmem_mac_free(struct crypto_shash *tfm)
{
	if (!IS_ERR_OR_NULL(tfm))
		crypto_free_shash(tfm);
}

struct rmem_mac_part {
	const void *data;
	size_t len;
};

static int rmem_mac(struct crypto_shash *tfm, const char *label,
		    const struct rmem_mac_part *parts, unsigned int n, u8 *out)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	unsigned int i;
	int ret;

	desc->tfm = tfm;
	ret = crypto_shash_init(desc);
	if (!ret)
		ret = crypto_shash_update(desc, label, strlen(label));
	for (i = 0; !ret && i < n; i++)
		ret = crypto_shash_update(desc, parts[i].data, parts[i].len);
	if (!ret)
		ret = crypto_shash_final(desc, out);
	shash_desc_zero(desc);
	return ret;
}

/**
 * rmem_auth_mac() - a MAC of the handshake transcript under the host key
 * @tfm: keyed with the host key
 * @label: RMEM_MAC_CLIENT (the client's proof) or RMEM_MAC_SESSION (the
 *	session key)
 * @ch: the server's challenge as sent
 * @nonce: the client's nonce from its RMEM_WIRE_NEW request
 * @client_qpn: the client's queue pair number
 * @server_qpn: the server's queue pair number
 * @auth: the client's AUTH message; its mac is not covered
 * @out: RMEM_WIRE_MAC_LEN bytes
 *
 * Return: 0 or a negative errno of the crypto API.
 */
int rmem_auth_mac(struct crypto_shash *tfm, const char *label,
		  const struct rmem_wire_challenge *ch, const u8 *nonce,
		  u32 client_qpn, u32 server_qpn,
		  const struct rmem_wire_auth *auth, u8 *out)
{
	__le32 qpns[2] = { cpu_to_le32(client_qpn), cpu_to_le32(server_qpn) };
	const struct rmem_mac_part parts[] = {
		{ ch, sizeof(*ch) },
		{ nonce, RMEM_WIRE_NONCE_LEN },
		{ qpns, sizeof(qpns) },
		{ auth, offsetof(struct rmem_wire_auth, mac) },
	};

	return rmem_mac(tfm, label, parts, ARRAY_SIZE(parts), out);
}

/**
 * rmem_ready_mac() - the server's MAC of a READY message
 * @tfm: keyed with the session key
 * @r: the message; its mac is not covered
 * @counter: the counter of the RECONNECT it answers, 0 for NEW
 * @out: RMEM_WIRE_MAC_LEN bytes
 *
 * Return: 0 or a negative errno of the crypto API.
 */
int rmem_ready_mac(struct crypto_shash *tfm, const struct rmem_wire_ready *r,
		   u64 counter, u8 *out)
{
	__le64 ctr = cpu_to_le64(counter);
	const struct rmem_mac_part parts[] = {
		{ r, offsetof(struct rmem_wire_ready, mac) },
		{ &ctr, sizeof(ctr) },
	};

	return rmem_mac(tfm, "rmem-ready", parts, ARRAY_SIZE(parts), out);
}

/**
 * rmem_ctl_mac() - the MAC of a JOIN, RECONNECT or LEAVE request
 * @tfm: keyed with the session key
 * @req: the request; its mac is not covered
 * @qpn: the queue pair number its REQ carries (0 for none)
 * @out: RMEM_WIRE_MAC_LEN bytes, of which the request carries the first
 *	RMEM_WIRE_CTL_MAC_LEN
 *
 * Return: 0 or a negative errno of the crypto API.
 */
int rmem_ctl_mac(struct crypto_shash *tfm, const struct rmem_wire_connect *req,
		 u32 qpn, u8 *out)
{
	__le32 q = cpu_to_le32(qpn);
	const struct rmem_mac_part parts[] = {
		{ req, offsetof(struct rmem_wire_connect, ctl.mac) },
		{ &q, sizeof(q) },
	};

	return rmem_mac(tfm, "rmem-ctl", parts, ARRAY_SIZE(parts), out);
}

/**
 * rmem_ext_mac() - the MAC of a thin session's control message or answer
 * @tfm: keyed with the session key
 * @label: RMEM_MAC_EXT or RMEM_MAC_EXT_REPLY
 * @msg: the message
 * @len: its bytes before its mac
 * @out: RMEM_WIRE_MAC_LEN bytes
 *
 * Return: 0 or a negative errno of the crypto API.
 */
int rmem_ext_mac(struct crypto_shash *tfm, const char *label, const void *msg,
		 size_t len, u8 *out)
{
	const struct rmem_mac_part parts[] = { { msg, len } };

	return rmem_mac(tfm, label, parts, ARRAY_SIZE(parts), out);
}

/**
 * rmem_key_ok() - whether a key may be used
 * @key: RMEM_KEY_LEN bytes
 *
 * An all-zero key is what an unset buffer holds: refused.
 *
 * Return: true if it is not all zero.
 */
bool rmem_key_ok(const u8 *key)
{
	return memchr_inv(key, 0, RMEM_KEY_LEN);
}

/**
 * rmem_key_lookup() - a host key from the caller's keyrings
 * @desc: description of a "logon" key ("rmem:NAME")
 * @key: RMEM_KEY_LEN bytes, filled in
 *
 * Searches the keyrings of the calling task (the netlink request's sender)
 * without an upcall.  The payload must be the RMEM_KEY_LEN bytes of the
 * key itself.  Only "rmem:" keys: a key made for something else (disk
 * encryption, say) is never used here.
 *
 * Return: 0, -ENOKEY if there is none, -EKEYREVOKED, -EKEYEXPIRED,
 * -EMSGSIZE for a payload of another size, -EINVAL for another prefix.
 */
int rmem_key_lookup(const char *desc, u8 *key)
{
#ifdef CONFIG_KEYS
	const struct user_key_payload *ukp;
	struct key *k;
	int ret = 0;

	if (strncmp(desc, RMEM_KEY_PREFIX, strlen(RMEM_KEY_PREFIX)) ||
	    !desc[strlen(RMEM_KEY_PREFIX)])
		return -EINVAL;
	k = request_key(&key_type_logon, desc, NULL);
	if (IS_ERR(k))
		return PTR_ERR(k);
	down_read(&k->sem);
	ukp = user_key_payload_locked(k);
	if (!ukp)
		ret = -EKEYREVOKED;
	else if (ukp->datalen != RMEM_KEY_LEN)
		ret = -EMSGSIZE;
	else
		memcpy(key, ukp->data, RMEM_KEY_LEN);
	up_read(&k->sem);
	key_put(k);
	return ret;
#else
	return -ENOKEY;
#endif
}

/* @n bytes of @s, each from @lo to '~' (printable ASCII from @lo on). */
static bool rmem_chars_in(const char *s, size_t n, char lo)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < lo || s[i] > '~')
			return false;
	return true;
}

/**
 * rmem_volume_name_ok() - whether a volume name is well formed
 * @v: the name
 * @len: bytes of the buffer holding it
 *
 * Printable ASCII (blanks allowed), NUL terminated within @len, or empty
 * (anonymous memory): safe to log and to show.  The client checks what
 * the server will: a name from the wire is shown to the server's admin.
 *
 * Return: true if well formed.
 */
bool rmem_volume_name_ok(const char *v, size_t len)
{
	size_t n = strnlen(v, len);

	return n < len && rmem_chars_in(v, n, ' ');
}

/**
 * rmem_host_id_ok() - whether a host identity is well formed
 * @id: the identity
 * @len: bytes of the buffer holding it
 *
 * One to RMEM_HOST_ID_MAX - 1 printable ASCII characters without blanks,
 * NUL terminated within @len: safe to log and to show.
 *
 * Return: true if well formed.
 */
bool rmem_host_id_ok(const char *id, size_t len)
{
	size_t n = strnlen(id, len);

	return n && n < len && n < RMEM_HOST_ID_MAX &&
	       rmem_chars_in(id, n, '!');
}
