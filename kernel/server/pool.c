// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: the pool.
 *
 * A server's RAM is allocated at creation in chunks of chunk_size bytes
 * (each chunk a few high-order blocks, DMA mapped once).  Sessions take
 * chunks: an anonymous session fresh ones, a named volume the same ones
 * at every attach.  Released chunks are dirty until the background zero
 * work (or the next session's setup) zeroes them: no client ever sees
 * another's data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "compat.h"
#include "proto.h"
#include "rmem.h"
#include "server.h"

/* Generation numbers: random start, then strictly increasing. */
static atomic64_t rmem_generation;

/* ---- chunks ------------------------------------------------------------ */

/**
 * rmem_chunk_free() - free a chunk's blocks and their DMA mapping
 * @srv: the server
 * @c: the chunk, allocated in part or whole, or never
 */
void rmem_chunk_free(struct rmem_server *srv, struct rmem_chunk *c)
{
	struct scatterlist *sg;
	int i;

	if (!c->sgt.sgl)
		return;
	if (c->mapped)
		ib_dma_unmap_sg(srv->ibdev, c->sgt.sgl, c->sgt.orig_nents,
				DMA_BIDIRECTIONAL);
	for_each_sgtable_sg(&c->sgt, sg, i)
		if (sg_page(sg))
			__free_pages(sg_page(sg), srv->block_order);
	sg_free_table(&c->sgt);
}

/**
 * rmem_chunk_alloc() - allocate a chunk, zeroed, and DMA map it
 * @srv: the server, geometry known
 * @c: the chunk
 *
 * Return: 0, or a negative errno with what was allocated left for
 * rmem_chunk_free().
 */
int rmem_chunk_alloc(struct rmem_server *srv, struct rmem_chunk *c)
{
	unsigned int nblocks = srv->chunk_size >> (PAGE_SHIFT + srv->block_order);
	struct scatterlist *sg;
	struct page *page;
	int i, ret;

	ret = sg_alloc_table(&c->sgt, nblocks, GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sgtable_sg(&c->sgt, sg, i) {
		if (fatal_signal_pending(current))
			return -EINTR;
		page = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN |
				   __GFP_RETRY_MAYFAIL, srv->block_order);
		if (!page)
			return -ENOMEM;
		sg_set_page(sg, page, PAGE_SIZE << srv->block_order, 0);
	}
	ret = ib_dma_map_sg(srv->ibdev, c->sgt.sgl, c->sgt.orig_nents,
			    DMA_BIDIRECTIONAL);
	if (ret <= 0)
		return -EIO;
	c->sgt.nents = ret;
	c->mapped = true;
	return 0;
}

/* No ib_dma_sync_sg_*() in this kernel: sync real DMA mappings directly. */
static void rmem_chunk_sync(struct rmem_server *srv, struct rmem_chunk *c,
			    bool for_cpu)
{
	if (ib_uses_virt_dma(srv->ibdev))
		return;
	if (for_cpu)
		dma_sync_sg_for_cpu(srv->ibdev->dma_device, c->sgt.sgl,
				    c->sgt.orig_nents, DMA_BIDIRECTIONAL);
	else
		dma_sync_sg_for_device(srv->ibdev->dma_device, c->sgt.sgl,
				       c->sgt.orig_nents, DMA_BIDIRECTIONAL);
}

/* Zero a chunk a client wrote to, before anyone else can see it. */
static void rmem_chunk_zero(struct rmem_server *srv, struct rmem_chunk *c)
{
	unsigned int n = 1U << srv->block_order;
	struct scatterlist *sg;
	unsigned int j;
	int i;

	if (!c->dirty)
		return;
	rmem_chunk_sync(srv, c, true);
	for_each_sgtable_sg(&c->sgt, sg, i) {
		for (j = 0; j < n; j++)
			clear_highpage(sg_page(sg) + j);
		cond_resched();
	}
	rmem_chunk_sync(srv, c, false);
	c->dirty = false;
}

/*
 * Take @n chunks into @out: zeroed ones first, then dirty ones (the
 * session's setup zeroes those).  -EAGAIN: only with the chunk being
 * zeroed are there enough; wait for it.  Called with srv->lock.
 */
static int rmem_chunks_take(struct rmem_server *srv, struct rmem_chunk **out,
			    unsigned int n)
{
	struct list_head *from;
	unsigned int i;

	if (n > srv->nr_free)
		return -ENOSPC;
	if (n > srv->nr_free - !!srv->zeroing)
		return -EAGAIN;
	for (i = 0; i < n; i++) {
		from = &srv->free_chunks;
		if (list_empty(from)) {
			from = &srv->dirty_chunks;
			srv->nr_dirty--;
		}
		out[i] = list_first_entry(from, struct rmem_chunk, node);
		list_del_init(&out[i]->node);
	}
	srv->nr_free -= n;
	rmem_server_put_status(srv);
	return 0;
}

/**
 * rmem_server_zero_work() - zero released chunks in the background
 * @work: the server's zero_work
 *
 * One chunk at a time, outside the lock, until none is dirty or the
 * server goes away: attach then finds zeroed memory and its time does not
 * depend on what earlier clients used.
 */
void rmem_server_zero_work(struct work_struct *work)
{
	struct rmem_server *srv = container_of(to_delayed_work(work),
					       struct rmem_server, zero_work);
	unsigned long resume, now;
	struct rmem_chunk *c;

	for (;;) {
		mutex_lock(&srv->lock);
		if (srv->dying || srv->zero_waiters ||
		    list_empty(&srv->dirty_chunks)) {
			mutex_unlock(&srv->lock);
			return;
		}
		/*
		 * A client connected: come back once it is done, unless the
		 * oldest dirty chunk has waited RMEM_ZERO_MAX_DELAY_MS.
		 */
		now = jiffies;
		resume = READ_ONCE(srv->zero_resume);
		if (time_before(now, resume) &&
		    resume - now <= msecs_to_jiffies(RMEM_ZERO_PAUSE_MS) &&
		    time_before(now, srv->zero_due)) {
			queue_delayed_work(system_unbound_wq, &srv->zero_work,
					   resume - now);
			mutex_unlock(&srv->lock);
			return;
		}
		c = list_first_entry(&srv->dirty_chunks, struct rmem_chunk, node);
		list_del_init(&c->node);
		srv->zeroing = c;
		mutex_unlock(&srv->lock);

		rmem_chunk_zero(srv, c);

		mutex_lock(&srv->lock);
		WRITE_ONCE(srv->zeroing, NULL);
		srv->nr_dirty--;
		list_add_tail(&c->node, &srv->free_chunks);
		mutex_unlock(&srv->lock);
		wake_up_all(&srv->zero_wq);
		cond_resched();
	}
}

/*
 * Give chunks back; they are zeroed (in the background, or by the next
 * session's setup) before anyone sees them again.  Called with srv->lock.
 */
static void rmem_chunks_put(struct rmem_server *srv, struct rmem_chunk **c,
			    unsigned int n)
{
	unsigned int i;

	/* pauses for connects end by then (rmem_server_zero_work()) */
	if (n && list_empty(&srv->dirty_chunks))
		srv->zero_due = jiffies +
				msecs_to_jiffies(RMEM_ZERO_MAX_DELAY_MS);
	for (i = 0; i < n; i++) {
		c[i]->dirty = true;
		list_add_tail(&c[i]->node, &srv->dirty_chunks);
	}
	srv->nr_free += n;
	srv->nr_dirty += n;
	rmem_server_put_status(srv);
	if (n && !srv->dying)
		queue_delayed_work(system_unbound_wq, &srv->zero_work, 0);
}

/**
 * rmem_server_zero_pause() - a client is connecting: zeroing waits
 * @srv: the server
 *
 * Attaches and reconnects come first: the background zeroing finishes the
 * chunk it is on and pauses until RMEM_ZERO_PAUSE_MS after the last
 * accepted connect request, for at most RMEM_ZERO_MAX_DELAY_MS after the
 * oldest dirty chunk was released (clients that keep connecting do not
 * keep released data in memory).  A session that needs dirty chunks
 * meanwhile zeroes them in its own setup.
 */
void rmem_server_zero_pause(struct rmem_server *srv)
{
	WRITE_ONCE(srv->zero_resume,
		   jiffies + msecs_to_jiffies(RMEM_ZERO_PAUSE_MS));
}

/* ---- volumes ----------------------------------------------------------- */

/**
 * rmem_volume_find() - a server's volume by name
 * @srv: the server
 * @name: the volume name
 *
 * Context: srv->lock held.
 * Return: the volume, or NULL.
 */
struct rmem_volume *rmem_volume_find(struct rmem_server *srv, const char *name)
{
	struct rmem_volume *vol;

	list_for_each_entry(vol, &srv->volumes, node)
		if (!strcmp(vol->name, name))
			return vol;
	return NULL;
}

/**
 * rmem_volume_free() - delete a volume; its chunks go back to the pool
 * @srv: the server
 * @vol: the volume, not attached
 *
 * Context: srv->lock held.
 */
void rmem_volume_free(struct rmem_server *srv, struct rmem_volume *vol)
{
	rmem_chunks_put(srv, vol->chunks, vol->nr_chunks);
	list_del(&vol->node);
	kvfree(vol->chunks);
	kfree(vol);
}

/* ---- sessions: allocation of memory at connect ------------------------ */

static enum rmem_wire_status
rmem_server_try_session_memory(struct rmem_server *srv,
			       struct rmem_session *sess);

/**
 * rmem_server_session_memory() - give a new session its chunks
 * @srv: the server
 * @sess: the session; size and volume name set
 *
 * Anonymous sessions take fresh chunks; a named volume is created on first
 * use and handed back, same chunks, same contents, afterwards, to the host
 * identity that created it (proven if it was).  The host's limits are
 * checked in the same step (rmem_host_admit()).  Called with
 * srv->lock held, which it may drop and take again while the chunk it
 * needs is being zeroed.
 *
 * Return: RMEM_WIRE_OK or the status to reject with.
 */
enum rmem_wire_status rmem_server_session_memory(struct rmem_server *srv,
						 struct rmem_session *sess)
{
	enum rmem_wire_status status;

	/* the zero work stops after its chunk while anyone waits for it */
	while ((status = rmem_server_try_session_memory(srv, sess)) ==
	       RMEM_WIRE_EAGAIN) {
		srv->zero_waiters++;
		mutex_unlock(&srv->lock);
		wait_event(srv->zero_wq, !READ_ONCE(srv->zeroing));
		mutex_lock(&srv->lock);
		srv->zero_waiters--;
		if (srv->dying)
			return RMEM_WIRE_ENOMEM;
	}
	if (!srv->zero_waiters && !srv->dying &&
	    !list_empty(&srv->dirty_chunks))
		queue_delayed_work(system_unbound_wq, &srv->zero_work, 0);
	return status;
}

/* rmem_server_session_memory(), or EAGAIN to wait for the zero work */
static enum rmem_wire_status
rmem_server_try_session_memory(struct rmem_server *srv,
			       struct rmem_session *sess)
{
	unsigned int n = DIV_ROUND_UP_ULL(sess->size, srv->chunk_size);
	enum rmem_wire_status status;
	struct rmem_volume *vol;
	int ret;

	if (sess->thin) {
		/*
		 * Nothing yet: the client asks for each slot (extent).  What
		 * describes it (the table, pointers) is bounded all the same:
		 * all thin sessions together describe at most
		 * RMEM_THIN_OVERCOMMIT times the pool.
		 */
		if (srv->thin_chunks + n >
		    (u64)RMEM_THIN_OVERCOMMIT * srv->nr_chunks)
			return RMEM_WIRE_EINVAL;
		status = rmem_host_admit(srv, sess, 0);
		if (status != RMEM_WIRE_OK)
			return status;
		sess->chunks = kvcalloc(n, sizeof(*sess->chunks),
					GFP_KERNEL | __GFP_NOWARN);
		if (!sess->chunks)
			return RMEM_WIRE_ENOMEM;
		sess->nr_chunks = n;
		sess->nr_held = 0;
		srv->thin_chunks += n;
		sess->generation = atomic64_inc_return(&rmem_generation);
		return RMEM_WIRE_OK;
	}
	if (!sess->volume_name[0]) {
		status = rmem_host_admit(srv, sess, sess->size);
		if (status != RMEM_WIRE_OK)
			return status;
		sess->chunks = kvcalloc(n, sizeof(*sess->chunks),
					GFP_KERNEL | __GFP_NOWARN);
		if (!sess->chunks)
			return RMEM_WIRE_ENOMEM;
		ret = rmem_chunks_take(srv, sess->chunks, n);
		if (ret) {
			kvfree(sess->chunks);
			sess->chunks = NULL;
			return ret == -EAGAIN ? RMEM_WIRE_EAGAIN :
						RMEM_WIRE_ENOSPC;
		}
		sess->nr_chunks = n;
		sess->nr_held = n;
		sess->generation = atomic64_inc_return(&rmem_generation);
		return RMEM_WIRE_OK;
	}

	vol = rmem_volume_find(srv, sess->volume_name);
	if (vol) {
		/*
		 * Another host's volume, busy or not, is not this one's
		 * business; nor is one made under this identity without a
		 * key (anybody could claim it then) for a client with the key.
		 */
		if (strcmp(vol->owner_id, sess->host_id) ||
		    vol->owner_proven != sess->proven)
			return RMEM_WIRE_EOWNER;
		if (vol->owner)
			return RMEM_WIRE_EBUSY;
		if (vol->size != sess->size)
			return RMEM_WIRE_ESIZE;
		status = rmem_host_admit(srv, sess, 0);
		if (status != RMEM_WIRE_OK)
			return status;
	} else {
		status = rmem_host_admit(srv, sess, sess->size);
		if (status != RMEM_WIRE_OK)
			return status;
		vol = kzalloc(sizeof(*vol), GFP_KERNEL);
		if (!vol)
			return RMEM_WIRE_ENOMEM;
		vol->chunks = kvcalloc(n, sizeof(*vol->chunks),
				       GFP_KERNEL | __GFP_NOWARN);
		if (!vol->chunks) {
			kfree(vol);
			return RMEM_WIRE_ENOMEM;
		}
		ret = rmem_chunks_take(srv, vol->chunks, n);
		if (ret) {
			kvfree(vol->chunks);
			kfree(vol);
			return ret == -EAGAIN ? RMEM_WIRE_EAGAIN :
						RMEM_WIRE_ENOSPC;
		}
		strscpy(vol->name, sess->volume_name, sizeof(vol->name));
		strscpy(vol->owner_id, sess->host_id, sizeof(vol->owner_id));
		vol->owner_proven = sess->proven;
		sess->volume_created = true;
		vol->size = sess->size;
		vol->nr_chunks = n;
		vol->generation = atomic64_inc_return(&rmem_generation);
		list_add_tail(&vol->node, &srv->volumes);
	}
	vol->owner = sess;
	sess->volume = vol;
	sess->chunks = vol->chunks;
	sess->nr_chunks = vol->nr_chunks;
	sess->nr_held = vol->nr_chunks;
	sess->generation = vol->generation;
	return RMEM_WIRE_OK;
}

/**
 * rmem_server_session_release_memory() - a session ends: give memory back
 * @srv: the server
 * @sess: the session
 *
 * A volume keeps its chunks and becomes free for the next attach, unless
 * this session created it and never got as far as READY (a failed attach
 * creates nothing); an anonymous session's chunks return to the pool, to be
 * zeroed before reuse.  Called with srv->lock held.
 */
void rmem_server_session_release_memory(struct rmem_server *srv,
					struct rmem_session *sess)
{
	if (sess->volume) {
		if (sess->volume_created && !sess->was_live)
			rmem_volume_free(srv, sess->volume);
		else
			sess->volume->owner = NULL;
		sess->volume = NULL;
	} else if (sess->thin && sess->chunks) {
		rmem_server_slot_release(srv, sess, 0, sess->nr_chunks);
		srv->thin_chunks -= sess->nr_chunks;
		kvfree(sess->chunks);
	} else if (sess->chunks) {
		rmem_chunks_put(srv, sess->chunks, sess->nr_chunks);
		kvfree(sess->chunks);
	}
	sess->chunks = NULL;
	sess->nr_chunks = 0;
	sess->nr_held = 0;
}

/**
 * rmem_server_slot_memory() - take the chunks of one slot of a thin session
 * @srv: the server
 * @sess: the session, thin and live
 * @first: the slot's first chunk
 * @n: its chunks
 *
 * Counts against the session's host; waits for the zero work's chunk
 * when only with it there is room.
 *
 * Context: srv->lock held (dropped while waiting).
 * Return: RMEM_WIRE_OK, ENOSPC, EQUOTA, EAUTH or ENOMEM.
 */
enum rmem_wire_status rmem_server_slot_memory(struct rmem_server *srv,
					      struct rmem_session *sess,
					      unsigned int first, unsigned int n)
{
	enum rmem_wire_status status;
	int ret;

	for (;;) {
		if (srv->dying || sess->dead)
			return RMEM_WIRE_ENOMEM;
		status = rmem_host_admit(srv, sess, (u64)n << srv->chunk_shift);
		if (status != RMEM_WIRE_OK)
			return status;
		ret = rmem_chunks_take(srv, &sess->chunks[first], n);
		if (ret != -EAGAIN)
			break;
		srv->zero_waiters++;
		mutex_unlock(&srv->lock);
		wait_event(srv->zero_wq, !READ_ONCE(srv->zeroing));
		mutex_lock(&srv->lock);
		srv->zero_waiters--;
	}
	if (!srv->zero_waiters && !srv->dying &&
	    !list_empty(&srv->dirty_chunks))
		queue_delayed_work(system_unbound_wq, &srv->zero_work, 0);
	if (ret)
		return RMEM_WIRE_ENOSPC;
	sess->nr_held += n;
	return RMEM_WIRE_OK;
}

/**
 * rmem_server_slot_release() - give one slot's chunks back
 * @srv: the server
 * @sess: the thin session; no memory region of the slot left
 * @first: the slot's first chunk
 * @n: its chunks
 *
 * Context: srv->lock held.
 */
void rmem_server_slot_release(struct rmem_server *srv,
			      struct rmem_session *sess, unsigned int first,
			      unsigned int n)
{
	unsigned int i = first, run;

	/* runs of taken chunks at once: one status refresh each */
	while (i < first + n) {
		for (run = 0; i + run < first + n && sess->chunks[i + run];
		     run++)
			;
		if (!run) {
			i++;
			continue;
		}
		rmem_chunks_put(srv, &sess->chunks[i], run);
		memset(&sess->chunks[i], 0, run * sizeof(*sess->chunks));
		sess->nr_held -= run;
		i += run;
	}
}

/**
 * rmem_server_zero_chunks() - zero what a session may not see
 * @srv: the server
 * @sess: the session
 * @first: the first of its chunks to zero
 * @n: how many
 *
 * Chunks that came back from another anonymous session, or from a freed
 * volume, are zeroed before they are registered for this session.
 */
void rmem_server_zero_chunks(struct rmem_server *srv, struct rmem_session *sess,
			     unsigned int first, unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++)
		if (sess->chunks[i])
			rmem_chunk_zero(srv, sess->chunks[i]);
}

/**
 * rmem_pool_init() - set up what all pools share
 */
void rmem_pool_init(void)
{
	u64 start;

	get_random_bytes(&start, sizeof(start));
	atomic64_set(&rmem_generation, start >> 16);
}
