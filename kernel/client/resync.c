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
 * stale replica (so nothing leaks if the copy stops).  A stale replica
 * on a server that is reconnecting is waited for, not replaced.  It
 * makes the extent syncing (writes to it wait on the map's list from then
 * on; reads go on, to its current replicas), waits until no write issued
 * before is in flight on it, and opens the copy: from then on a write to
 * the extent goes to its current replicas and to the target (a further
 * leg: rmem_emap_legs()).  It copies the extent window by window: it
 * locks the window (writes to it wait on the list, the others go on),
 * waits until no write in flight touches it (a few ms at most, then it
 * unlocks and tries again later, and after RMEM_RESYNC_YIELDS such tries
 * it keeps the lock while it waits), then an RDMA READ from the
 * source into the source session's buffer, an RDMA WRITE from there to
 * the target, each on its session's queue pair 0, and unlocks it (what
 * waited goes again).  Then it closes the copy (writes wait again), waits
 * for the writes in flight (as for a window), and if every one of them
 * and of those before reached the target, the target is current and the
 * extent present again; what waited goes.  No write is lost: one to a
 * window not copied yet reaches the source before the window is read;
 * one to a window copied already reaches the target itself; none goes on
 * while its window is copied.  A write that misses the target (its leg failed, or
 * the target's server took no I/O when it was issued) counts in
 * &rmem_emap.sync_missed, and the copy then leaves the target stale.  A
 * READ given up (its session lost) may still land, but only in its own
 * session's buffer, which serves no copy until that session's queue
 * pairs were drained (its next connection).
 *
 * The copy yields: the worker copies 16 windows or a tenth of a second at
 * most per run, then queues itself again (other devices' extent work
 * shares the reclaim workqueue), and after each window, if the device
 * completed a request within the last second, it sleeps as long as the
 * window took, so that it takes half the time at most.
 *
 * Events on "events": RMEM_CMD_DEV_RESYNC_NTF when a run starts, at each
 * tenth of the extents it found degraded, and when it ends (no degraded
 * extent can be made whole now, or the device is dead; a run that holds
 * goes on).
 *
 * A target whose server refuses (no room) is skipped for another extent;
 * a failed copy or control message fails the session it failed on (its
 * queue pair is in error, or may hold a slot: one whose ALLOC or FREE got
 * no answer is freed there once it is ready).  Refusals and connection
 * errors since an extent was last made whole are counted (an error counts
 * 4): at RMEM_RESYNC_STRIKES the run holds for RMEM_RESYNC_HOLD, longer
 * (up to 8 times) as they go on, until an extent is made whole; so a
 * server that keeps failing the copy of one extent is failed once a hold
 * at most, and full servers are not asked at each kick.
 */
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include "client.h"
#include "extent.h"

#define RMEM_RESYNC_STRIKES	8
#define RMEM_RESYNC_HOLD	(10 * HZ)
/* looks in a row that found writes in flight, before they wait for them */
#define RMEM_RESYNC_YIELDS	4

/* Where a degraded extent's copy comes from and goes to. */
struct rmem_resync_plan {
	unsigned int src;
	unsigned int dst;
	struct rmem_sess *tsess;
	bool fresh;
	bool drop;
};

static struct rmem_sess *rmem_rep_sess_of(struct rmem_dev *dev, u32 r,
					  unsigned int k)
{
	return dev->sessions[rmem_rep_sess(r, k)];
}

/* Whether @sess may be copied from: ready, its buffer mapped. */
static bool rmem_resync_source_ok(struct rmem_sess *sess)
{
	return rmem_sess_ext_ready(sess) && READ_ONCE(sess->sync_dma);
}

/*
 * How an extent with replicas @r can be made whole now, or lose its
 * replicas on draining servers (@p->drop) once it is whole without them.
 * Return: false if it is whole with none there, or cannot be made whole
 * yet (no current replica on a live server to copy from; no target; a
 * stale replica whose server is reconnecting, which is waited for rather
 * than replaced).
 */
static bool rmem_resync_plan(struct rmem_emap *m, u32 r,
			     struct rmem_resync_plan *p)
{
	struct rmem_dev *dev = m->dev;
	unsigned long cur = rmem_rep_current(r), used = 0;
	unsigned long drain = rmem_emap_draining(dev, r);
	unsigned int n = rmem_rep_n(r), k;
	bool src = false, wait = false;

	p->drop = false;
	if (hweight_long(rmem_emap_kept(dev, r)) >= dev->cfg.replicas) {
		/* a draining copy goes once the kept ones all take I/O */
		p->drop = drain && hweight_long(rmem_emap_kept_live(dev, r)) >=
				   dev->cfg.replicas;
		return p->drop;
	}
	/* a source: one on a server that stays, if there is one */
	for_each_set_bit(k, &cur, RMEM_MAX_REPLICAS) {
		if (rmem_resync_source_ok(rmem_rep_sess_of(dev, r, k)) &&
		    (!src || (drain & BIT(p->src)))) {
			p->src = k;
			src = true;
		}
	}
	if (!src)
		return false;
	/* a stale replica on a live server: brought current in place */
	for (k = 0; k < n; k++) {
		struct rmem_sess *sess = rmem_rep_sess_of(dev, r, k);

		used |= BIT(sess->index);
		if ((cur | drain) & BIT(k))
			continue;
		if (rmem_sess_ext_ready(sess)) {
			p->dst = k;
			p->tsess = sess;
			p->fresh = false;
			return true;
		}
		if (READ_ONCE(sess->state) != RMEM_DEV_STATE_DEAD)
			wait = true;
	}
	if (wait)
		return false;
	/*
	 * memory on another server: a new replica, or in the place of a
	 * dead one, or of one on a draining server (not the source: the
	 * writes issued before have ended, and a read does not name a
	 * replica by its place)
	 */
	p->dst = n;
	if (n == RMEM_MAX_REPLICAS) {
		for (k = 0; k < n; k++)
			if (READ_ONCE(rmem_rep_sess_of(dev, r, k)->state) ==
			    RMEM_DEV_STATE_DEAD ||
			    ((drain & BIT(k)) && k != p->src))
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

	for (i = 0; i < rmem_dev_nr_sess(dev) * dev->nr_queues; i++)
		if (time_before(jiffies,
				READ_ONCE(dev->queue_io[i].last_done) + HZ))
			return true;
	return false;
}

/* Writes to the extent go on, to the target too; what waited goes. */
static void rmem_resync_take_writes(struct rmem_emap *m)
{
	/* pairs with the acquire in rmem_emap_sync_writable() */
	smp_store_release(&m->sync_tgt,
			  RMEM_SYNC_WORD(m->sync_e, m->sync_dst));
	rmem_emap_requeue(m);
}

/*
 * The copy takes writes: they go to the target too, but for the window
 * it copies (none locked yet).
 */
static void rmem_resync_open(struct rmem_emap *m)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_sess *s = rmem_rep_sess_of(dev, m->sync_rep, m->sync_src);
	struct rmem_sess *t = rmem_rep_sess_of(dev, m->sync_rep, m->sync_dst);

	WRITE_ONCE(m->sync_win,
		   min3((u64)s->sync_len, s->chunk_size, t->chunk_size));
	WRITE_ONCE(m->sync_lock, RMEM_SYNC_UNLOCKED);
	/* writes issued before have ended: none of them counts */
	atomic_set(&m->sync_missed, 0);
	/* an earlier copy's legs that fail count no more */
	WRITE_ONCE(m->sync_gen, m->sync_gen + 1 ?: 1);
	rmem_resync_take_writes(m);
}

/*
 * Whether writes issued before are still in flight on bytes [@pos, @pos +
 * @len) of the device, after 20 short sleeps (a few ms) waiting for them
 * to end (they take microseconds, unless a server is slow to answer).
 */
static bool rmem_resync_busy(struct rmem_emap *m, u64 pos, u64 len)
{
	unsigned int i;

	for (i = 0; i < 20; i++) {
		if (!rmem_emap_busy_range(m, pos, len))
			return false;
		usleep_range(50, 100);
	}
	return true;
}

/* rmem_resync_busy() on the whole of extent @e. */
static bool rmem_resync_busy_extent(struct rmem_emap *m, unsigned int e)
{
	return rmem_resync_busy(m, (u64)e << m->shift, 1ULL << m->shift);
}

/*
 * Copy on from m->sync_pos: 16 windows, or a tenth of a second, at most.
 * Return: 0 when the extent is copied, -EINPROGRESS if there is more,
 * -EBUSY if writes are in flight on the window it locked (again shortly),
 * or the error of the connection (*@bad is its session).
 */
static int rmem_resync_copy(struct rmem_emap *m, struct rmem_sess **bad)
{
	struct rmem_dev *dev = m->dev;
	u32 r = m->sync_rep;
	struct rmem_sess *s = rmem_rep_sess_of(dev, r, m->sync_src);
	struct rmem_sess *t = rmem_rep_sess_of(dev, r, m->sync_dst);
	u64 base = (u64)m->sync_e << m->shift, size = 1ULL << m->shift;
	u64 win = READ_ONCE(m->sync_win);
	unsigned long until = jiffies + HZ / 10;
	u64 local = READ_ONCE(s->sync_dma);
	unsigned int n;
	int ret;

	/* (checked when the plan was made: it stays mapped while live) */
	if (!local)
		return -ENODEV;

	for (n = 0; m->sync_pos < size; n++) {
		u64 pos = base + m->sync_pos;
		const struct rmem_remote_chunk *cs =
			&s->chunks[pos >> s->chunk_shift];
		const struct rmem_remote_chunk *ct =
			&t->chunks[pos >> t->chunk_shift];
		u64 t0 = ktime_get_ns(), us;

		if (n == 16 || time_after(jiffies, until))
			return -EINPROGRESS;
		/*
		 * Writes to the window wait from here (or are seen in
		 * flight); those in flight end first: one that reached the
		 * source and not yet the target would be copied over.
		 */
		WRITE_ONCE(m->sync_lock, div64_u64(m->sync_pos, win));
		if (rmem_resync_busy(m, pos, win)) {
			/*
			 * a slow server: writes go on meanwhile, unless that
			 * went on a few times (the copy must get on)
			 */
			if (m->busy_tries < RMEM_RESYNC_YIELDS) {
				WRITE_ONCE(m->sync_lock, RMEM_SYNC_UNLOCKED);
				rmem_emap_requeue(m);
			}
			return -EBUSY;
		}
		*bad = s;
		ret = rmem_sess_ext_copy(s, false,
					 cs->addr + (pos & (s->chunk_size - 1)),
					 cs->rkey, local, win);
		if (ret)
			return ret;
		*bad = t;
		ret = rmem_sess_ext_copy(t, true,
					 ct->addr + (pos & (t->chunk_size - 1)),
					 ct->rkey, local, win);
		if (ret)
			return ret;
		m->sync_pos += win;
		WRITE_ONCE(m->sync_lock, RMEM_SYNC_UNLOCKED);
		/* progress: the next wait for writes in flight starts short */
		m->busy_tries = 0;
		/* what waited for the window goes (data_race: a hint) */
		if (data_race(!list_empty(&m->waiting)))
			rmem_emap_requeue(m);
		if (unlikely(READ_ONCE(rmem_fault_resync_delay_ms)))
			msleep(min_t(unsigned int,
				     READ_ONCE(rmem_fault_resync_delay_ms),
				     10 * MSEC_PER_SEC));
		/* paced while the device has other work */
		if (!rmem_resync_foreground(dev))
			continue;
		us = min_t(u64, div_u64(ktime_get_ns() - t0, NSEC_PER_USEC),
			   50 * USEC_PER_MSEC);
		usleep_range(us, us + us / 4 + 10);
	}
	return 0;
}

/* Report where the run is, on "events". */
static void rmem_resync_event(struct rmem_emap *m)
{
	rmem_nl_notify_dev(m->dev, RMEM_CMD_DEV_RESYNC_NTF, GFP_NOWAIT);
}

/* The run ends: none can be made whole now. */
static void rmem_resync_end(struct rmem_emap *m)
{
	if (!m->resyncing)
		return;
	WRITE_ONCE(m->resyncing, false);
	pr_info("%s: resync ended: %u extents made whole\n", m->dev->name,
		m->resync_done);
	rmem_resync_event(m);
}

/*
 * The copy takes no more writes (they wait).  Return: 0 once every write
 * issued while it took them has ended, each having reached the target;
 * -EBUSY while some are in flight (again shortly: the copy takes writes
 * again meanwhile, unless the last RMEM_RESYNC_YIELDS looks found them
 * too); -ESTALE if one missed the target.
 */
static int rmem_resync_close(struct rmem_emap *m)
{
	WRITE_ONCE(m->sync_tgt, 0);
	if (rmem_resync_busy_extent(m, m->sync_e)) {
		/* the same copy takes writes again, but not for ever */
		if (m->busy_tries < RMEM_RESYNC_YIELDS)
			rmem_resync_take_writes(m);
		return -EBUSY;
	}
	return atomic_read(&m->sync_missed) ? -ESTALE : 0;
}

/* The extent resynced (or not): present again, and what waited goes. */
static void rmem_resync_unlock(struct rmem_emap *m, unsigned int e)
{
	WRITE_ONCE(m->sync_tgt, 0);
	WRITE_ONCE(m->sync_lock, RMEM_SYNC_UNLOCKED);
	m->sync_e = m->nr;
	/* pairs with the acquire in rmem_emap_check() */
	smp_store_release(&m->state[e], RMEM_EXTENT_PRESENT);
}

/*
 * Start on a degraded extent: syncing, its target chosen (and, on a new
 * server, given memory and recorded as a stale replica).  Return: 0, or
 * -EBUSY (writes issued before are in flight: again shortly), -ENOENT
 * (none can be made whole now), -EAGAIN (the target's server had no room
 * or refused), or the error of a connection (*@bad).
 */
static int rmem_resync_start(struct rmem_emap *m, struct rmem_sess **bad)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_resync_plan p;
	unsigned int e = m->sync_e;
	u32 r, old;
	int ret;

	if (e == m->nr) {
		if (!rmem_resync_next(m, &e))
			return -ENOENT;
		if (cmpxchg(&m->state[e], RMEM_EXTENT_PRESENT,
			    RMEM_EXTENT_SYNCING) != RMEM_EXTENT_PRESENT)
			return 0;
		m->sync_e = e;
		m->sync_pos = 0;
		m->sync_rep = 0;
		if (!m->resyncing) {
			WRITE_ONCE(m->resync_total,
				   max(rmem_emap_degraded(dev), 1U));
			WRITE_ONCE(m->resync_done, 0);
			m->resync_tenth = 0;
			WRITE_ONCE(m->resyncing, true);
			pr_info("%s: resync of %u degraded extents\n", dev->name,
				m->resync_total);
			rmem_resync_event(m);
		}
	}
	/* writes issued before it turned syncing end first */
	if (rmem_resync_busy_extent(m, e))
		return -EBUSY;
	/* their settling may have marked replicas stale: @rep after that */
	smp_mb();
	r = READ_ONCE(m->rep[e]);
	if (!rmem_resync_plan(m, r, &p)) {
		rmem_resync_unlock(m, e);
		return 0;
	}
	/*
	 * Whole without its replicas on draining servers: they go from the
	 * word (their memory goes with the session: LEAVE).  No write is in
	 * flight on it (one that marks a replica stale names it by place).
	 */
	if (p.drop) {
		unsigned long drain = rmem_emap_draining(dev, r);
		unsigned int k;

		old = r;
		for (k = rmem_rep_n(r); k-- > 0; )
			if (drain & BIT(k))
				r = rmem_rep_del(r, k);
		/* (nothing marks a syncing extent: never fails) */
		WARN_ON_ONCE(cmpxchg(&m->rep[e], old, r) != old);
		rmem_resync_unlock(m, e);
		return 0;
	}
	if (p.fresh) {
		ret = rmem_emap_alloc_on(m, e, p.tsess);
		if (ret) {
			rmem_resync_unlock(m, e);
			if (ret == -ENOSPC || ret == -EDQUOT)
				return -EAGAIN;
			/* it may hold the slot: give it back, if it answers */
			if (ret == -EREMOTEIO || ret == -EPROTO)
				ret = rmem_sess_ext_op(p.tsess,
						       RMEM_WIRE_EXTENT_FREE, e);
			if (!ret || ret == -EREMOTEIO)
				return -EAGAIN;
			/* no answer: FREE it there once it is ready */
			__set_bit(e, p.tsess->pend_free);
			*bad = p.tsess;
			return ret;
		}
		/* held from here: a stale replica until the copy ends */
		old = r;
		r = rmem_rep_set(r, p.dst, p.tsess->index, true);
		if (WARN_ON_ONCE(cmpxchg(&m->rep[e], old, r) != old)) {
			/* (nothing marks a syncing extent: never) */
			rmem_resync_unlock(m, e);
			ret = rmem_sess_ext_op(p.tsess, RMEM_WIRE_EXTENT_FREE,
					       e);
			if (!ret || ret == -EREMOTEIO)
				return 0;
			__set_bit(e, p.tsess->pend_free);
			*bad = p.tsess;
			return ret;
		}
	}
	m->sync_rep = r;
	m->sync_src = p.src;
	m->sync_dst = p.dst;
	m->sync_pos = 0;
	rmem_resync_open(m);
	return 0;
}

/*
 * FREE the slots of extents whose ALLOC or FREE got no answer (a take's
 * or a resync's), on their servers that are ready (a dead server holds nothing;
 * one that is reconnecting is not placed on meanwhile), unless the
 * extent holds a replica there by now (an ALLOC of it there since drops
 * the FREE: rmem_emap_alloc_on()).  Return: 0, or the error of a
 * connection (*@bad).
 */
static int rmem_resync_free_pending(struct rmem_emap *m,
				    struct rmem_sess **bad)
{
	struct rmem_dev *dev = m->dev;
	unsigned int i, e;
	int ret;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *sess = dev->sessions[i];

		if (READ_ONCE(sess->state) == RMEM_DEV_STATE_DEAD) {
			bitmap_zero(sess->pend_free, m->nr);
			continue;
		}
		if (!rmem_sess_ext_ready(sess))
			continue;
		for_each_set_bit(e, sess->pend_free, m->nr) {
			/* pairs with the release in rmem_emap_publish() */
			if (smp_load_acquire(&m->state[e]) !=
			    RMEM_EXTENT_UNWRITTEN &&
			    rmem_rep_has(READ_ONCE(m->rep[e]), sess->index)) {
				__clear_bit(e, sess->pend_free);
				continue;
			}
			ret = rmem_sess_ext_op(sess, RMEM_WIRE_EXTENT_FREE, e);
			if (ret && ret != -EREMOTEIO) {
				*bad = sess;
				return ret;
			}
			__clear_bit(e, sess->pend_free);
		}
	}
	return 0;
}

/*
 * Nothing more can move now: a draining session that no extent names any
 * more, with no FREE pending there, is drained, and the drain work
 * removes it.
 */
static void rmem_resync_drained(struct rmem_emap *m)
{
	struct rmem_dev *dev = m->dev;
	unsigned int i;

	if (!READ_ONCE(dev->draining))
		return;
	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *sess = dev->sessions[i];

		if (!READ_ONCE(sess->draining) || READ_ONCE(sess->drained) ||
		    (m->pend_e != m->nr && m->pend_sess == i) ||
		    !bitmap_empty(sess->pend_free, m->nr) ||
		    rmem_emap_refs(dev, sess))
			continue;
		pr_info("%s: server %pISpc drained: no extent has a copy there\n",
			dev->name, &sess->peer);
		WRITE_ONCE(sess->drained, true);
		queue_work(rmem_wq, &dev->drain_work);
	}
}

/*
 * A refusal (1) or a connection error (4): the run may hold.  Return:
 * -EAGAIN if it holds, else 0.
 */
static int rmem_resync_strike(struct rmem_emap *m, unsigned int n)
{
	unsigned int holds;

	m->sync_strikes += n;
	if (m->sync_strikes < RMEM_RESYNC_STRIKES)
		return 0;
	holds = min(m->sync_strikes / RMEM_RESYNC_STRIKES - 1, 3U);
	m->sync_hold_until = jiffies + (RMEM_RESYNC_HOLD << holds);
	m->sync_holding = true;
	m->sync_strikes = min(m->sync_strikes, 4 * RMEM_RESYNC_STRIKES);
	pr_info_ratelimited("%s: resync holds %u s: targets refused or copies failed\n",
			    m->dev->name, (RMEM_RESYNC_HOLD << holds) / HZ);
	return -EAGAIN;
}

/**
 * rmem_emap_resync_hold() - how long a resync that holds waits still
 * @m: the map
 *
 * Return: jiffies until it may go on (at least 1).
 */
unsigned long rmem_emap_resync_hold(struct rmem_emap *m)
{
	long left = (long)(m->sync_hold_until - jiffies);

	return left > 0 ? left : 1;
}

/**
 * rmem_emap_resync_stop() - end the run: the device is dead
 * @m: the map
 */
void rmem_emap_resync_stop(struct rmem_emap *m)
{
	if (m->sync_e != m->nr)
		rmem_resync_unlock(m, m->sync_e);
	rmem_resync_end(m);
}

/**
 * rmem_emap_resync() - copy on, a bounded part, to make degraded extents
 *	whole
 * @m: the map of a device with replicas
 *
 * Context: the extent worker, with nothing to take, or give back before
 * the extent being resynced is done.
 *
 * Return: 0 if it made one whole (or let one go, or skipped one whose
 * target refused) and may go on at once; -EINPROGRESS if its copy goes on
 * (queue the worker again); -EBUSY if writes issued before are still in
 * flight on the one it took, or on the window it copies (again shortly);
 * -ENOENT if none can be made whole now; -EAGAIN if it holds (again after
 * rmem_emap_resync_hold()); or the error of a connection, that session
 * failed.
 */
int rmem_emap_resync(struct rmem_emap *m)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_sess *bad = NULL;
	unsigned int e;
	int ret;

	/* with one replica, only a drain moves extents */
	if (dev->cfg.replicas == 1 && !READ_ONCE(dev->draining))
		return -ENOENT;
	if (m->sync_e == m->nr) {
		if (m->sync_holding) {
			if (time_before(jiffies, m->sync_hold_until))
				return -EAGAIN;
			m->sync_holding = false;
		}
		if (READ_ONCE(rmem_fault_resync_hold)) {
			m->sync_hold_until = jiffies + HZ / 5;
			m->sync_holding = true;
			return -EAGAIN;
		}
		ret = rmem_resync_free_pending(m, &bad);
		if (ret)
			goto out;
	}
	if (m->sync_e == m->nr || !m->sync_rep) {
		ret = rmem_resync_start(m, &bad);
		if (ret == -ENOENT) {
			rmem_resync_end(m);
			rmem_resync_drained(m);
		}
		/* a target refused: another extent, unless the run holds */
		if (ret == -EAGAIN)
			return rmem_resync_strike(m, 1);
		if (ret)
			goto out;
		if (m->sync_e == m->nr)
			return 0;
	}
	e = m->sync_e;
	/* the plan still holds: its servers ready, its replicas unchanged */
	if (READ_ONCE(m->rep[e]) != m->sync_rep ||
	    !rmem_resync_source_ok(rmem_rep_sess_of(dev, m->sync_rep,
						    m->sync_src)) ||
	    !rmem_sess_ext_ready(rmem_rep_sess_of(dev, m->sync_rep,
						  m->sync_dst))) {
		rmem_resync_unlock(m, e);
		return 0;
	}
	ret = rmem_resync_copy(m, &bad);
	if (!ret)
		ret = rmem_resync_close(m);
	if (ret == -EINPROGRESS || ret == -EBUSY)
		return ret;
	/* a write missed the target: it stays stale, and is copied again */
	if (ret == -ESTALE) {
		pr_info_ratelimited("%s: extent %u: a write missed the copy's target; copied again\n",
				    dev->name, e);
		rmem_resync_unlock(m, e);
		return rmem_resync_strike(m, 1);
	}
	if (!ret) {
		u32 r = rmem_rep_set(m->sync_rep, m->sync_dst,
				     rmem_rep_sess(m->sync_rep, m->sync_dst),
				     false);
		bool whole = hweight_long(rmem_emap_kept(dev, r)) >=
			     dev->cfg.replicas;

		/*
		 * whole on servers that take I/O: the replicas on draining
		 * servers serve no more of it.  Otherwise (a kept replica
		 * reconnecting) they stay current beside the new one, one
		 * more than cfg.replicas: a write then leaves them out
		 * (rmem_emap_legs()) and they turn stale as it settles.
		 */
		if (hweight_long(rmem_emap_kept_live(dev, r)) >=
		    dev->cfg.replicas)
			r |= rmem_emap_draining(dev, r) << RMEM_REP_STALE_SHIFT;
		/*
		 * an extent made whole, not a replica copied; unless a write
		 * the copy took marked a replica stale (the next pass then)
		 */
		if (cmpxchg(&m->rep[e], m->sync_rep, r) == m->sync_rep &&
		    whole) {
			m->sync_strikes = 0;
			WRITE_ONCE(m->resync_done, m->resync_done + 1);
		}
	}
	rmem_resync_unlock(m, e);
	if (ret)
		goto out;
	if (m->resync_tenth < 9 &&
	    m->resync_done * 10 / m->resync_total > m->resync_tenth) {
		m->resync_tenth = m->resync_done * 10 / m->resync_total;
		rmem_resync_event(m);
	}
	return 0;

out:
	if (bad) {
		pr_warn_ratelimited("%s: resync failed (server %pISpc): %d\n",
				    dev->name, &bad->peer, ret);
		if (READ_ONCE(bad->state) == RMEM_DEV_STATE_LIVE)
			rmem_sess_fail(bad);
		rmem_resync_strike(m, 4);
	}
	return ret;
}
