/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem client tracepoints, under /sys/kernel/tracing/events/rmem/: a
 * request issued and completed (every issue has its done: a failure in
 * ->queue_rq() too; a done with an error may be followed by another
 * issue of the same request, a reissue), state changes, reconnect
 * attempts and connection probes that failed or went unanswered
 * (wc_status -1: late).  Off, each costs a static branch.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rmem

#if !defined(_RMEM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RMEM_TRACE_H

#include <linux/blk-mq.h>
#include <linux/rmem.h>
#include <linux/tracepoint.h>

#ifndef _RMEM_TRACE_OP_NR
#define _RMEM_TRACE_OP_NR
/* the operation as a plain number: 0 read, 1 write, 2 write-zeroes */
static inline unsigned int rmem_trace_op_nr(struct request *rq)
{
	if (req_op(rq) == REQ_OP_READ)
		return 0;
	return req_op(rq) == REQ_OP_WRITE ? 1 : 2;
}
#endif
#define rmem_trace_op(op)						\
	__print_symbolic(op, { 0, "read" }, { 1, "write" },		\
			 { 2, "write-zeroes" })

TRACE_EVENT(rmem_rq_issue,
	    TP_PROTO(const char *name, unsigned int queue,
		     struct request *rq),
	    TP_ARGS(name, queue, rq),
	    TP_STRUCT__entry(__array(char, name, RMEM_NAME_MAX)
			     __field(unsigned int, queue)
			     __field(unsigned int, op)
			     __field(u64, offset)
			     __field(u32, len)
			     __field(int, tag)),
	    TP_fast_assign(strscpy(__entry->name, name, sizeof(__entry->name));
			   __entry->queue = queue;
			   __entry->op = rmem_trace_op_nr(rq);
			   __entry->offset = blk_rq_pos(rq) << SECTOR_SHIFT;
			   __entry->len = blk_rq_bytes(rq);
			   __entry->tag = rq->tag;),
	    TP_printk("%s queue %u tag %d %s offset %llu len %u",
		      __entry->name, __entry->queue, __entry->tag,
		      rmem_trace_op(__entry->op), __entry->offset,
		      __entry->len)
);

TRACE_EVENT(rmem_rq_done,
	    TP_PROTO(const char *name, unsigned int queue,
		     struct request *rq, u64 latency_ns, blk_status_t status),
	    TP_ARGS(name, queue, rq, latency_ns, status),
	    TP_STRUCT__entry(__array(char, name, RMEM_NAME_MAX)
			     __field(unsigned int, queue)
			     __field(unsigned int, op)
			     __field(u64, offset)
			     __field(u32, len)
			     __field(int, tag)
			     __field(u64, latency_ns)
			     __field(int, status)),
	    TP_fast_assign(strscpy(__entry->name, name, sizeof(__entry->name));
			   __entry->queue = queue;
			   __entry->op = rmem_trace_op_nr(rq);
			   __entry->offset = blk_rq_pos(rq) << SECTOR_SHIFT;
			   __entry->len = blk_rq_bytes(rq);
			   __entry->tag = rq->tag;
			   __entry->latency_ns = latency_ns;
			   __entry->status = blk_status_to_errno(status);),
	    TP_printk("%s queue %u tag %d %s offset %llu len %u latency_ns %llu status %d",
		      __entry->name, __entry->queue, __entry->tag,
		      rmem_trace_op(__entry->op), __entry->offset,
		      __entry->len, __entry->latency_ns, __entry->status)
);

TRACE_DEFINE_ENUM(RMEM_DEV_STATE_CONNECTING);
TRACE_DEFINE_ENUM(RMEM_DEV_STATE_LIVE);
TRACE_DEFINE_ENUM(RMEM_DEV_STATE_DEAD);
TRACE_DEFINE_ENUM(RMEM_DEV_STATE_DELETING);
TRACE_DEFINE_ENUM(RMEM_DEV_STATE_RECONNECTING);

TRACE_EVENT(rmem_dev_state,
	    TP_PROTO(const char *name, unsigned int state),
	    TP_ARGS(name, state),
	    TP_STRUCT__entry(__array(char, name, RMEM_NAME_MAX)
			     __field(unsigned int, state)),
	    TP_fast_assign(strscpy(__entry->name, name, sizeof(__entry->name));
			   __entry->state = state;),
	    TP_printk("%s state %s", __entry->name,
		      __print_symbolic(__entry->state,
				       { RMEM_DEV_STATE_CONNECTING, "connecting" },
				       { RMEM_DEV_STATE_LIVE, "live" },
				       { RMEM_DEV_STATE_DEAD, "dead" },
				       { RMEM_DEV_STATE_DELETING, "deleting" },
				       { RMEM_DEV_STATE_RECONNECTING,
					 "reconnecting" }))
);

TRACE_EVENT(rmem_reconnect,
	    TP_PROTO(const char *name, unsigned int attempt,
		     unsigned int lost_ms),
	    TP_ARGS(name, attempt, lost_ms),
	    TP_STRUCT__entry(__array(char, name, RMEM_NAME_MAX)
			     __field(unsigned int, attempt)
			     __field(unsigned int, lost_ms)),
	    TP_fast_assign(strscpy(__entry->name, name, sizeof(__entry->name));
			   __entry->attempt = attempt;
			   __entry->lost_ms = lost_ms;),
	    TP_printk("%s attempt %u, %u ms after the loss", __entry->name,
		      __entry->attempt, __entry->lost_ms)
);

TRACE_EVENT(rmem_probe_miss,
	    TP_PROTO(const char *name, unsigned int late_ms, int wc_status),
	    TP_ARGS(name, late_ms, wc_status),
	    TP_STRUCT__entry(__array(char, name, RMEM_NAME_MAX)
			     __field(unsigned int, late_ms)
			     __field(int, wc_status)),
	    TP_fast_assign(strscpy(__entry->name, name, sizeof(__entry->name));
			   __entry->late_ms = late_ms;
			   __entry->wc_status = wc_status;),
	    TP_printk("%s probe unanswered for %u ms, work completion status %d",
		      __entry->name, __entry->late_ms, __entry->wc_status)
);

#endif /* _RMEM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH client
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

/*
 * make bench's reference build (RMEM_BENCH_BARE, client.h) has no request
 * tracepoints; the events stay defined, so the build differs only there.
 */
#if defined(RMEM_BENCH_BARE) && !defined(TRACE_HEADER_MULTI_READ)
#undef trace_rmem_rq_issue
#undef trace_rmem_rq_done
#define trace_rmem_rq_issue(...) do { } while (0)
#define trace_rmem_rq_done(...) do { } while (0)
#endif
