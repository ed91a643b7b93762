// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl key: host keys, and this machine's host identity.
 *
 *   rmemctl key gen                    print a new key (to put in a file)
 *   rmemctl key check FILE             check a key file, print its fingerprint
 *   rmemctl key load FILE desc DESC    put the key in the user keyring as a
 *                                      "logon" key (readable by the kernel
 *                                      only), for key-desc DESC
 *   rmemctl key unload desc DESC       take it out of the user keyring again
 *   rmemctl key identity               this machine's default host identity
 *
 * Keys never appear on a command line nor in any output but "key gen".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>

#include "crypto.h"
#include "json_print.h"
#include "key.h"
#include "rmemctl.h"
#include "utils.h"

/* base64 of the key and its CRC-32: 36 bytes, 48 characters */
#define KEY_B64_LEN	48

void key_wipe(void *p, size_t len)
{
	explicit_bzero(p, len);
}

static void key_usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl key gen\n"
		"       rmemctl key check FILE\n"
		"       rmemctl key load FILE desc DESC\n"
		"       rmemctl key unload desc DESC\n"
		"       rmemctl key identity\n"
		"       rmemctl key help\n"
		"where  FILE := a key file, mode 0600 or stricter\n"
		"       DESC := description of a \"logon\" key, \"rmem:\" and a name\n");
}

static int key_help(struct rmemctl *ctl)
{
	key_usage(stdout);
	return 0;
}

/* Parse the text form of a key.  Return: 0, or -1 after printing why. */
static int key_parse(const char *text, size_t len, const char *path,
		     uint8_t key[RMEM_KEY_LEN])
{
	size_t plen = strlen(KEY_PREFIX);
	uint8_t raw[RMEM_KEY_LEN + 4];
	uint32_t crc;
	int ret = -1;

	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
		       text[len - 1] == ' '))
		len--;
	if (len != plen + KEY_B64_LEN + 1 || strncmp(text, KEY_PREFIX, plen) ||
	    text[len - 1] != ':') {
		pr_err("%s: not an rmem key (want one line \"%s<48 base64 characters>:\", from \"rmemctl key gen\")",
		       path, KEY_PREFIX);
		return -1;
	}
	if (base64_decode(text + plen, KEY_B64_LEN, raw, sizeof(raw)) !=
	    (int)sizeof(raw)) {
		pr_err("%s: the key is not valid base64", path);
		goto out;
	}
	crc = raw[32] | raw[33] << 8 | raw[34] << 16 | (uint32_t)raw[35] << 24;
	if (crc32_ieee(raw, RMEM_KEY_LEN) != crc) {
		pr_err("%s: the key's checksum is wrong (damaged or mistyped)",
		       path);
		goto out;
	}
	memcpy(key, raw, RMEM_KEY_LEN);
	ret = 0;
out:
	key_wipe(raw, sizeof(raw));
	return ret;
}

int key_read_file(const char *path, uint8_t key[RMEM_KEY_LEN])
{
	char buf[128];
	struct stat st;
	ssize_t n;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		pr_err("cannot open key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		pr_err("cannot stat key file %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		pr_err("key file %s is not a regular file", path);
		goto out;
	}
	if (st.st_mode & 077) {
		pr_err("key file %s may be read by group or others (mode %04o): chmod 600 it",
		       path, (unsigned int)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		pr_err("key file %s belongs to another user (uid %u)", path,
		       (unsigned int)st.st_uid);
		goto out;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		pr_err("cannot read key file %s: %s", path, strerror(errno));
		goto out;
	}
	buf[n] = '\0';
	if (strlen(buf) != (size_t)n) {
		pr_err("%s: not an rmem key (binary data)", path);
		goto out;
	}
	ret = key_parse(buf, n, path, key);
	if (!ret && !memcmp(key, (uint8_t[RMEM_KEY_LEN]){ 0 }, RMEM_KEY_LEN)) {
		pr_err("%s: an all-zero key is not a key", path);
		ret = -1;
	}
out:
	key_wipe(buf, sizeof(buf));
	close(fd);
	return ret;
}

int host_identity_default(char *buf, size_t len)
{
	static const char app[] = "rmem host identity";
	uint8_t mac[SHA256_LEN];
	char id[64];
	size_t n;
	FILE *f;
	int i;

	f = fopen("/etc/machine-id", "re");
	if (!f)
		return -1;
	if (!fgets(id, sizeof(id), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strcspn(id, "\n");
	if (n != 32)
		return -1;
	hmac_sha256(id, n, app, strlen(app), mac);
	if (len < 4 + 32 + 1)
		return -1;
	memcpy(buf, "mid-", 4);
	for (i = 0; i < 16; i++)
		snprintf(buf + 4 + 2 * i, 3, "%02x", mac[i]);
	return 0;
}

/* key gen: a fresh key in its text form, on stdout only. */
static int key_gen(struct rmemctl *ctl)
{
	uint8_t raw[RMEM_KEY_LEN + 4];
	char text[KEY_B64_LEN + 1];
	uint32_t crc;
	int ret = -1;

	if (arg_end(ctl, key_usage) < 0)
		return -1;
	if (getrandom(raw, RMEM_KEY_LEN, 0) != RMEM_KEY_LEN) {
		pr_err("cannot get random bytes: %s", strerror(errno));
		return -1;
	}
	crc = crc32_ieee(raw, RMEM_KEY_LEN);
	raw[32] = crc;
	raw[33] = crc >> 8;
	raw[34] = crc >> 16;
	raw[35] = crc >> 24;
	base64_encode(raw, sizeof(raw), text);
	if (printf("%s%s:\n", KEY_PREFIX, text) > 0)
		ret = 0;
	key_wipe(raw, sizeof(raw));
	key_wipe(text, sizeof(text));
	return ret;
}

/* The first 8 bytes of SHA-256 of the key: tells keys apart, safely. */
static const char *key_fingerprint(char *buf, size_t len,
				   const uint8_t key[RMEM_KEY_LEN])
{
	uint8_t h[SHA256_LEN];

	sha256(key, RMEM_KEY_LEN, h);
	return fmt_hex(buf, len, h, 8);
}

/* key check FILE */
static int key_check(struct rmemctl *ctl)
{
	const char *path = arg_next(ctl);
	uint8_t key[RMEM_KEY_LEN];
	char fp[32];

	if (!path)
		return arg_missing("key file", key_usage);
	if (arg_end(ctl, key_usage) < 0 || key_read_file(path, key) < 0)
		return -1;
	open_json_object(NULL);
	print_string(PRINT_ANY, "file", "%s:", path);
	print_string(PRINT_ANY, "fingerprint", " key ok, fingerprint %s",
		     key_fingerprint(fp, sizeof(fp), key));
	print_nl();
	close_json_object();
	key_wipe(key, sizeof(key));
	return 0;
}

/* key load FILE desc DESC: a "logon" key in the user keyring */
static int key_load(struct rmemctl *ctl)
{
	const char *path = arg_next(ctl), *word, *desc = NULL;
	uint8_t key[RMEM_KEY_LEN];
	bool has_desc = false;
	long serial;

	if (!path)
		return arg_missing("key file", key_usage);
	while ((word = arg_next(ctl))) {
		if (strcmp(word, "desc"))
			return arg_unknown(word, key_usage);
		desc = arg_value(ctl, word, &has_desc);
		if (!desc)
			return -1;
	}
	if (!desc)
		return arg_missing("\"desc DESC\"", key_usage);
	if (strncmp(desc, "rmem:", 5) || !desc[5]) {
		pr_err("invalid key description '%s': rmem's keys are rmem:NAME",
		       desc);
		return -1;
	}
	if (key_read_file(path, key) < 0)
		return -1;
	serial = syscall(SYS_add_key, "logon", desc, key, sizeof(key),
			 KEY_SPEC_USER_KEYRING);
	key_wipe(key, sizeof(key));
	if (serial < 0) {
		pr_err("cannot add the key to the user keyring: %s",
		       strerror(errno));
		return -1;
	}
	open_json_object(NULL);
	print_string(PRINT_ANY, "desc", "%s:", desc);
	print_uint(PRINT_ANY, "serial", " logon key %u in the user keyring",
		   (unsigned int)serial);
	print_nl();
	close_json_object();
	return 0;
}

/* key unload desc DESC: invalidate the "logon" key DESC of the user keyring */
static int key_unload(struct rmemctl *ctl)
{
	const char *word = arg_next(ctl), *desc;
	long serial;

	if (!word || strcmp(word, "desc"))
		return arg_missing("\"desc DESC\"", key_usage);
	desc = arg_value(ctl, word, NULL);
	if (!desc || arg_end(ctl, key_usage) < 0)
		return -1;
	serial = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING,
			 "logon", desc, 0);
	if (serial < 0) {
		pr_err("no \"logon\" key %s in the user keyring: %s", desc,
		       strerror(errno));
		return -1;
	}
	if (syscall(SYS_keyctl, KEYCTL_INVALIDATE, serial) < 0) {
		pr_err("cannot remove the key %s: %s", desc, strerror(errno));
		return -1;
	}
	return 0;
}

/* key identity */
static int key_identity(struct rmemctl *ctl)
{
	char id[RMEM_HOST_ID_MAX];

	if (arg_end(ctl, key_usage) < 0)
		return -1;
	if (host_identity_default(id, sizeof(id)) < 0) {
		pr_err("no host identity: /etc/machine-id is missing or malformed");
		return -1;
	}
	open_json_object(NULL);
	print_string(PRINT_ANY, "identity", "%s", id);
	print_nl();
	close_json_object();
	return 0;
}

static const struct cmd key_cmds[] = {
	{ "gen",	key_gen },
	{ "check",	key_check },
	{ "load",	key_load },
	{ "unload",	key_unload },
	{ "identity",	key_identity },
	{ "help",	key_help },
	{ NULL,		NULL }
};

int cmd_key(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "key command", key_cmds, NULL, key_usage);
}
