// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: a device's sysfs attributes, /sys/block/rmemN/rmem/
 * (Documentation/admin-guide.rst lists them).
 */
#include <linux/blkdev.h>
#include <linux/sysfs.h>

#include "client.h"

static struct rmem_dev *rmem_dev_of(struct device *d)
{
	return dev_to_disk(d)->private_data;
}

static ssize_t peer_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	struct rmem_dev *dev = rmem_dev_of(d);
	unsigned int i;
	int len = 0;

	/* its servers, space separated (not one drained and removed) */
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		if (!READ_ONCE(dev->sessions[i]->removed))
			len += sysfs_emit_at(buf, len, "%s%pISpc",
					     len ? " " : "",
					     &dev->sessions[i]->peer);
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(peer);

static ssize_t volume_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", rmem_dev_of(d)->cfg.volume);
}
static DEVICE_ATTR_RO(volume);

static ssize_t state_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	static const char * const names[] = {
		[RMEM_DEV_STATE_CONNECTING] = "connecting",
		[RMEM_DEV_STATE_LIVE] = "live",
		[RMEM_DEV_STATE_DEAD] = "dead",
		[RMEM_DEV_STATE_DELETING] = "deleting",
		[RMEM_DEV_STATE_RECONNECTING] = "reconnecting",
	};
	unsigned int s = rmem_dev_state(rmem_dev_of(d));

	return sysfs_emit(buf, "%s\n", s < ARRAY_SIZE(names) && names[s] ?
			  names[s] : "unknown");
}
static DEVICE_ATTR_RO(state);

static ssize_t server_id_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%*phN\n", RMEM_ID_LEN,
			  rmem_dev_first(rmem_dev_of(d))->server_id);
}
static DEVICE_ATTR_RO(server_id);

static ssize_t generation_show(struct device *d,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  rmem_dev_first(rmem_dev_of(d))->generation);
}
static DEVICE_ATTR_RO(generation);

static ssize_t qps_show(struct device *d, struct device_attribute *attr,
			char *buf)
{
	struct rmem_dev *dev = rmem_dev_of(d);

	return sysfs_emit(buf, "%u\n", dev->nr_queues - dev->nr_poll);
}
static DEVICE_ATTR_RO(qps);

static ssize_t poll_qps_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", rmem_dev_of(d)->nr_poll);
}
static DEVICE_ATTR_RO(poll_qps);

static ssize_t queue_depth_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", rmem_dev_of(d)->cfg.queue_depth);
}
static DEVICE_ATTR_RO(queue_depth);

/*
 * Requests completed (successfully) per queue pair, space separated, in
 * queue order: the interrupt-driven queues, then the polled ones.
 */
static ssize_t qp_requests_show(struct device *d,
				struct device_attribute *attr, char *buf)
{
	struct rmem_dev *dev = rmem_dev_of(d);
	unsigned int i, k;
	int len = 0;

	for (i = 0; i < dev->nr_queues; i++) {
		u64 n = 0;

		for (k = 0; k < rmem_dev_nr_sess(dev); k++) {
			const struct rmem_stats *st;

			st = &dev->queue_io[k * dev->nr_queues + i].stats;
			n += READ_ONCE(st->reads) + READ_ONCE(st->writes) +
			     READ_ONCE(st->zeroes);
		}
		len += sysfs_emit_at(buf, len, "%s%llu", i ? " " : "", n);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(qp_requests);

static struct attribute *rmem_disk_attrs[] = {
	&dev_attr_qp_requests.attr,
	&dev_attr_peer.attr,
	&dev_attr_volume.attr,
	&dev_attr_state.attr,
	&dev_attr_server_id.attr,
	&dev_attr_generation.attr,
	&dev_attr_qps.attr,
	&dev_attr_poll_qps.attr,
	&dev_attr_queue_depth.attr,
	NULL,
};

static const struct attribute_group rmem_disk_group = {
	.name = "rmem",
	.attrs = rmem_disk_attrs,
};

const struct attribute_group *rmem_disk_groups[] = {
	&rmem_disk_group,
	NULL,
};
