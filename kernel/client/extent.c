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
 * may be gone, it is never present on them again).  The data path reads
 * it without locks: the entries are written first, the state is
 * published with release semantics and read with acquire.  A discard
 * makes a present extent freeing (rmem_emap_discard()), and a write to a
 * freeing one makes it present again (a discard promises no data: the
 * write keeps the memory); the rest is the extent worker's.
 *
 * A read of an unwritten extent returns zeros without the network, and a
 * write of zeros to one has nothing to do.  Any other request that
 * touches an unwritten extent cannot wait in ->queue_rq(): it is started
 * and put on the map's list, and the worker (rmem_extent_wq: WQ_MEM_RECLAIM,
 * under memalloc_noio, with the session's preallocated message buffers:
 * swap writes come this way) asks the server for the extent's slot
 * (RMEM_WIRE_EXTENT_ALLOC), reads the slot's chunk table entries, marks
 * the extent present and requeues the requests waiting for it.  When the
 * server has no room, they fail with BLK_STS_NOSPC, "events" says so
 * once until an extent is taken or given back, and every present extent
 * keeps working.  When nothing waits for memory, the worker gives freeing
 * extents back one at a time: it marks one giving (requests to it wait
 * from then on), looks again later while one issued before is in flight
 * on it, gives the slot back (RMEM_WIRE_EXTENT_FREE) and marks it
 * unwritten.
 * The worker talks to the server only while the device is live; a reconnect
 * or the loss deadline kicks it again (rmem_dev_resume_io()), and a dead
 * or deleted device fails what waits.
 */
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/sched/mm.h>
#include <rdma/ib_verbs.h>
#include "client.h"

enum {
	RMEM_EXTENT_UNWRITTEN,
	RMEM_EXTENT_PRESENT,
	RMEM_EXTENT_FREEING,
	RMEM_EXTENT_GIVING,
	RMEM_EXTENT_SENT,
};

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
	m->owner = kvcalloc(m->nr, sizeof(*m->owner), GFP_KERNEL);
	if (!m->state || !m->owner) {
		kvfree(m->state);
		kvfree(m->owner);
		kfree(m);
		return -ENOMEM;
	}
	m->dev = dev;
	m->pend_e = m->nr;
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
	kvfree(dev->emap->owner);
	kfree(dev->emap);
	dev->emap = NULL;
}

/*
 * The chunk table entries of session @sess are in place: the data path
 * may use them.
 */
static void rmem_emap_publish(struct rmem_emap *m, unsigned int e,
			      struct rmem_sess *sess)
{
	m->owner[e] = sess->index;
	/* pairs with the acquire in rmem_emap_check() */
	smp_store_release(&m->state[e], RMEM_EXTENT_PRESENT);
	atomic_inc(&m->held);
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
		switch (READ_ONCE(m->state[e])) {
		case RMEM_EXTENT_PRESENT:
		case RMEM_EXTENT_FREEING:
		case RMEM_EXTENT_GIVING:
			n += READ_ONCE(m->owner[e]) == sess->index;
			break;
		}
	}
	return n;
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
			rmem_emap_publish(m, e, sess);
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
static bool rmem_emap_rq_touches(const struct rmem_emap *m, struct request *rq,
				 unsigned int e)
{
	unsigned int first, last;

	rmem_emap_rq_range(m, rq, &first, &last);
	return e >= first && e <= last;
}

enum rmem_emap_verdict {
	RMEM_EMAP_ISSUE,	/* every extent has memory: issue it */
	RMEM_EMAP_ZEROS,	/* none has, and zeros are the answer */
	RMEM_EMAP_HOLE,		/* a read: one has, the other reads zeros */
	RMEM_EMAP_WAIT,		/* the worker must make or free one */
};

/*
 * Over several servers: whether @rq, whose extent @e has memory, waits
 * for its server's reconnect (on the map's list: the worker requeues it
 * when kicked, after the reconnect or the loss deadline), rather than
 * being held at the head of blk-mq's dispatch list, where it would hold
 * up the other servers' requests.
 */
static bool rmem_emap_owner_holds(struct rmem_emap *m, struct request *rq,
				  unsigned int e)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_sess *sess;

	if (dev->nr_sess == 1)
		return false;
	sess = dev->sessions[READ_ONCE(m->owner[e])];
	if (READ_ONCE(sess->state) == RMEM_DEV_STATE_LIVE &&
	    READ_ONCE(sess->queues[rq->mq_hctx->queue_num].connected))
		return false;
	return rmem_sess_holds_io(sess, rq);
}

/* Whether a read may go to extent @e on the wire. */
static bool rmem_emap_readable(struct rmem_emap *m, unsigned int e)
{
	/* pairs with the release in rmem_emap_publish() */
	u32 st = smp_load_acquire(&m->state[e]);

	return st == RMEM_EXTENT_PRESENT || st == RMEM_EXTENT_FREEING;
}

/**
 * rmem_emap_queue() - the queue of the server that holds a request's data
 * @dev: a thin device over several servers
 * @queue: the hardware queue's queue (the first session's)
 * @rq: a read, write or write-zeroes request (within one extent: the
 *	device's chunk_sectors)
 *
 * Return: the queue of the same index of the session whose server holds
 * the extent, or NULL if it has no memory (yet, or any more).
 */
struct rmem_queue *rmem_emap_queue(struct rmem_dev *dev,
				   struct rmem_queue *queue, struct request *rq)
{
	struct rmem_emap *m = dev->emap;
	unsigned int first, last;

	rmem_emap_rq_range(m, rq, &first, &last);
	/* pairs with the release in rmem_emap_publish(): @owner first */
	if (first != last || !rmem_emap_readable(m, first))
		return NULL;
	return &dev->sessions[m->owner[first]]->queues[queue->index];
}

/*
 * What to do with @rq now; for RMEM_EMAP_WAIT, @need is the first
 * unwritten extent it needs memory for, or m->nr if only extents being
 * given back hold it; for RMEM_EMAP_HOLE, the unwritten extent.
 * A write of zeros that may unmap (not NOUNMAP, which keeps the space)
 * has nothing to do on unwritten extents, and a read reads zeros.
 */
static enum rmem_emap_verdict rmem_emap_check(struct rmem_emap *m,
					      struct request *rq,
					      unsigned int *need)
{
	bool present = true, unwritten = true;
	unsigned int e, first, last, holes = 0;

	*need = m->nr;
	rmem_emap_rq_range(m, rq, &first, &last);
	for (e = first; e <= last; e++) {
		/* pairs with the release in rmem_emap_publish() */
		u32 st = smp_load_acquire(&m->state[e]);

		/* a write keeps a freeing extent (nothing sent yet) */
		if (st == RMEM_EXTENT_FREEING && req_op(rq) != REQ_OP_READ &&
		    cmpxchg(&m->state[e], RMEM_EXTENT_FREEING,
			    RMEM_EXTENT_PRESENT) == RMEM_EXTENT_FREEING)
			st = RMEM_EXTENT_PRESENT;
		/* a read may read what a discard left */
		if (st != RMEM_EXTENT_PRESENT &&
		    !(st == RMEM_EXTENT_FREEING && req_op(rq) == REQ_OP_READ))
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

/*
 * Waiting requests go: with @all every one, ended with @status; else with
 * an error @status those that touch extent @e, ended; with BLK_STS_OK
 * those that need nothing more of the worker, requeued.
 */
static void rmem_emap_sweep(struct rmem_emap *m, unsigned int e,
			    blk_status_t status, bool all)
{
	struct request *rq, *tmp;
	unsigned int need;
	LIST_HEAD(go);

	spin_lock(&m->lock);
	list_for_each_entry_safe(rq, tmp, &m->waiting, queuelist) {
		/* a read needs no memory: it waits only for a giving extent */
		if (all || (status && req_op(rq) != REQ_OP_READ &&
			    rmem_emap_rq_touches(m, rq, e)) ||
		    (!status && rmem_emap_check(m, rq, &need) != RMEM_EMAP_WAIT))
			list_move_tail(&rq->queuelist, &go);
	}
	spin_unlock(&m->lock);
	list_for_each_entry_safe(rq, tmp, &go, queuelist) {
		struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);

		list_del_init(&rq->queuelist);
		if (status) {
			WRITE_ONCE(cmd->thin_wait, false);
			atomic64_inc(&m->dev->errors);
			blk_mq_end_request(rq, status);
		} else {
			/* still waiting until ->queue_rq() has it again */
			blk_mq_requeue_request(rq, true);
		}
	}
}

/* The first unwritten extent a waiting request needs, or false if none. */
static bool rmem_emap_next(struct rmem_emap *m, unsigned int *e)
{
	struct request *rq;
	bool found = false;

	spin_lock(&m->lock);
	list_for_each_entry(rq, &m->waiting, queuelist)
		if (rmem_emap_check(m, rq, e) == RMEM_EMAP_WAIT &&
		    *e < m->nr) {
			found = true;
			break;
		}
	spin_unlock(&m->lock);
	return found;
}

struct rmem_emap_busy {
	struct rmem_emap *m;
	unsigned int e;
	bool busy;
};

/* blk_mq_tagset_busy_iter(): whether a started request is on extent e. */
static bool rmem_emap_busy_one(struct request *rq, void *data)
{
	struct rmem_emap_busy *b = data;
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);

	/* on the list: not issued, and it waits for the worker */
	if (READ_ONCE(cmd->thin_wait))
		return true;
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
	case REQ_OP_WRITE_ZEROES:
		break;
	default:
		return true;
	}
	b->busy = rmem_emap_rq_touches(b->m, rq, b->e);
	return !b->busy;
}

/*
 * Whether a request issued before extent @e became giving is still in
 * flight on it: its memory may not go yet.
 */
static bool rmem_emap_busy(struct rmem_emap *m, unsigned int e)
{
	struct rmem_emap_busy b = { .m = m, .e = e };

	/*
	 * The giving state is seen by every ->queue_rq() after this, or its
	 * request is seen started here (it started before reading the map):
	 * pairs with the smp_mb() in rmem_emap_queue_rq().
	 */
	smp_mb();
	blk_mq_tagset_busy_iter(&m->dev->tag_set, rmem_emap_busy_one, &b);
	return b.busy;
}

/*
 * Where a new extent goes: power of two choices among the live sessions
 * not in @tried whose server had room for an extent at its last report
 * (or has not reported): two picked at random, the one with more free
 * memory.  With none such, among the live ones not tried whatever they
 * reported (a report may be stale: the server's answer decides).
 * Return: the session, or NULL if there is none.
 */
static struct rmem_sess *rmem_emap_place(struct rmem_emap *m,
					 unsigned long tried)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_sess *c[RMEM_MAX_PEERS], *a, *b;
	unsigned int i, n = 0, x, y;
	bool any_room;

	for (any_room = true; ; any_room = false) {
		for (i = 0; i < dev->nr_sess; i++) {
			struct rmem_sess *sess = dev->sessions[i];

			if (!(tried & BIT(i)) && rmem_sess_ext_ready(sess) &&
			    (!any_room || READ_ONCE(sess->server_free) >=
					  (1ULL << m->shift)))
				c[n++] = sess;
		}
		if (n || !any_room)
			break;
	}
	if (n <= 1)
		return n ? c[0] : NULL;
	x = get_random_u32_below(n);
	y = get_random_u32_below(n - 1);
	if (y >= x)
		y++;
	a = c[x];
	b = c[y];
	return READ_ONCE(b->server_free) > READ_ONCE(a->server_free) ? b : a;
}

/*
 * Whether a session of the device not in @tried may take an extent later:
 * one that is not dead nor being deleted, but is not live now (or its
 * queue pair 0 is fenced until its teardown).
 */
static bool rmem_emap_later(struct rmem_emap *m, unsigned long tried)
{
	struct rmem_dev *dev = m->dev;
	unsigned int i;

	for (i = 0; i < dev->nr_sess; i++) {
		enum rmem_dev_state st = READ_ONCE(dev->sessions[i]->state);

		if (tried & BIT(i))
			continue;
		if (st == RMEM_DEV_STATE_RECONNECTING ||
		    st == RMEM_DEV_STATE_CONNECTING ||
		    (st == RMEM_DEV_STATE_LIVE &&
		     READ_ONCE(dev->sessions[i]->ext_fenced)))
			return true;
	}
	return false;
}

/*
 * Give extent @e memory on a server (the only one, or placed), and
 * publish it.  A server without room is skipped for the next; with
 * none left, -ENOSPC (or -EDQUOT if a host quota was the last reason),
 * or -EAGAIN if a server that is reconnecting may take it later.
 * *@sessp is the session of the last try.
 */
static int rmem_emap_take(struct rmem_emap *m, unsigned int e,
			  struct rmem_sess **sessp)
{
	struct rmem_dev *dev = m->dev;
	unsigned long tried = 0;
	int ret = -ENOSPC;

	for (;;) {
		struct rmem_sess *sess = dev->nr_sess == 1 ? dev->sess :
					 rmem_emap_place(m, tried);
		unsigned int per;

		/* a server that may hold it already is asked again first */
		if (m->pend_e == e && !tried) {
			sess = dev->sessions[m->pend_sess];
			switch (READ_ONCE(sess->state)) {
			case RMEM_DEV_STATE_LIVE:
				break;
			case RMEM_DEV_STATE_DEAD:
				m->pend_e = m->nr;
				continue;
			default:
				return -EAGAIN;
			}
		}
		if (!sess)
			return rmem_emap_later(m, tried) ? -EAGAIN : ret;
		*sessp = sess;
		per = 1U << (m->shift - sess->chunk_shift);
		/* a wait given up: nothing more on it until drained */
		if (READ_ONCE(sess->ext_fenced))
			return -ECONNRESET;
		ret = rmem_sess_ext_op(sess, RMEM_WIRE_EXTENT_ALLOC, e);
		if (!ret)
			ret = rmem_sess_ext_read(sess, e * per, per);
		if (!ret) {
			if (m->pend_e == e)
				m->pend_e = m->nr;
			rmem_emap_publish(m, e, sess);
			return 0;
		}
		if (ret != -ENOSPC && ret != -EDQUOT && ret != -EREMOTEIO &&
		    ret != -EPROTO && dev->nr_sess > 1) {
			/* the server may have taken memory for it: ask it again */
			m->pend_e = e;
			m->pend_sess = sess->index;
		}
		if ((ret != -ENOSPC && ret != -EDQUOT) || dev->nr_sess == 1)
			return ret;
		if (m->pend_e == e)
			m->pend_e = m->nr;
		tried |= BIT(sess->index);
	}
}

/* Whether a waiting write (or write-zeroes) touches extent @e. */
static bool rmem_emap_write_waits(struct rmem_emap *m, unsigned int e)
{
	struct request *rq;
	bool found = false;

	spin_lock(&m->lock);
	list_for_each_entry(rq, &m->waiting, queuelist) {
		if (req_op(rq) != REQ_OP_READ && rmem_emap_rq_touches(m, rq, e)) {
			found = true;
			break;
		}
	}
	spin_unlock(&m->lock);
	return found;
}

/*
 * The extent goes unwritten: the server has its memory back, or may have
 * (a later ALLOC, idempotent, reads fresh entries either way).
 */
static void rmem_emap_given(struct rmem_emap *m, unsigned int e)
{
	/* pairs with the acquire in rmem_emap_check() */
	smp_store_release(&m->state[e], RMEM_EXTENT_UNWRITTEN);
	atomic_dec(&m->held);
	WRITE_ONCE(m->nospc, false);
}

/*
 * Give extent @e's memory back to the server (it is freeing, or giving or
 * sent from an earlier try) and mark it unwritten.  Until FREE is sent, a
 * write that waits for the extent keeps it (present again), and nothing
 * is sent while requests are still in flight on it.  Once sent, its
 * entries may be gone on the server: it never becomes present on them
 * again.  A refusal of the first FREE leaves the memory where it was
 * (present); of a later one, after an answer that said nothing, it counts
 * as given back, and so it does after three answers that said nothing
 * (the session fails each time; FREE is idempotent and goes again after
 * the reconnect).  Return: 0, -EBUSY if requests are in flight on it
 * (try again shortly), or an error of the connection.
 */
static int rmem_emap_give_back(struct rmem_emap *m, unsigned int e)
{
	struct rmem_sess *sess = m->dev->sessions[m->owner[e]];
	u32 st;
	int ret;

	st = cmpxchg(&m->state[e], RMEM_EXTENT_FREEING, RMEM_EXTENT_GIVING);
	/* a write that came first keeps it */
	if (st == RMEM_EXTENT_PRESENT)
		return 0;
	/* a server of several that is gone: nothing to give back to */
	if (READ_ONCE(sess->state) == RMEM_DEV_STATE_DEAD) {
		if (rmem_emap_busy(m, e))
			return -EBUSY;
		rmem_emap_given(m, e);
		return 0;
	}
	if (st != RMEM_EXTENT_SENT) {
		/* nothing sent yet: a write that waits for it keeps it */
		if (rmem_emap_write_waits(m, e)) {
			m->free_errors = 0;
			/* pairs with the acquire in rmem_emap_check() */
			smp_store_release(&m->state[e], RMEM_EXTENT_PRESENT);
			return 0;
		}
		if (rmem_emap_busy(m, e))
			return -EBUSY;
	}
	if (READ_ONCE(sess->ext_fenced))
		return -ECONNRESET;
	/* from here its requests wait as for giving (worker only) */
	WRITE_ONCE(m->state[e], RMEM_EXTENT_SENT);
	ret = rmem_sess_ext_op(sess, RMEM_WIRE_EXTENT_FREE, e);
	if (ret == -ENOSPC || ret == -EDQUOT || ret == -EREMOTEIO) {
		m->free_errors = 0;
		if (st == RMEM_EXTENT_SENT) {
			pr_warn_ratelimited("%s: the server refused to take extent %u back (%d) after an earlier try; taken as given back\n",
					    m->dev->name, e, ret);
			rmem_emap_given(m, e);
			return 0;
		}
		pr_warn_ratelimited("%s: the server refused to take extent %u back (%d); it keeps its memory\n",
				    m->dev->name, e, ret);
		/* refused, not done: the entries still describe it */
		smp_store_release(&m->state[e], RMEM_EXTENT_PRESENT);
		return 0;
	}
	if (ret && ret != -ECONNRESET && ++m->free_errors >= 3) {
		pr_warn_ratelimited("%s: giving extent %u back got no answer three times (%d); taken as given back\n",
				    m->dev->name, e, ret);
		m->free_errors = 0;
		rmem_emap_given(m, e);
		/* the session still fails: queue pair 0 is fenced */
		return ret;
	}
	if (ret)
		return ret;
	m->free_errors = 0;
	rmem_emap_given(m, e);
	return 0;
}

/*
 * The next extent to give back, from where the last search ended, whose
 * server is live (or dead: its memory is gone anyway).
 */
static bool rmem_emap_next_freeing(struct rmem_emap *m, unsigned int *e)
{
	unsigned int i, j;

	for (i = 0; i < m->nr; i++) {
		enum rmem_dev_state st;

		j = (m->free_cursor + i) % m->nr;
		switch (READ_ONCE(m->state[j])) {
		case RMEM_EXTENT_FREEING:
		case RMEM_EXTENT_GIVING:
		case RMEM_EXTENT_SENT:
			st = READ_ONCE(m->dev->sessions[m->owner[j]]->state);
			if (st != RMEM_DEV_STATE_LIVE &&
			    st != RMEM_DEV_STATE_DEAD)
				continue;
			m->free_cursor = j;
			*e = j;
			return true;
		}
	}
	return false;
}

/* The server had no room for extent @e: fail its writes, and say so. */
static void rmem_emap_nospc(struct rmem_emap *m, unsigned int e, int ret)
{
	struct rmem_dev *dev = m->dev;

	pr_warn_ratelimited("%s: the server has no room for extent %u (%s); writes to it fail\n",
			    dev->name, e,
			    ret == -ENOSPC ? "pool full" : "host quota");
	WRITE_ONCE(m->nospc_extent, e);
	/* the writes first: swap may wait for them */
	rmem_emap_sweep(m, e, BLK_STS_NOSPC, false);
	/* once until an extent is taken or given back; no reclaim for it */
	if (!m->nospc) {
		WRITE_ONCE(m->nospc, true);
		rmem_nl_notify_dev(dev, RMEM_CMD_DEV_NOSPC_NTF, GFP_NOWAIT);
	}
}

/*
 * A control message failed with @ret on the connection: fail the session
 * (it reconnects and kicks the worker again, or goes dead).
 */
static void rmem_emap_conn_error(struct rmem_emap *m,
				 struct rmem_sess *sess, const char *what,
				 unsigned int e, int ret)
{
	if (READ_ONCE(sess->state) == RMEM_DEV_STATE_LIVE) {
		pr_warn("%s: %s extent %u failed (server %pISpc): %d\n",
			m->dev->name, what, e, &sess->peer, ret);
		rmem_sess_fail(sess);
	}
}

/*
 * What the worker may do: fail everything (every session dead, or the
 * device being deleted), nothing (no session live), or talk to the live
 * sessions.  Return: the state that says it (dead, reconnecting, live).
 */
static enum rmem_dev_state rmem_emap_can(struct rmem_dev *dev)
{
	bool live = false, dead = true;
	unsigned int i;

	for (i = 0; i < dev->nr_sess; i++) {
		switch (READ_ONCE(dev->sessions[i]->state)) {
		case RMEM_DEV_STATE_DELETING:
			return RMEM_DEV_STATE_DEAD;
		case RMEM_DEV_STATE_LIVE:
			live = true;
			fallthrough;
		case RMEM_DEV_STATE_RECONNECTING:
		case RMEM_DEV_STATE_CONNECTING:
			dead = false;
			break;
		default:
			break;
		}
	}
	if (dead)
		return RMEM_DEV_STATE_DEAD;
	return live ? RMEM_DEV_STATE_LIVE : RMEM_DEV_STATE_RECONNECTING;
}

/**
 * rmem_emap_work() - take memory for the extents waiting requests touch,
 *	and give back what discards freed
 * @work: the map's work
 *
 * One extent at a time, while the device is live: first what waiting
 * requests need, then, with nothing to take, one extent to give back
 * (again shortly while requests are in flight on it: this never sleeps
 * for them).  Requests that need nothing more go again; a server without
 * room fails those that wait for the extent it refused; a dead or deleted
 * device fails every one.  A broken connection (no answer, a failed work
 * request, an answer out of step) fails the session: it reconnects and
 * kicks this again, or goes dead.  A server that says it gave a slot
 * whose entries stay absent fails that extent's requests after three
 * tries.
 */
void rmem_emap_work(struct work_struct *work)
{
	struct rmem_emap *m = container_of(to_delayed_work(work),
					   struct rmem_emap, work);
	struct rmem_dev *dev = m->dev;
	unsigned int noio = memalloc_noio_save();
	bool take_later = false;
	unsigned int e;
	int ret;

	for (;;) {
		enum rmem_dev_state state = rmem_emap_can(dev);
		struct rmem_sess *sess;

		if (state == RMEM_DEV_STATE_DEAD) {
			rmem_emap_sweep(m, 0, BLK_STS_IOERR, true);
			break;
		}
		/* those that need nothing more go; the rest need an extent */
		rmem_emap_sweep(m, 0, BLK_STS_OK, false);
		if (state != RMEM_DEV_STATE_LIVE)
			break;
		/*
		 * Nothing to take (or only what a reconnecting server may
		 * take later): give one back, which may make room too.
		 */
		if (take_later || !rmem_emap_next(m, &e)) {
			if (!rmem_emap_next_freeing(m, &e))
				break;
			ret = rmem_emap_give_back(m, e);
			if (ret == -EBUSY) {
				/* 1, 2, 4 ... jiffies, a tenth of a second at most */
				queue_delayed_work(rmem_extent_wq, &m->work,
						   min_t(unsigned long,
							 1UL << min(m->busy_tries++, 16U),
							 HZ / 10));
				break;
			}
			m->busy_tries = 0;
			if (ret) {
				rmem_emap_conn_error(m,
						     dev->sessions[m->owner[e]],
						     "giving back", e, ret);
				break;
			}
			take_later = false;
			continue;
		}
		sess = dev->sess;
		ret = rmem_emap_take(m, e, &sess);
		/* a server that reconnects may take it: wait for the kick */
		if (ret == -EAGAIN) {
			take_later = true;
			continue;
		}
		if (!ret) {
			m->proto_errors = 0;
			WRITE_ONCE(m->nospc, false);
		} else if (ret == -ENOSPC || ret == -EDQUOT) {
			rmem_emap_nospc(m, e, ret);
		} else if (ret == -EREMOTEIO) {
			pr_warn_ratelimited("%s: the server refused memory for extent %u\n",
					    dev->name, e);
			rmem_emap_sweep(m, e, BLK_STS_IOERR, false);
		} else if (ret == -EPROTO && ++m->proto_errors >= 3) {
			pr_err_ratelimited("%s: the server's answers for extent %u make no sense; writes to it fail\n",
					   dev->name, e);
			m->proto_errors = 0;
			rmem_emap_sweep(m, e, BLK_STS_IOERR, false);
		} else {
			rmem_emap_conn_error(m, sess, "asking the server for", e,
					     ret);
			break;
		}
	}
	memalloc_noio_restore(noio);
}

/**
 * rmem_emap_kick() - have the extent worker look at what waits
 * @dev: the device (thin or not)
 *
 * Context: any; after the device went live again, dead, or deleting.
 */
void rmem_emap_kick(struct rmem_dev *dev)
{
	if (dev->emap)
		mod_delayed_work(rmem_extent_wq, &dev->emap->work, 0);
}

/**
 * rmem_emap_resume() - a session went live again, or dead: what waits
 *	for it goes now (requeued, or failed), and the worker looks again
 * @dev: the device (thin or not)
 *
 * The requeue does not wait for the worker, which may be waiting for
 * another server's answer.
 *
 * Context: process context.
 */
void rmem_emap_resume(struct rmem_dev *dev)
{
	if (!dev->emap)
		return;
	rmem_emap_sweep(dev->emap, 0, BLK_STS_OK, false);
	rmem_emap_kick(dev);
}

/**
 * rmem_emap_stop() - no more extent work: fail what waits
 * @dev: a device being deleted (or dead): the worker fails what waits
 *	and ends
 *
 * Context: before the disk goes (it waits for the requests).
 */
void rmem_emap_stop(struct rmem_dev *dev)
{
	if (!dev->emap)
		return;
	cancel_delayed_work_sync(&dev->emap->work);
	rmem_emap_sweep(dev->emap, 0, BLK_STS_IOERR, true);
}
