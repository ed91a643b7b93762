// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl dev: the client block devices (rmemN) backed by remote memory.
 *
 * The device printer is shared with "monitor", whose DEV_STATE_NTF and
 * DEV_NOSPC_NTF events carry the same RMEM_A_DEV nest as a DEV_GET reply.
 */
#include <string.h>
#include <linux/rmem.h>

#include "json_print.h"
#include "key.h"
#include "rmemctl.h"
#include "utils.h"

static const enum mnl_attr_data_type dev_top_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_DEV] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type dev_policy[RMEM_A_DEV_MAX + 1] = {
	[RMEM_A_DEV_NAME] = MNL_TYPE_NUL_STRING,
	[RMEM_A_DEV_PEER_IPV4] = MNL_TYPE_BINARY,
	[RMEM_A_DEV_PEER_IPV6] = MNL_TYPE_BINARY,
	[RMEM_A_DEV_PEER_PORT] = MNL_TYPE_U16,
	[RMEM_A_DEV_SIZE] = MNL_TYPE_U64,
	[RMEM_A_DEV_VOLUME] = MNL_TYPE_NUL_STRING,
	[RMEM_A_DEV_QPS] = MNL_TYPE_U32,
	[RMEM_A_DEV_QUEUE_DEPTH] = MNL_TYPE_U32,
	[RMEM_A_DEV_READ_SPLIT] = MNL_TYPE_U32,
	[RMEM_A_DEV_READ_DEPTH] = MNL_TYPE_U32,
	[RMEM_A_DEV_READ_DEPTH_GRANTED] = MNL_TYPE_U32,
	[RMEM_A_DEV_MEMORY] = MNL_TYPE_U64,
	[RMEM_A_DEV_POLL_QPS] = MNL_TYPE_U32,
	[RMEM_A_DEV_KEEPALIVE_MS] = MNL_TYPE_U32,
	[RMEM_A_DEV_LOSS_TIMEOUT_MS] = MNL_TYPE_U32,
	[RMEM_A_DEV_RECONNECTS] = MNL_TYPE_U32,
	[RMEM_A_DEV_STATE] = MNL_TYPE_U32,
	[RMEM_A_DEV_SERVER_ID] = MNL_TYPE_BINARY,
	[RMEM_A_DEV_GENERATION] = MNL_TYPE_U64,
	[RMEM_A_DEV_MR_SIZE] = MNL_TYPE_U64,
	[RMEM_A_DEV_FORCE] = MNL_TYPE_FLAG,
	[RMEM_A_DEV_STATS] = MNL_TYPE_NESTED,
	[RMEM_A_DEV_HOST_ID] = MNL_TYPE_NUL_STRING,
	[RMEM_A_DEV_AUTH] = MNL_TYPE_U8,
	[RMEM_A_DEV_SERVER_NAME] = MNL_TYPE_NUL_STRING,
	[RMEM_A_DEV_WIRE_VERSION] = MNL_TYPE_U32,
	[RMEM_A_DEV_SERVER_FREE] = MNL_TYPE_U64,
	[RMEM_A_DEV_EXTENT] = MNL_TYPE_U64,
	[RMEM_A_DEV_EXTENTS_HELD] = MNL_TYPE_U32,
	[RMEM_A_DEV_NOSPC_EXTENT] = MNL_TYPE_U32,
	[RMEM_A_DEV_PEER] = MNL_TYPE_NESTED,
	[RMEM_A_DEV_REPLICAS] = MNL_TYPE_U8,
	[RMEM_A_DEV_EXTENTS_DEGRADED] = MNL_TYPE_U32,
	[RMEM_A_DEV_RESYNCING] = MNL_TYPE_U8,
	[RMEM_A_DEV_RESYNC_DONE] = MNL_TYPE_U32,
	[RMEM_A_DEV_RESYNC_TOTAL] = MNL_TYPE_U32,
};

const enum mnl_attr_data_type dev_peer_policy[RMEM_A_PEER_MAX + 1] = {
	[RMEM_A_PEER_IPV4] = MNL_TYPE_BINARY,
	[RMEM_A_PEER_IPV6] = MNL_TYPE_BINARY,
	[RMEM_A_PEER_PORT] = MNL_TYPE_U16,
	[RMEM_A_PEER_STATE] = MNL_TYPE_U32,
	[RMEM_A_PEER_SERVER_FREE] = MNL_TYPE_U64,
	[RMEM_A_PEER_EXTENTS_HELD] = MNL_TYPE_U32,
	[RMEM_A_PEER_SERVER_NAME] = MNL_TYPE_NUL_STRING,
	[RMEM_A_PEER_RECONNECTS] = MNL_TYPE_U32,
	[RMEM_A_PEER_DRAINING] = MNL_TYPE_FLAG,
};

static const enum mnl_attr_data_type stats_policy[RMEM_A_STATS_MAX + 1] = {
	[RMEM_A_STATS_READS] = MNL_TYPE_U64,
	[RMEM_A_STATS_READ_BYTES] = MNL_TYPE_U64,
	[RMEM_A_STATS_WRITES] = MNL_TYPE_U64,
	[RMEM_A_STATS_WRITE_BYTES] = MNL_TYPE_U64,
	[RMEM_A_STATS_ZEROES] = MNL_TYPE_U64,
	[RMEM_A_STATS_ERRORS] = MNL_TYPE_U64,
	[RMEM_A_STATS_DISCARDS] = MNL_TYPE_U64,
	[RMEM_A_STATS_DISCARD_BYTES] = MNL_TYPE_U64,
	[RMEM_A_STATS_READ_LATENCY] = MNL_TYPE_NESTED,
	[RMEM_A_STATS_WRITE_LATENCY] = MNL_TYPE_NESTED,
};

/* Every RMEM_A_LAT_BUCKET is checked, not only the last one kept. */
static const enum mnl_attr_data_type lat_policy[RMEM_A_LAT_MAX + 1] = {
	[RMEM_A_LAT_BUCKET] = MNL_TYPE_U64,
	[RMEM_A_LAT_MAX_NS] = MNL_TYPE_U64,
};

/* The counters in the order they are printed. */
static const struct {
	uint16_t type;
	const char *key;	/* JSON */
	const char *fmt;	/* text */
} dev_stats[] = {
	{ RMEM_A_STATS_READS,		"reads",	" reads %llu" },
	{ RMEM_A_STATS_READ_BYTES,	"read_bytes",	" read-bytes %llu" },
	{ RMEM_A_STATS_WRITES,		"writes",	" writes %llu" },
	{ RMEM_A_STATS_WRITE_BYTES,	"write_bytes",	" write-bytes %llu" },
	{ RMEM_A_STATS_ZEROES,		"zeroes",	" zeroes %llu" },
	{ RMEM_A_STATS_ERRORS,		"errors",	" errors %llu" },
	{ RMEM_A_STATS_DISCARDS,	"discards",	" discards %llu" },
	{ RMEM_A_STATS_DISCARD_BYTES,	"discard_bytes", " discard-bytes %llu" },
};

/* The latency histograms, each on a text line of its own. */
static const struct {
	uint16_t type;
	const char *key;	/* JSON */
	const char *label;	/* text */
} dev_lats[] = {
	{ RMEM_A_STATS_READ_LATENCY,	"read_latency",	"read latency:" },
	{ RMEM_A_STATS_WRITE_LATENCY,	"write_latency", "write latency:" },
};

/* The percentiles printed of a histogram, in thousandths. */
static const struct {
	unsigned int per_mille;
	const char *key;	/* JSON, in microseconds */
	const char *fmt;	/* text */
} lat_pcts[] = {
	{ 500,	"p50_us",	" p50 %s" },
	{ 900,	"p90_us",	" p90 %s" },
	{ 990,	"p99_us",	" p99 %s" },
	{ 999,	"p999_us",	" p99.9 %s" },
};

static const char *const dev_state_names[] = {
	[RMEM_DEV_STATE_CONNECTING] = "connecting",
	[RMEM_DEV_STATE_LIVE] = "live",
	[RMEM_DEV_STATE_DEAD] = "dead",
	[RMEM_DEV_STATE_DELETING] = "deleting",
	[RMEM_DEV_STATE_RECONNECTING] = "reconnecting",
};

/*
 * Text lines after the first are indented by four spaces: three here,
 * and one that starts the format of every field.
 */
#define NEXT_LINE	"\n   "

void dev_usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl dev add peer ADDR[:PORT] [ peer ADDR[:PORT] ... ]\n"
		"                       size SIZE [ volume VOL ]\n"
		"                       [ qps N ] [ poll-qps N ] [ queue-depth N ]\n"
		"                       [ keepalive TIME ] [ loss-timeout TIME ]\n"
		"                       [ read-split SIZE | read-split off ]\n"
		"                       [ read-depth N ] [ extent SIZE ] [ replicas N ]\n"
		"                       [ host ID ] [ key-file FILE | key-desc DESC ]\n"
		"                       [ name DEV ]\n"
		"       rmemctl dev del DEV [ force ]\n"
		"       rmemctl dev show [ -s ] [ DEV ]\n"
		"       rmemctl dev stats reset DEV\n"
		"       rmemctl dev set DEV peer add ADDR[:PORT] [ key-file FILE | key-desc DESC ]\n"
		"       rmemctl dev set DEV peer del ADDR[:PORT] [ nowait ]\n"
		"       rmemctl dev help\n"
		"where  DEV := rmemN (or /dev/rmemN)\n"
		"       ID := this host's identity (default: \"rmemctl key identity\")\n"
		"       FILE := a key file (\"rmemctl key gen\"), mode 0600\n"
		"       DESC := a \"logon\" key in the keyring (\"rmemctl key load\");\n"
		"               default: rmem:ADDR, if there is one\n");
	usage_syntax(f, false);
}

static int dev_help(struct rmemctl *ctl)
{
	dev_usage(stdout);
	return 0;
}

static const char *dev_state_str(char *buf, size_t len, uint32_t state)
{
	if (state < ARRAY_SIZE(dev_state_names) && dev_state_names[state])
		return dev_state_names[state];
	snprintf(buf, len, "unknown(%u)", state);
	return buf;
}

/* @a + @b, or UINT64_MAX if that overflows (only a corrupt reply can). */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * The @per_mille percentile of a histogram of @total (> 0) requests, in
 * microseconds: the upper bound of the bucket that holds the request of
 * that rank, 2^(i+1) us for bucket i, or the longest latency when that
 * lies in the same bucket and is lower, as it always is for the last
 * bucket, which has no upper bound (a longest latency of 0 or too low
 * for that bucket, as a reset at the same moment may leave, is ignored:
 * the last bucket then gives 2^RMEM_LAT_BUCKETS us).
 */
static uint64_t lat_percentile(const uint64_t *counts, uint64_t total,
			       uint64_t max_us, unsigned int per_mille)
{
	/* ceil(total * per_mille / 1000), without overflow */
	uint64_t rank = total / 1000 * per_mille +
			(total % 1000 * per_mille + 999) / 1000;
	uint64_t seen = 0, low, high;
	unsigned int i;

	for (i = 0; i < RMEM_LAT_BUCKETS - 1; i++) {
		seen = add_sat(seen, counts[i]);
		if (seen >= rank)
			break;
	}
	low = i ? 1ULL << i : 0;
	high = 1ULL << (i + 1);
	if (max_us && max_us >= low &&
	    (max_us < high || i == RMEM_LAT_BUCKETS - 1))
		return max_us;
	return high;
}

/* A latency histogram of a reply. */
struct dev_lat {
	uint64_t counts[RMEM_LAT_BUCKETS];
	uint64_t total;		/* requests: the sum of the counts */
	uint64_t max_ns;
	bool has_max;
};

/*
 * Take RMEM_LAT_BUCKETS buckets, in the order given; missing ones count 0,
 * extra ones count in the last.  Return: 0, or -1 after printing why.
 */
static int dev_parse_lat(const struct nlattr *nest, struct dev_lat *lat)
{
	const struct nlattr *tb[RMEM_A_LAT_MAX + 1], *attr;
	unsigned int n = 0;
	size_t i;

	memset(lat, 0, sizeof(*lat));
	if (nl_parse_nested(nest, tb, RMEM_A_LAT_MAX, lat_policy) < 0)
		return -1;
	/* more than we know of (a newer kernel): they are all beyond ours */
	mnl_attr_for_each_nested(attr, nest)
		if (mnl_attr_get_type(attr) == RMEM_A_LAT_BUCKET) {
			if (n < RMEM_LAT_BUCKETS)
				lat->counts[n++] = mnl_attr_get_u64(attr);
			else
				lat->counts[RMEM_LAT_BUCKETS - 1] =
					add_sat(lat->counts[RMEM_LAT_BUCKETS - 1],
						mnl_attr_get_u64(attr));
		}
	for (i = 0; i < RMEM_LAT_BUCKETS; i++)
		lat->total = add_sat(lat->total, lat->counts[i]);
	if (tb[RMEM_A_LAT_MAX_NS]) {
		lat->max_ns = mnl_attr_get_u64(tb[RMEM_A_LAT_MAX_NS]);
		lat->has_max = true;
	}
	return 0;
}

/*
 * A latency histogram, an object @key in "stats", and for one with
 * requests a text line: percentiles, the longest latency and the number
 * of requests.
 */
static void dev_print_lat(const struct dev_lat *lat, const char *key,
			  const char *label)
{
	uint64_t max_us = lat->max_ns / 1000 + (lat->max_ns % 1000 != 0);
	char buf[LATENCY_STR_LEN];
	uint64_t us;
	size_t i;

	open_json_object(key);
	open_json_array(PRINT_JSON, "counts");
	for (i = 0; i < RMEM_LAT_BUCKETS; i++)
		print_u64(PRINT_JSON, NULL, NULL, lat->counts[i]);
	close_json_array(PRINT_JSON, NULL);
	if (lat->total)
		print_string(PRINT_FP, NULL, NEXT_LINE " %s", label);
	for (i = 0; i < ARRAY_SIZE(lat_pcts); i++) {
		if (!lat->total) {
			/* null: no request, no percentile */
			print_string(PRINT_JSON, lat_pcts[i].key, NULL, NULL);
			continue;
		}
		us = lat_percentile(lat->counts, lat->total, max_us,
				    lat_pcts[i].per_mille);
		print_u64(PRINT_JSON, lat_pcts[i].key, NULL, us);
		/* one that is the longest latency (in us, rounded up)
		 * is printed as "max" is */
		print_string(PRINT_FP, NULL, lat_pcts[i].fmt,
			     fmt_latency(buf, sizeof(buf),
					 us == max_us ? lat->max_ns / 1000.0 :
							(double)us));
	}
	if (lat->has_max) {
		print_u64(PRINT_JSON, "max_ns", NULL, lat->max_ns);
		if (lat->total)
			print_string(PRINT_FP, NULL, " max %s",
				     fmt_latency(buf, sizeof(buf),
						 lat->max_ns / 1000.0));
	}
	if (lat->total)
		print_u64(PRINT_FP, NULL,
			  lat->total == 1 ? " (%llu request)" :
					    " (%llu requests)",
			  lat->total);
	close_json_object();
}

/*
 * The "stats" object, or the third text line and one more for each
 * latency histogram with requests (none from a kernel without them).
 */
static int dev_print_stats(const struct nlattr *nest)
{
	const struct nlattr *tb[RMEM_A_STATS_MAX + 1];
	struct dev_lat lats[ARRAY_SIZE(dev_lats)];
	size_t i;

	if (nl_parse_nested(nest, tb, RMEM_A_STATS_MAX, stats_policy) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(dev_lats); i++)
		if (tb[dev_lats[i].type] &&
		    dev_parse_lat(tb[dev_lats[i].type], &lats[i]) < 0)
			return -1;

	open_json_object("stats");
	print_string(PRINT_FP, NULL, "%s", NEXT_LINE);
	for (i = 0; i < ARRAY_SIZE(dev_stats); i++)
		if (tb[dev_stats[i].type])
			print_u64(PRINT_ANY, dev_stats[i].key, dev_stats[i].fmt,
				  mnl_attr_get_u64(tb[dev_stats[i].type]));
	for (i = 0; i < ARRAY_SIZE(dev_lats); i++)
		if (tb[dev_lats[i].type])
			dev_print_lat(&lats[i], dev_lats[i].key,
				      dev_lats[i].label);
	close_json_object();
	return 0;
}

/*
 * A duration in ms: a number under @key in JSON, the text format @fmt
 * with "30s" or "1500ms" (see fmt_duration()).
 */
static void print_duration(const char *key, const char *fmt,
			   const struct nlattr *attr)
{
	char buf[DURATION_STR_LEN];
	uint32_t ms = mnl_attr_get_u32(attr);

	print_uint(PRINT_JSON, key, NULL, ms);
	print_string(PRINT_FP, NULL, fmt,
		     fmt_duration(buf, sizeof(buf), ms));
}

/*
 * The servers of a device over several (RMEM_A_DEV_PEER, multi-attr):
 * a text line each, or the JSON array "peers".
 */
static int dev_print_peers(const struct nlattr *dev_nest)
{
	const struct nlattr *a;
	bool any = false;

	mnl_attr_for_each_nested(a, dev_nest) {
		const struct nlattr *tb[RMEM_A_PEER_MAX + 1];
		char buf[ADDR_STR_LEN];
		struct inet_addr peer;

		if (mnl_attr_get_type(a) != RMEM_A_DEV_PEER)
			continue;
		if (nl_parse_nested(a, tb, RMEM_A_PEER_MAX, dev_peer_policy) < 0) {
			/* the JSON output stays well formed */
			if (any)
				close_json_array(PRINT_JSON, NULL);
			return -1;
		}
		if (!any)
			open_json_array(PRINT_JSON, "peers");
		any = true;
		open_json_object(NULL);
		print_string(PRINT_FP, NULL, "%s", NEXT_LINE);
		if (!nl_get_addr(tb[RMEM_A_PEER_IPV4], tb[RMEM_A_PEER_IPV6],
				 tb[RMEM_A_PEER_PORT], &peer))
			print_string(PRINT_ANY, "peer", " peer %s",
				     fmt_addr_port(buf, sizeof(buf), &peer));
		if (tb[RMEM_A_PEER_STATE])
			print_string(PRINT_ANY, "state", " state %s",
				     dev_state_str(buf, sizeof(buf),
						   mnl_attr_get_u32(tb[RMEM_A_PEER_STATE])));
		if (tb[RMEM_A_PEER_SERVER_NAME])
			print_string(PRINT_ANY, "server", " server %s",
				     mnl_attr_get_str(tb[RMEM_A_PEER_SERVER_NAME]));
		if (tb[RMEM_A_PEER_EXTENTS_HELD])
			print_uint(PRINT_ANY, "extents_held", " held %u",
				   mnl_attr_get_u32(tb[RMEM_A_PEER_EXTENTS_HELD]));
		if (tb[RMEM_A_PEER_SERVER_FREE])
			print_size(PRINT_ANY, "server_free", " server-free %s",
				   mnl_attr_get_u64(tb[RMEM_A_PEER_SERVER_FREE]));
		if (tb[RMEM_A_PEER_RECONNECTS])
			print_uint(PRINT_ANY, "reconnects", " reconnects %u",
				   mnl_attr_get_u32(tb[RMEM_A_PEER_RECONNECTS]));
		print_bool(PRINT_JSON, "draining", NULL,
			   !!tb[RMEM_A_PEER_DRAINING]);
		if (tb[RMEM_A_PEER_DRAINING])
			print_string(PRINT_FP, NULL, "%s", " draining");
		close_json_object();
	}
	if (any)
		close_json_array(PRINT_JSON, NULL);
	return 0;
}

/*
 * One device: two lines of text, and with @stats (dev show -s, events) a
 * third with the counters and one per latency histogram with requests;
 * or one JSON object, which always has the counters.
 */
static int dev_print(const struct nlattr *nest, bool stats)
{
	const struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	char buf[ADDR_STR_LEN];
	struct inet_addr peer;
	int ret = 0;

	if (nl_parse_nested(nest, tb, RMEM_A_DEV_MAX, dev_policy) < 0)
		return -1;
	if (!tb[RMEM_A_DEV_NAME]) {
		pr_err("kernel reply without a device name");
		return -1;
	}

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "%s:",
		     mnl_attr_get_str(tb[RMEM_A_DEV_NAME]));
	if (!nl_get_addr(tb[RMEM_A_DEV_PEER_IPV4], tb[RMEM_A_DEV_PEER_IPV6],
			 tb[RMEM_A_DEV_PEER_PORT], &peer))
		print_string(PRINT_ANY, "peer", " peer %s",
			     fmt_addr_port(buf, sizeof(buf), &peer));
	if (tb[RMEM_A_DEV_SIZE])
		print_size(PRINT_ANY, "size", " size %s",
			   mnl_attr_get_u64(tb[RMEM_A_DEV_SIZE]));
	if (tb[RMEM_A_DEV_VOLUME])
		print_string(PRINT_ANY, "volume", " volume %s",
			     mnl_attr_get_str(tb[RMEM_A_DEV_VOLUME]));
	if (tb[RMEM_A_DEV_QPS])
		print_uint(PRINT_ANY, "qps", " qps %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_QPS]));
	if (tb[RMEM_A_DEV_POLL_QPS] && mnl_attr_get_u32(tb[RMEM_A_DEV_POLL_QPS]))
		print_uint(PRINT_ANY, "poll_qps", " poll-qps %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_POLL_QPS]));
	if (tb[RMEM_A_DEV_QUEUE_DEPTH])
		print_uint(PRINT_ANY, "queue_depth", " queue-depth %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_QUEUE_DEPTH]));
	if (tb[RMEM_A_DEV_READ_SPLIT]) {
		uint32_t split = mnl_attr_get_u32(tb[RMEM_A_DEV_READ_SPLIT]);

		if (split || is_json_context())
			print_size(PRINT_ANY, "read_split", " read-split %s",
				   split);
		else
			print_string(PRINT_FP, NULL, "%s", " read-split off");
	}
	if (tb[RMEM_A_DEV_READ_DEPTH])
		print_uint(PRINT_ANY, "read_depth", " read-depth %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_READ_DEPTH]));
	if (tb[RMEM_A_DEV_EXTENT])
		print_size(PRINT_ANY, "extent", " extent %s",
			   mnl_attr_get_u64(tb[RMEM_A_DEV_EXTENT]));
	if (tb[RMEM_A_DEV_EXTENTS_HELD])
		print_uint(PRINT_ANY, "extents_held", " (held %u)",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_EXTENTS_HELD]));
	if (tb[RMEM_A_DEV_NOSPC_EXTENT])
		print_uint(PRINT_ANY, "nospc_extent", " nospc-extent %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_NOSPC_EXTENT]));
	if (tb[RMEM_A_DEV_REPLICAS])
		print_uint(PRINT_ANY, "replicas", " replicas %u",
			   mnl_attr_get_u8(tb[RMEM_A_DEV_REPLICAS]));
	if (tb[RMEM_A_DEV_EXTENTS_DEGRADED])
		print_uint(PRINT_ANY, "extents_degraded", " degraded %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_EXTENTS_DEGRADED]));
	if (tb[RMEM_A_DEV_RESYNCING])
		print_string(PRINT_ANY, "resync", " resync %s",
			     mnl_attr_get_u8(tb[RMEM_A_DEV_RESYNCING]) ?
			     "running" : "idle");
	if (tb[RMEM_A_DEV_RESYNC_DONE] && tb[RMEM_A_DEV_RESYNC_TOTAL]) {
		print_uint(PRINT_ANY, "resync_done", " %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_RESYNC_DONE]));
		print_uint(PRINT_ANY, "resync_total", "/%u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_RESYNC_TOTAL]));
	}
	/* text: only when the server granted less than asked */
	if (tb[RMEM_A_DEV_READ_DEPTH_GRANTED]) {
		uint32_t g = mnl_attr_get_u32(tb[RMEM_A_DEV_READ_DEPTH_GRANTED]);

		if (is_json_context() || !tb[RMEM_A_DEV_READ_DEPTH] ||
		    g != mnl_attr_get_u32(tb[RMEM_A_DEV_READ_DEPTH]))
			print_uint(PRINT_ANY, "read_depth_granted",
				   " (granted %u)", g);
	}
	if (tb[RMEM_A_DEV_KEEPALIVE_MS])
		print_duration("keepalive_ms", " keepalive %s",
			       tb[RMEM_A_DEV_KEEPALIVE_MS]);
	if (tb[RMEM_A_DEV_LOSS_TIMEOUT_MS])
		print_duration("loss_timeout_ms", " loss-timeout %s",
			       tb[RMEM_A_DEV_LOSS_TIMEOUT_MS]);
	if (tb[RMEM_A_DEV_STATE])
		print_string(PRINT_ANY, "state", " state %s",
			     dev_state_str(buf, sizeof(buf),
					   mnl_attr_get_u32(tb[RMEM_A_DEV_STATE])));

	if (tb[RMEM_A_DEV_SERVER_ID] || tb[RMEM_A_DEV_GENERATION] ||
	    tb[RMEM_A_DEV_MR_SIZE] || tb[RMEM_A_DEV_RECONNECTS])
		print_string(PRINT_FP, NULL, "%s", NEXT_LINE);
	if (tb[RMEM_A_DEV_SERVER_NAME])
		print_string(PRINT_ANY, "server", " server %s",
			     mnl_attr_get_str(tb[RMEM_A_DEV_SERVER_NAME]));
	if (tb[RMEM_A_DEV_SERVER_ID])
		print_string(PRINT_ANY, "server_id", " server-id %s",
			     fmt_hex(buf, sizeof(buf),
				     mnl_attr_get_payload(tb[RMEM_A_DEV_SERVER_ID]),
				     mnl_attr_get_payload_len(tb[RMEM_A_DEV_SERVER_ID])));
	if (tb[RMEM_A_DEV_GENERATION])
		print_u64(PRINT_ANY, "generation", " generation %llu",
			  mnl_attr_get_u64(tb[RMEM_A_DEV_GENERATION]));
	if (tb[RMEM_A_DEV_MR_SIZE])
		print_size(PRINT_ANY, "mr_size", " mr-size %s",
			   mnl_attr_get_u64(tb[RMEM_A_DEV_MR_SIZE]));
	if (tb[RMEM_A_DEV_SERVER_FREE])
		print_size(PRINT_ANY, "server_free", " server-free %s",
			   mnl_attr_get_u64(tb[RMEM_A_DEV_SERVER_FREE]));
	if (tb[RMEM_A_DEV_WIRE_VERSION])
		print_uint(PRINT_ANY, "wire_version", " wire-version %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_WIRE_VERSION]));
	if (tb[RMEM_A_DEV_RECONNECTS])
		print_uint(PRINT_ANY, "reconnects", " reconnects %u",
			   mnl_attr_get_u32(tb[RMEM_A_DEV_RECONNECTS]));
	if (tb[RMEM_A_DEV_MEMORY])
		print_size(PRINT_ANY, "memory", " memory %s",
			   mnl_attr_get_u64(tb[RMEM_A_DEV_MEMORY]));
	if (tb[RMEM_A_DEV_HOST_ID])
		print_string(PRINT_ANY, "host", " host %s",
			     mnl_attr_get_str(tb[RMEM_A_DEV_HOST_ID]));
	if (tb[RMEM_A_DEV_AUTH]) {
		bool auth = mnl_attr_get_u8(tb[RMEM_A_DEV_AUTH]);

		print_bool(PRINT_JSON, "auth", NULL, auth);
		print_string(PRINT_FP, NULL, " %s",
			     auth ? "authenticated" : "unauthenticated");
	}

	if (tb[RMEM_A_DEV_PEER] && dev_print_peers(nest) < 0)
		ret = -1;
	if (!ret && tb[RMEM_A_DEV_STATS] && (stats || is_json_context()))
		ret = dev_print_stats(tb[RMEM_A_DEV_STATS]);
	print_nl();
	close_json_object();
	return ret;
}

/* The RMEM_A_DEV nest of a reply, or NULL after printing why. */
const struct nlattr *dev_nest(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[RMEM_A_MAX + 1];

	if (nl_parse(nlh, tb, RMEM_A_MAX, dev_top_policy) < 0)
		return NULL;
	if (!tb[RMEM_A_DEV])
		pr_err("kernel reply without a device");
	return tb[RMEM_A_DEV];
}

int dev_print_msg(const struct nlmsghdr *nlh, bool stats)
{
	const struct nlattr *nest = dev_nest(nlh);

	if (!nest || dev_print(nest, stats) < 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

/* @data: whether the text has the counters (dev show -s or rmemctl -s) */
static int dev_show_cb(const struct nlmsghdr *nlh, void *data)
{
	return dev_print_msg(nlh, *(const bool *)data);
}

/* Start a request whose RMEM_A_DEV nest holds the device's name. */
struct nlattr *dev_msg(struct nl *nl, uint8_t cmd, const char *name)
{
	struct nlattr *nest;

	nl_msg(nl, cmd, 0);
	nest = nl_nest_start(nl, RMEM_A_DEV);
	if (name)
		nl_put_strz(nl, RMEM_A_DEV_NAME, name);
	return nest;
}

struct dev_add_ctx {
	bool printed;
};

/* The reply to DEV_ADD: the new device's path, or its JSON object. */
static int dev_add_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	const struct nlattr *nest = dev_nest(nlh);
	struct dev_add_ctx *ctx = data;

	if (!nest)
		return MNL_CB_ERROR;
	if (ctx->printed)
		return MNL_CB_OK;
	if (is_json_context()) {
		if (dev_print(nest, true) < 0)
			return MNL_CB_ERROR;
	} else {
		if (nl_parse_nested(nest, tb, RMEM_A_DEV_MAX, dev_policy) < 0)
			return MNL_CB_ERROR;
		if (!tb[RMEM_A_DEV_NAME]) {
			pr_err("kernel reply without a device name");
			return MNL_CB_ERROR;
		}
		print_string(PRINT_FP, NULL, "/dev/%s\n",
			     mnl_attr_get_str(tb[RMEM_A_DEV_NAME]));
	}
	ctx->printed = true;
	return MNL_CB_OK;
}

/*
 * The identity and key of dev add: @host given or the default identity;
 * the key from @key_file, or none (the kernel then looks for @key_desc or
 * "rmem:ADDR" in the keyrings).  Return: 0, or -1 after printing why.
 */
static int dev_add_auth(const char *host, const char *key_file,
			const char *key_desc, char *id, uint8_t *key,
			bool *has_key)
{
	if (host) {
		snprintf(id, RMEM_HOST_ID_MAX, "%s", host);
	} else if (host_identity_default(id, RMEM_HOST_ID_MAX) < 0) {
		id[0] = '\0';
		if (key_file || key_desc) {
			pr_err("no host identity for the key: /etc/machine-id is missing; give \"host ID\"");
			return -1;
		}
	}
	if (key_file && key_read_file(key_file, key) < 0)
		return -1;
	*has_key = key_file;
	return 0;
}

/* "off" (or 0) for no split, else a size the kernel checks further */
static int parse_read_split(const char *val, uint32_t *split)
{
	uint64_t size;

	if (!strcmp(val, "off") || !strcmp(val, "0")) {
		*split = 0;
		return 0;
	}
	if (parse_size(val, &size) < 0)
		return -1;
	if (size > UINT32_MAX) {
		pr_err("read-split %s: too large (at most 1M)", val);
		return -1;
	}
	*split = size;
	return 0;
}

/*
 * dev add peer ADDR[:PORT] [peer ADDR[:PORT] ...] size SIZE [volume VOL]
 *	[qps N] [poll-qps N]
 *	[queue-depth N] [keepalive TIME] [loss-timeout TIME]
 *	[read-split SIZE|off] [read-depth N] [extent SIZE] [replicas N] [host ID]
 *	[key-file FILE | key-desc DESC] [name DEV]
 */
static int dev_add(struct rmemctl *ctl)
{
	bool has_peer = false, has_size = false, has_volume = false;
	bool has_qps = false, has_depth = false, has_name = false;
	bool has_poll = false, has_keepalive = false, has_loss = false;
	bool has_host = false, has_key_file = false, has_key_desc = false;
	bool has_split = false, has_rdepth = false, has_extent = false;
	bool has_replicas = false;
	const char *volume = NULL, *name = NULL, *word, *val;
	const char *host = NULL, *key_file = NULL, *key_desc = NULL;
	struct dev_add_ctx ctx = { 0 };
	uint32_t qps = 0, depth = 0, poll_qps = 0, keepalive = 0, loss = 0;
	uint32_t split = 0, rdepth = 0;
	char id[RMEM_HOST_ID_MAX];
	uint8_t key[RMEM_KEY_LEN];
	struct inet_addr peers[RMEM_MAX_PEERS];
	unsigned int nr_peers = 0, i;
	struct nlattr *nest, *pn;
	uint64_t size = 0, extent = 0;
	uint32_t replicas = 0;
	bool has_key;
	struct nl *nl;
	int ret;

	while ((word = arg_next(ctl))) {
		if (arg_is_help(word)) {
			dev_usage(stdout);
			return 0;
		}
		if (!strcmp(word, "peer")) {
			/* repeatable: one device over several servers */
			val = arg_value(ctl, word, NULL);
			if (val && nr_peers == RMEM_MAX_PEERS) {
				pr_err("peer %s: at most %d servers per device",
				       val, RMEM_MAX_PEERS);
				return -1;
			}
			if (!val || parse_addr_port(val, RMEM_DEFAULT_PORT,
						    &peers[nr_peers]) < 0)
				return -1;
			nr_peers++;
			has_peer = true;
		} else if (!strcmp(word, "size")) {
			val = arg_value(ctl, word, &has_size);
			if (!val || parse_size(val, &size) < 0)
				return -1;
		} else if (!strcmp(word, "volume")) {
			volume = arg_value(ctl, word, &has_volume);
			if (!volume || arg_check_name("volume", volume,
						      RMEM_VOLUME_MAX) < 0)
				return -1;
		} else if (!strcmp(word, "qps")) {
			val = arg_value(ctl, word, &has_qps);
			if (!val || parse_u32(val, "qps", &qps) < 0)
				return -1;
		} else if (!strcmp(word, "poll-qps")) {
			val = arg_value(ctl, word, &has_poll);
			if (!val || parse_u32(val, "poll-qps", &poll_qps) < 0)
				return -1;
		} else if (!strcmp(word, "queue-depth")) {
			val = arg_value(ctl, word, &has_depth);
			if (!val || parse_u32(val, "queue-depth", &depth) < 0)
				return -1;
		} else if (!strcmp(word, "keepalive")) {
			val = arg_value(ctl, word, &has_keepalive);
			if (!val || parse_duration(val, "keepalive",
						   &keepalive) < 0)
				return -1;
		} else if (!strcmp(word, "loss-timeout")) {
			val = arg_value(ctl, word, &has_loss);
			if (!val || parse_duration(val, "loss-timeout",
						   &loss) < 0)
				return -1;
		} else if (!strcmp(word, "read-split")) {
			val = arg_value(ctl, word, &has_split);
			if (!val || parse_read_split(val, &split) < 0)
				return -1;
		} else if (!strcmp(word, "read-depth")) {
			val = arg_value(ctl, word, &has_rdepth);
			if (!val || parse_u32(val, "read-depth", &rdepth) < 0)
				return -1;
		} else if (!strcmp(word, "extent")) {
			val = arg_value(ctl, word, &has_extent);
			if (!val || parse_size(val, &extent) < 0)
				return -1;
		} else if (!strcmp(word, "replicas")) {
			val = arg_value(ctl, word, &has_replicas);
			if (!val || parse_u32(val, "replicas", &replicas) < 0)
				return -1;
			if (replicas < 1 || replicas > RMEM_MAX_REPLICAS) {
				fprintf(stderr, "rmemctl: replicas must be 1 to %u, not %s\n",
					RMEM_MAX_REPLICAS, val);
				return -1;
			}
		} else if (!strcmp(word, "name")) {
			name = arg_value(ctl, word, &has_name);
			if (!name)
				return -1;
			name = dev_basename(name);
			if (arg_check_name("device name", name,
					   RMEM_NAME_MAX) < 0)
				return -1;
		} else if (!strcmp(word, "host")) {
			host = arg_value(ctl, word, &has_host);
			if (!host || arg_check_name("host identity", host,
						    RMEM_HOST_ID_MAX) < 0)
				return -1;
		} else if (!strcmp(word, "key-file")) {
			key_file = arg_value(ctl, word, &has_key_file);
			if (!key_file)
				return -1;
		} else if (!strcmp(word, "key-desc")) {
			key_desc = arg_value(ctl, word, &has_key_desc);
			if (!key_desc)
				return -1;
		} else {
			return arg_unknown(word, dev_usage);
		}
	}
	if (!has_peer)
		return arg_missing("\"peer ADDR[:PORT]\"", dev_usage);
	if (!has_size)
		return arg_missing("\"size SIZE\"", dev_usage);
	if (key_file && key_desc) {
		pr_err("give \"key-file\" or \"key-desc\", not both");
		return -1;
	}

	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	if (dev_add_auth(host, key_file, key_desc, id, key, &has_key) < 0)
		return -1;
	nest = dev_msg(nl, RMEM_CMD_DEV_ADD, name);
	nl_put_addr(nl, RMEM_A_DEV_PEER_IPV4, RMEM_A_DEV_PEER_IPV6,
		    RMEM_A_DEV_PEER_PORT, &peers[0]);
	for (i = 1; i < nr_peers; i++) {
		pn = nl_nest_start(nl, RMEM_A_DEV_PEER);
		nl_put_addr(nl, RMEM_A_PEER_IPV4, RMEM_A_PEER_IPV6,
			    RMEM_A_PEER_PORT, &peers[i]);
		nl_nest_end(nl, pn);
	}
	nl_put_u64(nl, RMEM_A_DEV_SIZE, size);
	if (volume)
		nl_put_strz(nl, RMEM_A_DEV_VOLUME, volume);
	if (has_qps)
		nl_put_u32(nl, RMEM_A_DEV_QPS, qps);
	if (has_poll)
		nl_put_u32(nl, RMEM_A_DEV_POLL_QPS, poll_qps);
	if (has_depth)
		nl_put_u32(nl, RMEM_A_DEV_QUEUE_DEPTH, depth);
	if (has_keepalive)
		nl_put_u32(nl, RMEM_A_DEV_KEEPALIVE_MS, keepalive);
	if (has_loss)
		nl_put_u32(nl, RMEM_A_DEV_LOSS_TIMEOUT_MS, loss);
	if (has_split)
		nl_put_u32(nl, RMEM_A_DEV_READ_SPLIT, split);
	if (has_rdepth)
		nl_put_u32(nl, RMEM_A_DEV_READ_DEPTH, rdepth);
	if (has_extent)
		nl_put_u64(nl, RMEM_A_DEV_EXTENT, extent);
	if (has_replicas)
		nl_put_u8(nl, RMEM_A_DEV_REPLICAS, replicas);
	if (id[0])
		nl_put_strz(nl, RMEM_A_DEV_HOST_ID, id);
	if (has_key)
		nl_put_data(nl, RMEM_A_DEV_KEY, key, sizeof(key));
	if (key_desc)
		nl_put_strz(nl, RMEM_A_DEV_KEY_DESC, key_desc);
	key_wipe(key, sizeof(key));
	nl_nest_end(nl, nest);

	ret = nl_run(nl, dev_add_cb, &ctx);
	nl_wipe(nl);
	if (ret < 0)
		return -1;
	if (ctx.printed)
		return 0;
	/* Acked without a reply: only a name we chose can be shown. */
	if (!name) {
		pr_err("device added, but the kernel did not report its name");
		return -1;
	}
	open_json_object(NULL);
	print_string(PRINT_JSON, "name", NULL, name);
	close_json_object();
	print_string(PRINT_FP, NULL, "/dev/%s\n", name);
	return 0;
}

/*
 * The DEV argument of a command (rmemN or /dev/rmemN) into *@name.
 * Return: 0, 1 after printing the usage (DEV was "help"), or -1 after
 * saying what is wrong.
 */
int dev_arg_name(struct rmemctl *ctl, const char **name)
{
	*name = arg_next(ctl);
	if (!*name)
		return arg_missing("device name", dev_usage);
	if (arg_is_help(*name)) {
		dev_usage(stdout);
		return 1;
	}
	*name = dev_basename(*name);
	return arg_check_name("device name", *name, RMEM_NAME_MAX) < 0 ? -1 : 0;
}

/* dev del DEV [force] */
static int dev_del(struct rmemctl *ctl)
{
	const char *name, *word;
	bool force = false;
	struct nlattr *nest;
	struct nl *nl;
	int ret = dev_arg_name(ctl, &name);

	if (ret)
		return ret < 0 ? -1 : 0;
	while ((word = arg_next(ctl))) {
		if (strcmp(word, "force"))
			return arg_unknown(word, dev_usage);
		force = true;
	}

	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	nest = dev_msg(nl, RMEM_CMD_DEV_DEL, name);
	if (force)
		nl_put_flag(nl, RMEM_A_DEV_FORCE);
	nl_nest_end(nl, nest);
	return nl_run(nl, NULL, NULL);
}

/* dev show [DEV]: one device by name, or dump them all. */
static int dev_show(struct rmemctl *ctl)
{
	const char *name = arg_next(ctl);
	bool stats = ctl->stats;
	struct nl *nl;

	if (name && !strcmp(name, "-s")) {
		stats = true;
		name = arg_next(ctl);
	}

	if (name && arg_is_help(name)) {
		dev_usage(stdout);
		return 0;
	}
	if (arg_end(ctl, dev_usage) < 0)
		return -1;
	if (name) {
		name = dev_basename(name);
		if (arg_check_name("device name", name, RMEM_NAME_MAX) < 0)
			return -1;
	}
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;

	if (name)
		nl_nest_end(nl, dev_msg(nl, RMEM_CMD_DEV_GET, name));
	else
		nl_msg(nl, RMEM_CMD_DEV_GET, NLM_F_DUMP);
	return rmemctl_list(nl, dev_show_cb, &stats);
}

/* dev stats reset DEV: the counters and latency histograms from zero. */
static int dev_stats_reset(struct rmemctl *ctl)
{
	const char *name = arg_next(ctl);
	struct nl *nl;

	if (!name)
		return arg_missing("device name", dev_usage);
	if (arg_is_help(name)) {
		dev_usage(stdout);
		return 0;
	}
	if (arg_end(ctl, dev_usage) < 0)
		return -1;
	name = dev_basename(name);
	if (arg_check_name("device name", name, RMEM_NAME_MAX) < 0)
		return -1;

	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	nl_nest_end(nl, dev_msg(nl, RMEM_CMD_DEV_STATS_RESET, name));
	return nl_run_newer(nl, NULL, NULL,
			    "the loaded rmem module does not know \"dev stats reset\" (it is older than rmemctl)");
}

static const struct cmd dev_stats_cmds[] = {
	{ "reset",	dev_stats_reset },
	{ "help",	dev_help },
	{ NULL,		NULL }
};

static int dev_stats_cmd(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "dev stats command", dev_stats_cmds, NULL,
			    dev_usage);
}

static const struct cmd dev_cmds[] = {
	{ "add",	dev_add },
	{ "del",	dev_del },
	{ "show",	dev_show },
	{ "set",	dev_set },
	{ "stats",	dev_stats_cmd },
	{ "help",	dev_help },
	{ NULL,		NULL }
};

int cmd_dev(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "dev command", dev_cmds, "show", dev_usage);
}
