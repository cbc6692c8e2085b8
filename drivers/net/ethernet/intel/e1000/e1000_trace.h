/* SPDX-License-Identifier: GPL-2.0 */
/* e1000 tracepoints: how each NAPI poll used its budget and quota. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM e1000

#if !defined(_E1000_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _E1000_TRACE_H_

#include <linux/netdevice.h>
#include <linux/tracepoint.h>
#include <linux/version.h>

/**
 * e1000_napi_poll - one NAPI poll of an e1000
 * @netdev: the device
 * @budget: what NAPI passed (the weight)
 * @quota: the most RX packets the driver allowed itself in this poll
 * @work: RX packets handled
 * @refills: tail writes (refills that gave descriptors back)
 * @hw_owned: RX descriptors the NIC owned when the poll started (RDT - RDH,
 *            read only while this tracepoint is enabled)
 * @hw_min: the fewest it owned then and just before each of the poll's
 *          refills (0: the ring ran dry during the poll)
 * @ns: time the poll took
 * @ns_per_pkt: the adaptive quota's EWMA of the cost of a packet
 */
TRACE_EVENT(e1000_napi_poll,
	    TP_PROTO(const struct net_device *netdev, int budget, int quota,
		     int work, unsigned int refills, unsigned int hw_owned,
		     unsigned int hw_min, u64 ns, unsigned int ns_per_pkt),
	    TP_ARGS(netdev, budget, quota, work, refills, hw_owned, hw_min, ns,
		    ns_per_pkt),
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0) /* 6.10: __assign_str() takes one argument */
	    TP_STRUCT__entry(__array(char, dev, IFNAMSIZ)
#else
	    TP_STRUCT__entry(__string(dev, netdev->name)
#endif
			     __field(int, budget)
			     __field(int, quota)
			     __field(int, work)
			     __field(unsigned int, refills)
			     __field(unsigned int, hw_owned)
			     __field(unsigned int, hw_min)
			     __field(u64, ns)
			     __field(unsigned int, ns_per_pkt)),
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	    TP_fast_assign(strscpy(__entry->dev, netdev->name, IFNAMSIZ);
#else
	    TP_fast_assign(__assign_str(dev, netdev->name);
#endif
			   __entry->budget = budget;
			   __entry->quota = quota;
			   __entry->work = work;
			   __entry->refills = refills;
			   __entry->hw_owned = hw_owned;
			   __entry->hw_min = hw_min;
			   __entry->ns = ns;
			   __entry->ns_per_pkt = ns_per_pkt;),
	    TP_printk("dev=%s budget=%d quota=%d work=%d refills=%u hw_owned=%u hw_min=%u ns=%llu ns_per_pkt=%u",
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
		      __entry->dev, __entry->budget, __entry->quota,
#else
		      __get_str(dev), __entry->budget, __entry->quota,
#endif
		      __entry->work, __entry->refills, __entry->hw_owned,
		      __entry->hw_min, __entry->ns, __entry->ns_per_pkt)
);

#endif /* _E1000_TRACE_H_ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE e1000_trace
#include <trace/define_trace.h>
