// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: the extent worker of a thin device (the map is
 * extent.c's; Documentation/multi-server.rst).
 *
 * A request that needs memory for an unwritten extent waits on the map's
 * list, and the worker (rmem_extent_wq: WQ_MEM_RECLAIM,
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
#include <linux/sched/mm.h>
#include "client.h"
#include "extent.h"

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

/**
 * rmem_emap_requeue() - waiting requests that need nothing more of the
 *	worker go again
 * @m: the map
 */
void rmem_emap_requeue(struct rmem_emap *m)
{
	rmem_emap_sweep(m, 0, BLK_STS_OK, false);
}

struct rmem_emap_busy {
	u64 pos;
	u64 end;
	bool writes;
	bool busy;
};

/*
 * blk_mq_tagset_busy_iter(): whether a started request is on bytes [pos,
 * end) of the device.
 */
static bool rmem_emap_busy_one(struct request *rq, void *data)
{
	struct rmem_emap_busy *b = data;
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);

	/* on the list: not issued, and it waits for the worker */
	if (READ_ONCE(cmd->thin_wait))
		return true;
	switch (req_op(rq)) {
	case REQ_OP_READ:
		if (b->writes)
			return true;
		break;
	case REQ_OP_WRITE:
	case REQ_OP_WRITE_ZEROES:
		break;
	default:
		return true;
	}
	b->busy = rmem_rq_overlaps(rq, b->pos, b->end);
	return !b->busy;
}

static bool rmem_emap_busy_in(struct rmem_emap *m, struct rmem_emap_busy *b)
{
	/*
	 * The giving state (the syncing one, a locked window) is seen by
	 * every ->queue_rq() after this, or its request is seen started
	 * here (it started before reading the map): pairs with the smp_mb()
	 * in rmem_emap_queue_rq().
	 */
	smp_mb();
	blk_mq_tagset_busy_iter(&m->dev->tag_set, rmem_emap_busy_one, b);
	/* what those requests did before they ended is seen after this */
	smp_mb();
	return b->busy;
}

/*
 * Whether a request (with @writes, a write) issued before extent @e
 * became giving (or syncing) is still in flight on it: its memory may
 * not go yet (it may not be copied yet).
 */
bool rmem_emap_busy(struct rmem_emap *m, unsigned int e, bool writes)
{
	struct rmem_emap_busy b = {
		.pos = (u64)e << m->shift,
		.end = (u64)(e + 1) << m->shift,
		.writes = writes,
	};

	return rmem_emap_busy_in(m, &b);
}

/*
 * Whether a write issued before bytes [@pos, @pos + @len) of the device
 * were locked (a resync's window) is still in flight on them.
 */
bool rmem_emap_busy_range(struct rmem_emap *m, u64 pos, u64 len)
{
	struct rmem_emap_busy b = { .pos = pos, .end = pos + len,
				    .writes = true };

	return rmem_emap_busy_in(m, &b);
}

/*
 * Where a new extent goes: power of two choices among the live sessions
 * not in @tried nor draining whose server had room for an extent at its
 * last report (or has not reported): two picked at random, the one with
 * more free memory (with probes, one not heard from yet counts as none: a
 * server just added takes no burst of extents before its first report).  With none
 * such, among the live ones not tried whatever they
 * reported (a report may be stale: the server's answer decides).
 * Return: the session, or NULL if there is none.
 */
struct rmem_sess *rmem_emap_place(struct rmem_emap *m, unsigned long tried)
{
	struct rmem_dev *dev = m->dev;
	struct rmem_sess *c[RMEM_MAX_PEERS], *a, *b;
	unsigned int i, n = 0, x, y;
	u64 fa, fb;
	bool any_room;

	for (any_room = true; ; any_room = false) {
		for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
			struct rmem_sess *sess = dev->sessions[i];

			if (!(tried & BIT(i)) && rmem_sess_ext_ready(sess) &&
			    !READ_ONCE(sess->draining) &&
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
	fa = READ_ONCE(a->server_free);
	fb = READ_ONCE(b->server_free);
	/* (without probes a report comes only with an allocation) */
	if (fa == U64_MAX && dev->cfg.keepalive_ms)
		fa = 0;
	if (fb == U64_MAX && dev->cfg.keepalive_ms)
		fb = 0;
	return fb > fa ? b : a;
}

/*
 * Whether a session of the device not in @tried may take an extent later:
 * one that is not dead nor being deleted nor draining, but is not live now (or its
 * queue pair 0 is fenced until its teardown).
 */
static bool rmem_emap_later(struct rmem_emap *m, unsigned long tried)
{
	struct rmem_dev *dev = m->dev;
	unsigned int i;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		enum rmem_dev_state st = READ_ONCE(dev->sessions[i]->state);

		if ((tried & BIT(i)) || READ_ONCE(dev->sessions[i]->draining))
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
 * Ask session @sess for extent @e's slot and read its chunk table entries.
 * Return: 0, or the error of the answer or of the connection.
 */
int rmem_emap_alloc_on(struct rmem_emap *m, unsigned int e,
		       struct rmem_sess *sess)
{
	unsigned int per = 1U << (m->shift - sess->chunk_shift);
	int ret;

	/* a wait given up: nothing more on it until drained */
	if (READ_ONCE(sess->ext_fenced))
		return -ECONNRESET;
	ret = rmem_sess_ext_op(sess, RMEM_WIRE_EXTENT_ALLOC, e);
	/* its slot there is the extent's again: no FREE of it pending */
	if (!ret)
		__clear_bit(e, sess->pend_free);
	if (!ret)
		ret = rmem_sess_ext_read(sess, e * per, per);
	return ret;
}

/*
 * Give extent @e memory on cfg.replicas servers (the only one, or placed
 * one after the other, never two on one server), and publish it.  A
 * server without room is skipped for the next; a server whose connection
 * fails while asked is failed (it reconnects) and skipped too, once
 * another replica has memory.  With fewer servers than replicas left, the
 * extent is published with the replicas it got (degraded).  With
 * replicas, a server that does not answer is failed and skipped, and the
 * slot it may have taken FREEd once it is ready again (a pending FREE);
 * without, a later take asks it first again.  With none:
 * -ENOSPC (or -EDQUOT if a host quota was the last reason), or -EAGAIN if
 * a server that is reconnecting may take it later, or the connection's
 * error (*@sessp is then that session).
 */
static int rmem_emap_take(struct rmem_emap *m, unsigned int e,
			  struct rmem_sess **sessp)
{
	struct rmem_dev *dev = m->dev;
	unsigned long tried = 0;
	unsigned int got = 0;
	u32 rep = 0;
	int ret = -ENOSPC;

	while (got < dev->cfg.replicas) {
		struct rmem_sess *sess = rmem_dev_nr_sess(dev) > 1 ?
					 rmem_emap_place(m, tried) :
					 tried ? NULL : dev->sess;

		/* a server that may hold it already is asked again first */
		if (m->pend_e == e && !tried) {
			sess = dev->sessions[m->pend_sess];
			switch (READ_ONCE(sess->state)) {
			case RMEM_DEV_STATE_LIVE:
				/* draining: its memory goes with LEAVE */
				if (!READ_ONCE(sess->draining))
					break;
				m->pend_e = m->nr;
				continue;
			case RMEM_DEV_STATE_DEAD:
				m->pend_e = m->nr;
				continue;
			default:
				return -EAGAIN;
			}
		}
		if (!sess)
			break;
		*sessp = sess;
		ret = rmem_emap_alloc_on(m, e, sess);
		tried |= BIT(sess->index);
		if (!ret) {
			if (m->pend_e == e && m->pend_sess == sess->index)
				m->pend_e = m->nr;
			rep = rmem_rep_add(rep, sess->index);
			got++;
			continue;
		}
		if (ret == -ENOSPC || ret == -EDQUOT) {
			if (m->pend_e == e && m->pend_sess == sess->index)
				m->pend_e = m->nr;
			continue;
		}
		if (ret == -EREMOTEIO || ret == -EPROTO) {
			if (!got)
				return ret;
			continue;
		}
		/*
		 * No answer: it may have taken memory for it.  With
		 * replicas, that slot is given back once the server is
		 * ready again (a pending FREE, dropped if the extent is
		 * placed there first), and the next server is asked now,
		 * not after this one's loss timeout.  Else, for a first
		 * replica, this server is asked again first.
		 */
		if (dev->cfg.replicas > 1) {
			__set_bit(e, sess->pend_free);
		} else if (!got && rmem_dev_nr_sess(dev) > 1) {
			m->pend_e = e;
			m->pend_sess = sess->index;
			return ret;
		} else if (!got) {
			return ret;
		}
		pr_warn_ratelimited("%s: asking the server for extent %u failed (server %pISpc): %d\n",
				    dev->name, e, &sess->peer, ret);
		if (READ_ONCE(sess->state) == RMEM_DEV_STATE_LIVE)
			rmem_sess_fail(sess);
	}
	if (got) {
		if (m->pend_e == e)
			m->pend_e = m->nr;
		rmem_emap_publish(m, e, rep);
		return 0;
	}
	if (m->pend_e == e)
		m->pend_e = m->nr;
	return rmem_emap_later(m, tried) ? -EAGAIN : ret;
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
static int rmem_emap_give_back(struct rmem_emap *m, unsigned int e,
			       struct rmem_sess **sessp)
{
	struct rmem_dev *dev = m->dev;
	u32 r = READ_ONCE(m->rep[e]);
	unsigned int k, sent = 0, alive = 0;
	u32 st;
	int ret = 0;

	st = cmpxchg(&m->state[e], RMEM_EXTENT_FREEING, RMEM_EXTENT_GIVING);
	/* a write that came first keeps it */
	if (st == RMEM_EXTENT_PRESENT)
		return 0;
	for (k = 0; k < rmem_rep_n(r); k++)
		alive += READ_ONCE(dev->sessions[rmem_rep_sess(r, k)]->state) !=
			 RMEM_DEV_STATE_DEAD;
	/* every server that held it is gone: nothing to give back to */
	if (!alive) {
		if (rmem_emap_busy(m, e, false))
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
		if (rmem_emap_busy(m, e, false))
			return -EBUSY;
	}
	for (k = 0; k < rmem_rep_n(r); k++) {
		struct rmem_sess *sess = dev->sessions[rmem_rep_sess(r, k)];

		/* a server of several that is gone: nothing to give back to */
		if (READ_ONCE(sess->state) == RMEM_DEV_STATE_DEAD)
			continue;
		*sessp = sess;
		if (READ_ONCE(sess->ext_fenced)) {
			ret = -ECONNRESET;
			break;
		}
		/* from here its requests wait as for giving (worker only) */
		WRITE_ONCE(m->state[e], RMEM_EXTENT_SENT);
		ret = rmem_sess_ext_op(sess, RMEM_WIRE_EXTENT_FREE, e);
		if (ret == -ENOSPC || ret == -EDQUOT || ret == -EREMOTEIO) {
			/* refused, not done: its entries still describe it */
			if (st != RMEM_EXTENT_SENT && !sent) {
				pr_warn_ratelimited("%s: the server refused to take extent %u back (%d); it keeps its memory\n",
						    dev->name, e, ret);
				m->free_errors = 0;
				/* pairs with the acquire in rmem_emap_check() */
				smp_store_release(&m->state[e],
						  RMEM_EXTENT_PRESENT);
				return 0;
			}
			pr_warn_ratelimited("%s: the server %pISpc refused to take extent %u back (%d) after an earlier try or another replica's; taken as given back\n",
					    dev->name, &sess->peer, e, ret);
			ret = 0;
		}
		if (ret)
			break;
		sent++;
	}
	if (ret && ret != -ECONNRESET && ++m->free_errors >= 3) {
		pr_warn_ratelimited("%s: giving extent %u back got no answer three times (%d); taken as given back\n",
				    dev->name, e, ret);
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

/* Whether every server of extent @e is live, or dead. */
static bool rmem_emap_servers_settled(struct rmem_emap *m, unsigned int e)
{
	u32 r = READ_ONCE(m->rep[e]);
	unsigned int k;

	for (k = 0; k < rmem_rep_n(r); k++) {
		enum rmem_dev_state st =
			READ_ONCE(m->dev->sessions[rmem_rep_sess(r, k)]->state);

		if (st != RMEM_DEV_STATE_LIVE && st != RMEM_DEV_STATE_DEAD)
			return false;
	}
	return true;
}

/*
 * The next extent to give back, from where the last search ended, whose
 * server is live (or dead: its memory is gone anyway).
 */
static bool rmem_emap_next_freeing(struct rmem_emap *m, unsigned int *e)
{
	unsigned int i, j;

	for (i = 0; i < m->nr; i++) {
		j = (m->free_cursor + i) % m->nr;
		switch (READ_ONCE(m->state[j])) {
		case RMEM_EXTENT_FREEING:
		case RMEM_EXTENT_GIVING:
		case RMEM_EXTENT_SENT:
			if (!rmem_emap_servers_settled(m, j))
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

	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
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

/*
 * Requests are in flight on the extent being given back or resynced: look
 * again 1, 2, 4 ... jiffies later, a tenth of a second at most.
 */
static void rmem_emap_busy_retry(struct rmem_emap *m)
{
	queue_delayed_work(rmem_extent_wq, &m->work,
			   min_t(unsigned long, 1UL << min(m->busy_tries++, 16U),
				 HZ / 10));
}

/**
 * rmem_emap_work() - take memory for the extents waiting requests touch,
 *	and give back what discards freed
 * @work: the map's work
 *
 * One extent at a time, while the device is live: first what waiting
 * requests need, then, with nothing to take, one extent to give back
 * (again shortly while requests are in flight on it: this never sleeps
 * for them; a resync's copy waits a few ms for writes in flight).
 * Requests that need nothing more go again; a server without room fails
 * those that wait for the extent it refused; a dead or deleted
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

	rmem_emap_note_lost(dev);
	for (;;) {
		enum rmem_dev_state state = rmem_emap_can(dev);
		struct rmem_sess *sess;

		if (state == RMEM_DEV_STATE_DEAD) {
			rmem_emap_resync_stop(m);
			rmem_emap_sweep(m, 0, BLK_STS_IOERR, true);
			break;
		}
		/* those that need nothing more go; the rest need an extent */
		rmem_emap_sweep(m, 0, BLK_STS_OK, false);
		if (state != RMEM_DEV_STATE_LIVE)
			break;
		/*
		 * Nothing to take (or only what a reconnecting server may
		 * take later): give one back, which may make room too; with
		 * none to give back, make a degraded extent whole.  An extent
		 * being resynced goes first: its requests wait.
		 */
		if (take_later || !rmem_emap_next(m, &e)) {
			if (m->sync_e != m->nr ||
			    !rmem_emap_next_freeing(m, &e)) {
				ret = rmem_emap_resync(m);
				if (ret == -EBUSY) {
					rmem_emap_busy_retry(m);
					break;
				}
				m->busy_tries = 0;
				/*
				 * A bounded part at a time: other devices'
				 * extent work shares the reclaim workqueue.
				 */
				if (!ret || ret == -EINPROGRESS) {
					queue_delayed_work(rmem_extent_wq,
							   &m->work, 0);
					break;
				}
				/* it holds: again when the hold is over */
				if (ret == -EAGAIN)
					queue_delayed_work(rmem_extent_wq,
							   &m->work,
							   rmem_emap_resync_hold(m));
				/* what waited for an extent it let go goes */
				rmem_emap_sweep(m, 0, BLK_STS_OK, false);
				break;
			}
			sess = dev->sess;
			ret = rmem_emap_give_back(m, e, &sess);
			if (ret == -EBUSY) {
				rmem_emap_busy_retry(m);
				break;
			}
			m->busy_tries = 0;
			if (ret) {
				rmem_emap_conn_error(m, sess, "giving back", e,
						     ret);
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
