// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: resync of a device with replicas
 * (Documentation/multi-server.rst, "Resync").
 *
 * An extent is degraded when fewer of its replicas are current (not
 * stale, their server not dead) than the device keeps.  The extent
 * worker, with nothing to take or give back, makes one degraded extent
 * whole at a time.  It picks a source, a current replica on a live
 * server, and a target: a stale replica on a live server, brought current
 * in place; or, with fewer current replicas than the device keeps, memory
 * on another server, taken as for a new extent and recorded at once as a
 * stale replica (so nothing leaks if the copy stops).  It makes the
 * extent syncing (its requests wait on the map's list from then on),
 * waits until no request issued before is in flight on it, and copies
 * it window by window: an RDMA READ from the source into the device's
 * buffer, then an RDMA WRITE from there to the target, each on its
 * session's queue pair 0.  Then the target is current and the extent
 * present again; what waited goes.  No write is lost: none reaches the
 * extent while it syncs, and a stale replica takes no write.
 *
 * The copy yields to foreground I/O: after each window, if the device
 * completed a request within the last second, it sleeps as long as the
 * window took, so that it takes half the time at most.
 *
 * Events on "events": RMEM_CMD_DEV_RESYNC_NTF when a run starts, at each
 * tenth of the extents it found degraded, and when it ends (no degraded
 * extent can be made whole now).
 */
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include "client.h"
#include "extent.h"

/* Where a degraded extent's copy comes from and goes to. */
struct rmem_resync_plan {
	unsigned int src;
	unsigned int dst;
	struct rmem_sess *tsess;
	bool fresh;
};

static struct rmem_sess *rmem_rep_sess_of(struct rmem_dev *dev, u32 r,
					  unsigned int k)
{
	return dev->sessions[rmem_rep_sess(r, k)];
}

/* The current replicas of @r whose servers are not dead, as a mask. */
static unsigned long rmem_resync_alive(struct rmem_dev *dev, u32 r)
{
	unsigned long cur = rmem_rep_current(r), alive = 0;
	unsigned int k;

	for_each_set_bit(k, &cur, RMEM_MAX_REPLICAS)
		if (READ_ONCE(rmem_rep_sess_of(dev, r, k)->state) !=
		    RMEM_DEV_STATE_DEAD)
			alive |= BIT(k);
	return alive;
}

/*
 * How an extent with replicas @r can be made whole now.  Return: false
 * if it is whole, or cannot be yet (no current replica on a live server,
 * or no target).
 */
static bool rmem_resync_plan(struct rmem_emap *m, u32 r,
			     struct rmem_resync_plan *p)
{
	struct rmem_dev *dev = m->dev;
	unsigned long cur = rmem_rep_current(r), used = 0;
	unsigned int n = rmem_rep_n(r), k;
	bool src = false;

	if (hweight_long(rmem_resync_alive(dev, r)) >= dev->cfg.replicas)
		return false;
	for_each_set_bit(k, &cur, RMEM_MAX_REPLICAS) {
		if (rmem_sess_ext_ready(rmem_rep_sess_of(dev, r, k))) {
			p->src = k;
			src = true;
			break;
		}
	}
	if (!src)
		return false;
	/* a stale replica on a live server: brought current in place */
	for (k = 0; k < n; k++) {
		struct rmem_sess *sess = rmem_rep_sess_of(dev, r, k);

		used |= BIT(sess->index);
		if (!(cur & BIT(k)) && rmem_sess_ext_ready(sess)) {
			p->dst = k;
			p->tsess = sess;
			p->fresh = false;
			return true;
		}
	}
	/* memory on another server: a new replica, or a dead one's place */
	p->dst = n;
	if (n == RMEM_MAX_REPLICAS) {
		for (k = 0; k < n; k++)
			if (READ_ONCE(rmem_rep_sess_of(dev, r, k)->state) ==
			    RMEM_DEV_STATE_DEAD)
				break;
		if (k == n)
			return false;
		p->dst = k;
	}
	p->tsess = rmem_emap_place(m, used);
	p->fresh = true;
	return p->tsess;
}

/*
 * The next extent, from the cursor, that is present and can be made
 * whole now.  Return: true and *@e if there is one.
 */
static bool rmem_resync_next(struct rmem_emap *m, unsigned int *e)
{
	struct rmem_resync_plan p;
	unsigned int i, j;

	for (i = 0; i < m->nr; i++) {
		j = (m->sync_cursor + i) % m->nr;
		/* pairs with the release in rmem_emap_publish(): @rep next */
		if (smp_load_acquire(&m->state[j]) != RMEM_EXTENT_PRESENT ||
		    !rmem_resync_plan(m, READ_ONCE(m->rep[j]), &p))
			continue;
		m->sync_cursor = (j + 1) % m->nr;
		*e = j;
		return true;
	}
	return false;
}

/* Whether the device completed a request within the last second. */
static bool rmem_resync_foreground(struct rmem_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->nr_sess * dev->nr_queues; i++)
		if (time_before(jiffies,
				READ_ONCE(dev->queue_io[i].last_done) + HZ))
			return true;
	return false;
}

/*
 * Copy extent @e from replica @p->src to @p->dst, a window at a time.
 * Return: 0, or the error of the connection (*@bad is its session).
 */
static int rmem_resync_copy(struct rmem_emap *m, unsigned int e, u32 r,
			    const struct rmem_resync_plan *p,
			    struct rmem_sess **bad)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_sess *s = rmem_rep_sess_of(dev, r, p->src), *t = p->tsess;
	u64 pos = (u64)e << m->shift, end = pos + (1ULL << m->shift);
	u64 win = min3((u64)dev->sync_len, s->chunk_size, t->chunk_size);
	int ret;

	for (; pos < end; pos += win) {
		const struct rmem_remote_chunk *cs =
			&s->chunks[pos >> s->chunk_shift];
		const struct rmem_remote_chunk *ct =
			&t->chunks[pos >> t->chunk_shift];
		u64 t0 = ktime_get_ns(), us;

		*bad = s;
		ret = rmem_sess_ext_copy(s, false,
					 cs->addr + (pos & (s->chunk_size - 1)),
					 cs->rkey, dev->sync_dma, win);
		if (ret)
			return ret;
		*bad = t;
		ret = rmem_sess_ext_copy(t, true,
					 ct->addr + (pos & (t->chunk_size - 1)),
					 ct->rkey, dev->sync_dma, win);
		if (ret)
			return ret;
		if (!rmem_resync_foreground(dev))
			continue;
		us = min_t(u64, div_u64(ktime_get_ns() - t0, NSEC_PER_USEC),
			   100 * USEC_PER_MSEC);
		usleep_range(us, us + us / 4 + 10);
	}
	return 0;
}

/* Report where the run is, on "events". */
static void rmem_resync_event(struct rmem_emap *m)
{
	rmem_nl_notify_dev(m->dev, RMEM_CMD_DEV_RESYNC_NTF, GFP_NOWAIT);
}

/* The extent resynced (or not): present again, and what waited goes. */
static void rmem_resync_unlock(struct rmem_emap *m, unsigned int e)
{
	m->sync_e = m->nr;
	/* pairs with the acquire in rmem_emap_check() */
	smp_store_release(&m->state[e], RMEM_EXTENT_PRESENT);
}

/**
 * rmem_emap_resync() - make one degraded extent whole
 * @m: the map of a device with replicas
 *
 * Context: the extent worker, with nothing to take or give back.
 *
 * Return: 0 if it did (or tried) one, and may go on; -ENOENT if none can
 * be made whole now; -EBUSY if requests issued before are still in
 * flight on the one it took (try again shortly); -ENOSPC if the target's
 * server had no room (until the next kick); or the error of a
 * connection, that session already failed.
 */
int rmem_emap_resync(struct rmem_emap *m)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_resync_plan p;
	struct rmem_sess *bad;
	unsigned int e = m->sync_e;
	u32 r;
	int ret;

	if (dev->cfg.replicas == 1)
		return -ENOENT;
	if (e == m->nr) {
		if (!rmem_resync_next(m, &e)) {
			if (m->resyncing) {
				m->resyncing = false;
				pr_info("%s: resync done: %u of %u degraded extents made whole\n",
					dev->name, m->resync_done,
					m->resync_total);
				rmem_resync_event(m);
			}
			return -ENOENT;
		}
		if (cmpxchg(&m->state[e], RMEM_EXTENT_PRESENT,
			    RMEM_EXTENT_SYNCING) != RMEM_EXTENT_PRESENT)
			return 0;
		m->sync_e = e;
		if (!m->resyncing) {
			m->resyncing = true;
			m->resync_total = max(rmem_emap_degraded(dev), 1U);
			m->resync_done = 0;
			m->resync_tenth = 0;
			pr_info("%s: resync of %u degraded extents\n", dev->name,
				m->resync_total);
			rmem_resync_event(m);
		}
	}
	/* requests issued before it turned syncing end first */
	if (rmem_emap_busy(m, e))
		return -EBUSY;
	/* their completions may have marked replicas stale: look again */
	r = READ_ONCE(m->rep[e]);
	if (!rmem_resync_plan(m, r, &p)) {
		rmem_resync_unlock(m, e);
		return 0;
	}
	if (p.fresh) {
		ret = rmem_emap_alloc_on(m, e, p.tsess);
		if (ret) {
			rmem_resync_unlock(m, e);
			if (ret == -ENOSPC || ret == -EDQUOT)
				return -ENOSPC;
			if (ret == -EREMOTEIO || ret == -EPROTO)
				return 0;
			bad = p.tsess;
			goto out_conn;
		}
		/* held from here: a stale replica until the copy ends */
		r = rmem_rep_set(r, p.dst, p.tsess->index, true);
		WRITE_ONCE(m->rep[e], r);
	}
	ret = rmem_resync_copy(m, e, r, &p, &bad);
	if (!ret) {
		WRITE_ONCE(m->rep[e],
			   rmem_rep_set(r, p.dst, p.tsess->index, false));
		m->resync_done++;
	}
	rmem_resync_unlock(m, e);
	if (ret)
		goto out_conn;
	if (m->resync_tenth < 9 &&
	    m->resync_done * 10 / m->resync_total > m->resync_tenth) {
		m->resync_tenth = m->resync_done * 10 / m->resync_total;
		rmem_resync_event(m);
	}
	return 0;

out_conn:
	pr_warn("%s: resync of extent %u failed (server %pISpc): %d\n",
		dev->name, e, &bad->peer, ret);
	if (READ_ONCE(bad->state) == RMEM_DEV_STATE_LIVE)
		rmem_sess_fail(bad);
	return ret;
}
