// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: thin devices, whose memory the server gives one
 * extent at a time (wire version 4; Documentation/multi-server.rst).
 *
 * The map holds one state per extent: unwritten (no memory anywhere),
 * present (the server's slot has memory, and the session's chunk table
 * entries describe it), freeing (present, and a discard covered it
 * whole: its memory is to go back to the server), giving (the worker is
 * giving it back, nothing sent yet) or sent (FREE went out: the entries
 * may be gone, it is never present on them again), or, over several
 * servers, syncing (the worker copies a current replica into one that is
 * not: resync.c; its writes wait, but while the copy takes them, only
 * those in the window it copies).  The data path reads
 * it without locks: the entries are written first, the state is
 * published with release semantics and read with acquire.  A discard
 * makes a present extent freeing (rmem_emap_discard()), and a write to a
 * freeing one makes it present again (a discard promises no data: the
 * write keeps the memory); the rest is the extent worker's.
 *
 * A read of an unwritten extent returns zeros without the network, and a
 * write of zeros to one has nothing to do.  Any other request that
 * touches an unwritten extent cannot wait in ->queue_rq(): it is started
 * and put on the map's list for the extent worker (extent_work.c).
 *
 * Over several servers the map also says which servers hold each extent
 * (its replicas) and which of those are stale; rmem_emap_legs() sends a
 * request to them.
 */
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/sched/mm.h>
#include <rdma/ib_verbs.h>
#include "client.h"
#include "extent.h"

/**
 * rmem_emap_alloc() - the extent map of a thin device
 * @dev: the device; cfg.extent set
 *
 * Return: 0 or -ENOMEM.
 */
int rmem_emap_alloc(struct rmem_dev *dev)
{
	struct rmem_emap *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->shift = ilog2(dev->cfg.extent);
	m->nr = dev->cfg.size >> m->shift;
	m->state = kvcalloc(m->nr, sizeof(*m->state), GFP_KERNEL);
	m->rep = kvcalloc(m->nr, sizeof(*m->rep), GFP_KERNEL);
	if (!m->state || !m->rep) {
		kvfree(m->state);
		kvfree(m->rep);
		kfree(m);
		return -ENOMEM;
	}
	m->dev = dev;
	m->pend_e = m->nr;
	m->sync_e = m->nr;
	m->sync_lock = RMEM_SYNC_UNLOCKED;
	spin_lock_init(&m->lock);
	INIT_LIST_HEAD(&m->waiting);
	INIT_DELAYED_WORK(&m->work, rmem_emap_work);
	dev->emap = m;
	return 0;
}

/**
 * rmem_emap_free() - free the map; nothing waits on it any more
 * @dev: the device
 */
void rmem_emap_free(struct rmem_dev *dev)
{
	if (!dev->emap)
		return;
	cancel_delayed_work_sync(&dev->emap->work);
	kvfree(dev->emap->state);
	kvfree(dev->emap->rep);
	kfree(dev->emap);
	dev->emap = NULL;
}

/*
 * The chunk table entries of the sessions in @rep (none stale) are in
 * place: the data path may use them.
 */
void rmem_emap_publish(struct rmem_emap *m, unsigned int e, u32 rep)
{
	WRITE_ONCE(m->rep[e], rep);
	/* pairs with the acquire in rmem_emap_check() */
	smp_store_release(&m->state[e], RMEM_EXTENT_PRESENT);
	atomic_inc(&m->held);
}

/* Whether extent state @st has memory on its servers. */
static bool rmem_emap_has_memory(u32 st)
{
	return st == RMEM_EXTENT_PRESENT || st == RMEM_EXTENT_FREEING ||
	       st == RMEM_EXTENT_GIVING || st == RMEM_EXTENT_SYNCING;
}

/**
 * rmem_emap_held() - extents that have memory
 * @dev: a thin device
 *
 * Return: their number.
 */
unsigned int rmem_emap_held(const struct rmem_dev *dev)
{
	return atomic_read(&dev->emap->held);
}

/**
 * rmem_emap_held_by() - extents whose memory one server holds
 * @dev: a thin device
 * @sess: one of its sessions
 *
 * Return: their number (a snapshot).
 */
unsigned int rmem_emap_held_by(const struct rmem_dev *dev,
			       const struct rmem_sess *sess)
{
	const struct rmem_emap *m = dev->emap;
	unsigned int e, n = 0;

	for (e = 0; e < m->nr; e++) {
		/* pairs with the release in rmem_emap_publish(): @rep next */
		if (!rmem_emap_has_memory(smp_load_acquire(&m->state[e])))
			continue;
		/* stale replicas too: the server holds their memory */
		n += rmem_rep_has(READ_ONCE(m->rep[e]), sess->index);
	}
	return n;
}

/**
 * rmem_emap_alive() - the replicas of an extent that count towards its
 *	redundancy
 * @dev: a thin device
 * @r: the extent's replica word
 *
 * Return: the current replicas of @r (not stale) whose server's session
 * is not dead, as a mask.
 */
unsigned long rmem_emap_alive(const struct rmem_dev *dev, u32 r)
{
	unsigned long cur = rmem_rep_current(r), alive = 0;
	unsigned int k;

	for_each_set_bit(k, &cur, RMEM_MAX_REPLICAS)
		if (READ_ONCE(dev->sessions[rmem_rep_sess(r, k)]->state) !=
		    RMEM_DEV_STATE_DEAD)
			alive |= BIT(k);
	return alive;
}

/**
 * rmem_emap_draining() - the replicas of an extent on draining servers
 * @dev: a thin device
 * @r: the extent's replica word
 *
 * Return: those replicas (stale or not, whatever their server's state),
 * as a mask.
 */
unsigned long rmem_emap_draining(const struct rmem_dev *dev, u32 r)
{
	unsigned long mask = 0;
	unsigned int k;

	for (k = 0; k < rmem_rep_n(r); k++)
		if (READ_ONCE(dev->sessions[rmem_rep_sess(r, k)]->draining))
			mask |= BIT(k);
	return mask;
}

/**
 * rmem_emap_kept() - the replicas of an extent that stay: alive, on a
 *	server not draining
 * @dev: a thin device
 * @r: the extent's replica word
 *
 * Return: rmem_emap_alive() less rmem_emap_draining(), as a mask.
 */
unsigned long rmem_emap_kept(const struct rmem_dev *dev, u32 r)
{
	return rmem_emap_alive(dev, r) & ~rmem_emap_draining(dev, r);
}

/**
 * rmem_emap_kept_live() - the replicas of an extent that stay and take
 *	I/O now
 * @dev: a thin device
 * @r: the extent's replica word
 *
 * Return: rmem_emap_kept() less those whose server is not live, as a
 * mask: only these let a copy on a draining server go.
 */
unsigned long rmem_emap_kept_live(const struct rmem_dev *dev, u32 r)
{
	unsigned long kept = rmem_emap_kept(dev, r), mask = 0;
	unsigned int k;

	for_each_set_bit(k, &kept, RMEM_MAX_REPLICAS)
		if (READ_ONCE(dev->sessions[rmem_rep_sess(r, k)]->state) ==
		    RMEM_DEV_STATE_LIVE)
			mask |= BIT(k);
	return mask;
}

/**
 * rmem_emap_refs() - whether an extent's replica word names a session
 * @dev: a thin device
 * @sess: one of its sessions
 *
 * Context: the extent worker (no extent changes state meanwhile but by
 * the data path: given back or discarded ones lose their memory through
 * the worker only).
 *
 * Return: true if an extent not unwritten has a replica (stale or not)
 * on @sess.
 */
bool rmem_emap_refs(const struct rmem_dev *dev, const struct rmem_sess *sess)
{
	const struct rmem_emap *m = dev->emap;
	unsigned int e;

	for (e = 0; e < m->nr; e++) {
		/* pairs with the release in rmem_emap_publish(): @rep next */
		if (smp_load_acquire(&m->state[e]) == RMEM_EXTENT_UNWRITTEN)
			continue;
		if (rmem_rep_has(READ_ONCE(m->rep[e]), sess->index))
			return true;
	}
	return false;
}

/**
 * rmem_emap_degraded() - extents with fewer current replicas than the
 *	device keeps
 * @dev: a thin device
 *
 * A replica counts when it is not stale, its server's session is not
 * dead and its server is not draining (rmem_emap_kept()).
 *
 * Return: their number (a snapshot).
 */
unsigned int rmem_emap_degraded(const struct rmem_dev *dev)
{
	const struct rmem_emap *m = dev->emap;
	unsigned int e, n = 0;

	for (e = 0; e < m->nr; e++) {
		/* pairs with the release in rmem_emap_publish(): @rep next */
		if (!rmem_emap_has_memory(smp_load_acquire(&m->state[e])))
			continue;
		n += hweight_long(rmem_emap_kept(dev, READ_ONCE(m->rep[e]))) <
		     dev->cfg.replicas;
	}
	return n;
}

/**
 * rmem_emap_lost() - whether an extent with memory has no current replica
 *	left whose server's session is not dead
 * @dev: a thin device
 *
 * Return: true if some of the device's data is lost (a snapshot).
 */
bool rmem_emap_lost(const struct rmem_dev *dev)
{
	const struct rmem_emap *m = dev->emap;
	unsigned int e;

	for (e = 0; e < m->nr; e++) {
		/* pairs with the release in rmem_emap_publish(): @rep next */
		if (rmem_emap_has_memory(smp_load_acquire(&m->state[e])) &&
		    !rmem_emap_alive(dev, READ_ONCE(m->rep[e])))
			return true;
	}
	return false;
}

/**
 * rmem_emap_note_lost() - latch a device with replicas dead once an extent
 *	is lost, and say so
 * @dev: a thin device
 *
 * Context: the extent worker (kicked when a session goes dead).
 */
void rmem_emap_note_lost(struct rmem_dev *dev)
{
	unsigned int i, n = rmem_dev_nr_sess(dev);

	if (dev->cfg.replicas == 1 || READ_ONCE(dev->lost))
		return;
	for (i = 0; i < n; i++)
		if (READ_ONCE(dev->sessions[i]->state) == RMEM_DEV_STATE_DEAD &&
		    !READ_ONCE(dev->sessions[i]->removed))
			break;
	if (i == n || !rmem_emap_lost(dev))
		return;
	WRITE_ONCE(dev->lost, true);
	pr_err("%s: an extent lost its last current copy: the device is dead (I/O to such extents fails)\n",
	       dev->name);
	rmem_dev_announce(dev);
}

/**
 * rmem_emap_stale() - mark replicas of an extent stale, keeping others
 * @dev: a thin device over several servers
 * @e: the extent, started requests on it (it is not given back meanwhile)
 * @bad: replicas (a mask) that missed a write, or may miss the next ones
 * @keep: replicas that have it; one of them must stay current
 *
 * Context: any (the CQ's, for a write one of whose legs failed).
 *
 * Return: true if @bad are stale now and one of @keep is current; false
 * if none of @keep is current any more (nothing changed).
 */
bool rmem_emap_stale(struct rmem_dev *dev, unsigned int e, unsigned int bad,
		     unsigned int keep)
{
	struct rmem_emap *m = dev->emap;
	u32 old = READ_ONCE(m->rep[e]), new, cur;

	for (;;) {
		if (!(rmem_rep_current(old) & keep))
			return false;
		new = old | bad << RMEM_REP_STALE_SHIFT;
		if (new == old)
			return true;
		cur = cmpxchg(&m->rep[e], old, new);
		if (cur == old)
			break;
		old = cur;
	}
	/* a resync makes it whole again, once things settle */
	queue_delayed_work(rmem_extent_wq, &m->work, HZ);
	pr_warn_ratelimited("%s: extent %u: %s stale (%u of %u replicas current)\n",
			    dev->name, e, hweight32(bad & rmem_rep_current(old)) > 1 ?
			    "replicas turned" : "a replica turned",
			    hweight32(rmem_rep_current(new)), rmem_rep_n(new));
	return true;
}

/**
 * rmem_emap_table_ok() - whether a thin session's table fits its extents
 * @sess: the session, its table just read
 *
 * Remote input: chunks no larger than an extent, and each slot's chunks
 * all taken or all absent.
 *
 * Return: true if so.
 */
bool rmem_emap_table_ok(struct rmem_sess *sess)
{
	struct rmem_emap *m = sess->dev->emap;
	unsigned int per, e, j;

	if (sess->chunk_shift > m->shift)
		return false;
	per = 1U << (m->shift - sess->chunk_shift);
	if ((u64)m->nr * per > sess->nr_chunks)
		return false;
	for (e = 0; e < m->nr; e++)
		for (j = 1; j < per; j++)
			if (test_bit(e * per + j, sess->absent) !=
			    test_bit(e * per, sess->absent))
				return false;
	return true;
}

/**
 * rmem_emap_load_table() - the extents a chunk table read found present
 * @sess: the session, its table just read and found to fit
 *	(rmem_emap_table_ok())
 *
 * Context: attach, before any I/O.
 */
void rmem_emap_load_table(struct rmem_sess *sess)
{
	struct rmem_emap *m = sess->dev->emap;
	unsigned int per = 1U << (m->shift - sess->chunk_shift), e;

	for (e = 0; e < m->nr; e++)
		if (!test_bit(e * per, sess->absent) &&
		    READ_ONCE(m->state[e]) == RMEM_EXTENT_UNWRITTEN)
			rmem_emap_publish(m, e, rmem_rep_add(0, sess->index));
}

/* The first and last extent @rq touches. */
static void rmem_emap_rq_range(const struct rmem_emap *m, struct request *rq,
			       unsigned int *first, unsigned int *last)
{
	u64 pos = blk_rq_pos(rq) << SECTOR_SHIFT;

	*first = pos >> m->shift;
	*last = (pos + blk_rq_bytes(rq) - 1) >> m->shift;
}

/* Whether @rq touches extent @e. */
bool rmem_emap_rq_touches(const struct rmem_emap *m, struct request *rq,
			  unsigned int e)
{
	unsigned int first, last;

	rmem_emap_rq_range(m, rq, &first, &last);
	return e >= first && e <= last;
}

/* Whether session @sess's queue pair @qi takes I/O now. */
static bool rmem_sess_queue_live(struct rmem_sess *sess, unsigned int qi)
{
	return READ_ONCE(sess->state) == RMEM_DEV_STATE_LIVE &&
	       READ_ONCE(sess->queues[qi].connected);
}

/*
 * Over several servers: whether @rq, whose extent @e has memory, waits
 * for a server's reconnect (on the map's list: the worker requeues it
 * when kicked, after the reconnect or the loss deadline), rather than
 * being held at the head of blk-mq's dispatch list, where it would hold
 * up the other servers' requests.  It waits when no current replica's
 * server takes I/O now and one of them is reconnecting (or about to).
 */
static bool rmem_emap_owner_holds(struct rmem_emap *m, struct request *rq,
				  unsigned int e)
{
	struct rmem_dev *dev = m->dev;
	unsigned int qi = rq->mq_hctx->queue_num, k;
	u32 r = READ_ONCE(m->rep[e]);
	unsigned long cur = rmem_rep_current(r);

	if (rmem_dev_nr_sess(dev) == 1)
		return false;
	for_each_set_bit(k, &cur, RMEM_MAX_REPLICAS)
		if (rmem_sess_queue_live(dev->sessions[rmem_rep_sess(r, k)], qi))
			return false;
	for_each_set_bit(k, &cur, RMEM_MAX_REPLICAS)
		if (rmem_sess_holds_io(dev->sessions[rmem_rep_sess(r, k)], rq))
			return true;
	return false;
}

/* Whether a read may go to extent @e on the wire. */
static bool rmem_emap_readable(struct rmem_emap *m, unsigned int e)
{
	/* pairs with the release in rmem_emap_publish() */
	u32 st = smp_load_acquire(&m->state[e]);

	return st == RMEM_EXTENT_PRESENT || st == RMEM_EXTENT_FREEING ||
	       st == RMEM_EXTENT_SYNCING;
}

/*
 * Whether write @rq may go to extent @e, which is syncing: the copy takes
 * writes (to the target too), and the window it copies now, where writes
 * wait, is not in @rq's way.  If so, its PDU keeps the copy's word and
 * number: rmem_emap_legs() sends it to that target (the copy waits for
 * it before it closes, and so does a new copy before it opens).
 */
static bool rmem_emap_sync_writable(struct rmem_emap *m, struct request *rq,
				    unsigned int e)
{
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	/* pairs with the release in rmem_resync_take_writes(): the rest first */
	unsigned long t = smp_load_acquire(&m->sync_tgt), w;
	u64 lo;
	u32 win;

	if (!rmem_sync_word_is(t, e))
		return false;
	cmd->sync_tgt = t;
	cmd->sync_gen = READ_ONCE(m->sync_gen);
	w = READ_ONCE(m->sync_lock);
	if (w == RMEM_SYNC_UNLOCKED)
		return true;
	win = READ_ONCE(m->sync_win);
	lo = ((u64)e << m->shift) + (u64)w * win;
	return !rmem_rq_overlaps(rq, lo, lo + win);
}

/* Leg @i of @cmd goes to replica @k of @r on queue pair @qi. */
static void rmem_emap_leg(struct rmem_dev *dev, struct rmem_req *cmd,
			  unsigned int i, u32 r, unsigned int k,
			  unsigned int qi)
{
	struct rmem_leg *leg = rmem_req_leg(cmd, i);

	leg->queue = &dev->sessions[rmem_rep_sess(r, k)]->queues[qi];
	leg->replica = k;
	leg->status = BLK_STS_OK;
	leg->hard_error = false;
	leg->partial = false;
	leg->ended = false;
	leg->sync = 0;
}

/**
 * rmem_emap_legs() - where a request goes on a device over several servers
 * @dev: a thin device over several servers
 * @qi: its hardware queue's index
 * @rq: a read or write (within one extent: the device's chunk_sectors),
 *	started, whose extent the map found present
 * @cmd: its PDU: its legs are set here
 *
 * A read goes to one current replica whose server takes I/O now: the one
 * with fewer reads in flight on this queue pair.  A write goes to every
 * such replica, and not to the current replicas whose servers do not take
 * I/O now (reconnecting, dead), so that a silent server does not hold it
 * up while another replica takes it (md's failfast): those turn stale
 * when it settles, if another replica took it (not before: until then
 * they still hold everything written).  Nor to a draining server's
 * replica that a drain's copy left current beside more than
 * cfg.replicas others: it turns stale the same way.  A write to an extent
 * whose resync copy takes writes goes to the copy's target too, as its
 * last leg; if that server takes no I/O now, the copy is told
 * (&rmem_emap.sync_missed).
 *
 * Return: the number of legs set; 0 if the request should go again (no
 * current replica takes I/O now, but one may later: it then waits for
 * it; or the map changed under it); -EIO if no current replica is left.
 */
int rmem_emap_legs(struct rmem_dev *dev, unsigned int qi, struct request *rq,
		   struct rmem_req *cmd)
{
	struct rmem_emap *m = dev->emap;
	unsigned int first, last, k, n = 0, best = 0, min = UINT_MAX, dst;
	unsigned long t = cmd->sync_tgt;
	unsigned long cur, live = 0;
	u32 r;

	rmem_emap_rq_range(m, rq, &first, &last);
	/* pairs with the release in rmem_emap_publish(): @rep first */
	if (first != last || !rmem_emap_readable(m, first)) {
		cmd->hard_error = true;
		return 0;
	}
	r = READ_ONCE(m->rep[first]);
	cur = rmem_rep_current(r);
	for_each_set_bit(k, &cur, RMEM_MAX_REPLICAS) {
		struct rmem_sess *sess = dev->sessions[rmem_rep_sess(r, k)];

		/* as rmem_emap_owner_holds() sees it, so it waits there */
		if (rmem_sess_queue_live(sess, qi))
			live |= BIT(k);
		else if (rmem_sess_holds_io(sess, rq))
			n++;
	}
	if (!live)
		return n ? 0 : -EIO;
	if (req_op(rq) == REQ_OP_READ) {
		for_each_set_bit(k, &live, RMEM_MAX_REPLICAS) {
			struct rmem_sess *sess = dev->sessions[rmem_rep_sess(r, k)];
			unsigned int q = atomic_read(&sess->queues[qi].io->reads);

			if (q < min) {
				min = q;
				best = k;
			}
		}
		rmem_emap_leg(dev, cmd, 0, r, best, qi);
		cmd->nr_legs = 1;
		return 1;
	}
	/*
	 * More than the PDU has legs for: a drain's copy ended while a kept
	 * replica was reconnecting, so the draining one stayed current
	 * (rmem_resync_step()).  The draining ones miss this write: the
	 * extent is whole without them.
	 */
	if (hweight_long(live) > dev->cfg.replicas) {
		unsigned long drop = live & rmem_emap_draining(dev, r);

		for_each_set_bit(k, &drop, RMEM_MAX_REPLICAS) {
			if (hweight_long(live) <= dev->cfg.replicas)
				break;
			live &= ~BIT(k);
		}
	}
	/* they missed it: stale once it settles (rmem_req_settle()) */
	cmd->skipped = cur & ~live;
	n = 0;
	for_each_set_bit(k, &live, RMEM_MAX_REPLICAS) {
		/* the PDU has legs for cfg.replicas: never more current */
		if (WARN_ON_ONCE(n == dev->cfg.replicas)) {
			cmd->skipped |= BIT(k);
			continue;
		}
		rmem_emap_leg(dev, cmd, n++, r, k, qi);
	}
	/*
	 * The copy's target, as rmem_emap_check() found the copy open: a
	 * stale replica, at the place the copy set it up (no place changes
	 * while this request is in flight: a resync's start, a drop and a
	 * give-back wait for it, and so does the copy's close).
	 */
	if (t) {
		dst = rmem_sync_word_dst(t);
		if (WARN_ON_ONCE(dst >= rmem_rep_n(r) || (cur & BIT(dst)) ||
				 n == rmem_dev_max_legs(dev)) ||
		    !rmem_sess_queue_live(dev->sessions[rmem_rep_sess(r, dst)],
					  qi)) {
			atomic_inc(&m->sync_missed);
		} else {
			rmem_emap_leg(dev, cmd, n, r, dst, qi);
			rmem_req_leg(cmd, n++)->sync = cmd->sync_gen;
		}
	}
	cmd->nr_legs = n;
	return n;
}

/**
 * rmem_emap_rq_extent() - the extent of a request within one
 * @dev: a thin device
 * @rq: the request
 *
 * Return: the extent its first byte is in.
 */
unsigned int rmem_emap_rq_extent(const struct rmem_dev *dev,
				 struct request *rq)
{
	return (blk_rq_pos(rq) << SECTOR_SHIFT) >> dev->emap->shift;
}

/*
 * What to do with @rq now; for RMEM_EMAP_WAIT, @need is the first
 * unwritten extent it needs memory for, or m->nr if only extents being
 * given back hold it; for RMEM_EMAP_HOLE, the unwritten extent.
 * A write of zeros that may unmap (not NOUNMAP, which keeps the space)
 * has nothing to do on unwritten extents, and a read reads zeros.
 */
enum rmem_emap_verdict rmem_emap_check(struct rmem_emap *m, struct request *rq,
				       unsigned int *need)
{
	bool present = true, unwritten = true;
	unsigned int e, first, last, holes = 0;

	*need = m->nr;
	((struct rmem_req *)blk_mq_rq_to_pdu(rq))->sync_tgt = 0;
	rmem_emap_rq_range(m, rq, &first, &last);
	for (e = first; e <= last; e++) {
		/* pairs with the release in rmem_emap_publish() */
		u32 st = smp_load_acquire(&m->state[e]);

		/* a write keeps a freeing extent (nothing sent yet) */
		if (st == RMEM_EXTENT_FREEING && req_op(rq) != REQ_OP_READ &&
		    cmpxchg(&m->state[e], RMEM_EXTENT_FREEING,
			    RMEM_EXTENT_PRESENT) == RMEM_EXTENT_FREEING)
			st = RMEM_EXTENT_PRESENT;
		/*
		 * A read may read what a discard left, and a syncing extent's
		 * current replicas; a write goes to a syncing one's current
		 * replicas and its target while the copy takes writes, outside
		 * the window it copies.
		 */
		if (st != RMEM_EXTENT_PRESENT &&
		    !((st == RMEM_EXTENT_FREEING || st == RMEM_EXTENT_SYNCING) &&
		      req_op(rq) == REQ_OP_READ) &&
		    !(st == RMEM_EXTENT_SYNCING && req_op(rq) == REQ_OP_WRITE &&
		      rmem_emap_sync_writable(m, rq, e)))
			present = false;
		if (st != RMEM_EXTENT_UNWRITTEN) {
			unwritten = false;
		} else {
			holes++;
			if (*need == m->nr)
				*need = e;
		}
	}
	if (present)
		return rmem_emap_owner_holds(m, rq, first) ? RMEM_EMAP_WAIT :
							     RMEM_EMAP_ISSUE;
	if (unwritten && req_op(rq) != REQ_OP_WRITE &&
	    !(rq->cmd_flags & REQ_NOUNMAP))
		return RMEM_EMAP_ZEROS;
	/*
	 * A read across two extents (at most 1 MiB each side), one never
	 * written and the other readable: only that one goes on the wire.
	 */
	if (req_op(rq) == REQ_OP_READ && last == first + 1 && holes == 1 &&
	    rmem_emap_readable(m, *need == first ? last : first))
		return RMEM_EMAP_HOLE;
	/*
	 * Such a read waits only for an extent being given back, then reads
	 * zeros or has a hole: it takes no memory.
	 */
	if (req_op(rq) == REQ_OP_READ && last <= first + 1)
		*need = m->nr;
	return RMEM_EMAP_WAIT;
}

/*
 * The part of read @rq in extent @e (never written) is its hole: not
 * read on the wire, zeroed at completion (rmem_emap_zero_hole()).
 */
static void rmem_emap_hole(struct rmem_emap *m, struct request *rq,
			   unsigned int e, struct rmem_req *cmd)
{
	u64 pos = blk_rq_pos(rq) << SECTOR_SHIFT;
	u64 start = max_t(u64, pos, (u64)e << m->shift);
	u64 end = min_t(u64, pos + blk_rq_bytes(rq), (u64)(e + 1) << m->shift);

	cmd->hole_off = start - pos;
	cmd->hole_len = end - start;
}

/**
 * rmem_emap_zero_hole() - zero the part of a read that no extent backs
 * @rq: the read, its data unmapped (the CPU's again)
 * @off: where the part starts, in bytes into @rq
 * @len: its length
 *
 * Context: its completion (any context).
 */
void rmem_emap_zero_hole(struct request *rq, u32 off, u32 len)
{
	struct req_iterator iter;
	struct bio_vec bv;
	u32 at = 0;

	rq_for_each_segment(bv, rq, iter) {
		u32 s = max(at, off), e = min(at + bv.bv_len, off + len);

		if (s < e)
			memzero_page(bv.bv_page, bv.bv_offset + s - at, e - s);
		at += bv.bv_len;
	}
}

/**
 * rmem_emap_queue_rq() - a thin device's request before it is mapped
 * @dev: the device
 * @rq: a read, write or write-zeroes request within the device, started
 *
 * Return: false if every extent @rq touches has memory (issue it as on a
 * full device), or it is a read of one that has and one never written
 * (issue it with a hole: rmem_emap_hole()); true if it was taken care of
 * here: ended (a read of
 * unwritten extents reads zeros, a write of zeros to them has nothing to
 * do) or put on the list for the extent worker.
 */
bool rmem_emap_queue_rq(struct rmem_dev *dev, struct request *rq)
{
	struct rmem_emap *m = dev->emap;
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	struct req_iterator iter;
	struct bio_vec bv;
	unsigned int e;

	/*
	 * Started before the map is read: a worker that made an extent
	 * giving sees this request in flight (rmem_emap_busy()), or this
	 * sees the extent giving.  Pairs with the cmpxchg and barrier there
	 * and in rmem_emap_give_back().
	 */
	smp_mb();
	switch (rmem_emap_check(m, rq, &e)) {
	case RMEM_EMAP_ISSUE:
		return false;
	case RMEM_EMAP_HOLE:
		rmem_emap_hole(m, rq, e, cmd);
		return false;
	case RMEM_EMAP_ZEROS:
		if (req_op(rq) == REQ_OP_READ)
			rq_for_each_segment(bv, rq, iter)
				memzero_bvec(&bv);
		blk_mq_end_request(rq, BLK_STS_OK);
		return true;
	case RMEM_EMAP_WAIT:
		break;
	}
	WRITE_ONCE(cmd->thin_wait, true);
	/* queued under the lock: the worker cannot end it first */
	spin_lock(&m->lock);
	list_add_tail(&rq->queuelist, &m->waiting);
	mod_delayed_work(rmem_extent_wq, &m->work, 0);
	spin_unlock(&m->lock);
	return true;
}

/**
 * rmem_emap_discard() - a discard: the extents it covers whole give their
 *	memory back
 * @dev: a thin device
 * @rq: the discard, within the device
 *
 * The worker gives them back when nothing waits for memory; a write
 * to one before that keeps it.
 */
void rmem_emap_discard(struct rmem_dev *dev, struct request *rq)
{
	struct rmem_emap *m = dev->emap;
	u64 pos = blk_rq_pos(rq) << SECTOR_SHIFT;
	u64 e = round_up(pos, 1ULL << m->shift) >> m->shift;
	u64 end = (pos + blk_rq_bytes(rq)) >> m->shift;
	bool any = false;

	for (; e < end; e++)
		if (cmpxchg(&m->state[e], RMEM_EXTENT_PRESENT,
			    RMEM_EXTENT_FREEING) == RMEM_EXTENT_PRESENT)
			any = true;
	if (any)
		mod_delayed_work(rmem_extent_wq, &m->work, 0);
}

