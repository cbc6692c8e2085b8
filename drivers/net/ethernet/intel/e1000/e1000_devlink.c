// SPDX-License-Identifier: GPL-2.0
/* e1000 devlink instance: run-time parameters of the RX path.
 *
 *   devlink dev param set pci/<bdf> name <param> value <v> cmode runtime
 *
 *   rx_refill_batch    u32   0 (after the poll) or 1..RX ring size   16
 *   adaptive_quota     bool  quota from the measured cost of a packet  false
 *   poll_target_usecs  u32   1..2000: how long a poll should take    500
 *   quota_min          u32   1..1024: the smallest adaptive quota      8
 *
 * Values are read once per NAPI poll with READ_ONCE(), so a change applies
 * from the next poll; any value that passed validation is safe there.
 */
#include <linux/rtnetlink.h>
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0) /* 6.3: devl_param_value_changed(), under the instance lock */
#include <linux/workqueue.h>
#endif
#include <net/devlink.h>

#include "e1000.h"

enum e1000_devlink_param_id {
	E1000_DEVLINK_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH,
	E1000_DEVLINK_PARAM_ID_ADAPTIVE_QUOTA,
	E1000_DEVLINK_PARAM_ID_POLL_TARGET_USECS,
	E1000_DEVLINK_PARAM_ID_QUOTA_MIN,
};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
/**
 * struct e1000_devlink_priv - the devlink instance's private data
 * @adapter: board private structure
 * @notify_work: tells devlink listeners of a batch that ethtool -G clamped
 */
struct e1000_devlink_priv {
	struct e1000_adapter *adapter;
	struct work_struct notify_work;
};

static struct e1000_devlink_priv *e1000_devlink_priv(struct devlink *devlink)
{
	return devlink_priv(devlink);
}

#endif
static struct e1000_adapter *e1000_devlink_adapter(struct devlink *devlink)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	return e1000_devlink_priv(devlink)->adapter;
#else
	return *(struct e1000_adapter **)devlink_priv(devlink);
#endif
}

/* The u32 parameters live in the adapter; this maps an id to its field. */
static u32 *e1000_devlink_u32(struct e1000_adapter *adapter, u32 id)
{
	switch (id) {
	case E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH:
		return &adapter->rx_refill_batch;
	case E1000_DEVLINK_PARAM_ID_POLL_TARGET_USECS:
		return &adapter->poll_target_usecs;
	case E1000_DEVLINK_PARAM_ID_QUOTA_MIN:
		return &adapter->quota_min;
	}
	return NULL;
}

static int e1000_devlink_u32_get(struct devlink *devlink, u32 id,
				 struct devlink_param_gset_ctx *ctx)
{
	u32 *field = e1000_devlink_u32(e1000_devlink_adapter(devlink), id);

	if (WARN_ON_ONCE(!field))
		return -EOPNOTSUPP;
	ctx->val.vu32 = READ_ONCE(*field);
	return 0;
}

/* The batch may not exceed the RX ring. ethtool -G replaces the ring under
 * rtnl_lock and clamps the batch there (e1000_rx_ring_resized()), so the
 * batch is stored under the same lock, checked against the ring in place:
 * the validator ran without it, and the ring may have shrunk since. devlink
 * holds its instance lock here; devlink itself takes rtnl_lock inside it.
 */
static int e1000_rx_refill_batch_store(struct e1000_adapter *adapter,
				       u32 batch)
{
	int err = 0;

	rtnl_lock();
	if (e1000_rx_refill_batch_valid(batch, adapter->rx_ring[0].count))
		WRITE_ONCE(adapter->rx_refill_batch, batch);
	else
		err = -EINVAL;
	rtnl_unlock();
	return err;
}

static int e1000_devlink_u32_set(struct devlink *devlink, u32 id,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0) /* 6.10: set() takes an extack */
				 struct devlink_param_gset_ctx *ctx,
				 struct netlink_ext_ack *extack)
#else
				 struct devlink_param_gset_ctx *ctx)
#endif
{
	struct e1000_adapter *adapter = e1000_devlink_adapter(devlink);
	u32 *field = e1000_devlink_u32(adapter, id);

	if (WARN_ON_ONCE(!field))
		return -EOPNOTSUPP;
	if (id == E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH)
		return e1000_rx_refill_batch_store(adapter, ctx->val.vu32);
	WRITE_ONCE(*field, ctx->val.vu32);
	return 0;
}

static int e1000_devlink_u32_validate(struct devlink *devlink, u32 id,
				      union devlink_param_value val,
				      struct netlink_ext_ack *extack)
{
	struct e1000_adapter *adapter = e1000_devlink_adapter(devlink);
	u32 v = val.vu32;

	switch (id) {
	case E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH:
		if (e1000_rx_refill_batch_valid(v, READ_ONCE(adapter->rx_ring_size)))
			return 0;
		NL_SET_ERR_MSG_MOD(extack,
				   "rx_refill_batch must be 0 (refill after the poll) or 1 to the RX ring size");
		return -EINVAL;
	case E1000_DEVLINK_PARAM_ID_POLL_TARGET_USECS:
		if (v >= 1 && v <= 2000)
			return 0;
		NL_SET_ERR_MSG_MOD(extack, "poll_target_usecs must be 1 to 2000");
		return -EINVAL;
	case E1000_DEVLINK_PARAM_ID_QUOTA_MIN:
		if (v >= 1 && v <= 1024)
			return 0;
		NL_SET_ERR_MSG_MOD(extack, "quota_min must be 1 to 1024");
		return -EINVAL;
	}
	NL_SET_ERR_MSG_MOD(extack, "unknown parameter");
	return -EOPNOTSUPP;
}

static int e1000_adaptive_quota_get(struct devlink *devlink, u32 id,
				    struct devlink_param_gset_ctx *ctx)
{
	ctx->val.vbool = READ_ONCE(e1000_devlink_adapter(devlink)->adaptive_quota);
	return 0;
}

static int e1000_adaptive_quota_set(struct devlink *devlink, u32 id,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
				    struct devlink_param_gset_ctx *ctx,
				    struct netlink_ext_ack *extack)
#else
				    struct devlink_param_gset_ctx *ctx)
#endif
{
	WRITE_ONCE(e1000_devlink_adapter(devlink)->adaptive_quota,
		   ctx->val.vbool);
	return 0;
}

#define E1000_DEVLINK_U32(_id, _name)					\
	DEVLINK_PARAM_DRIVER(E1000_DEVLINK_PARAM_ID_##_id, _name,	\
			     DEVLINK_PARAM_TYPE_U32,			\
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),		\
			     e1000_devlink_u32_get, e1000_devlink_u32_set, \
			     e1000_devlink_u32_validate)

static const struct devlink_param e1000_devlink_params[] = {
	E1000_DEVLINK_U32(RX_REFILL_BATCH, "rx_refill_batch"),
	DEVLINK_PARAM_DRIVER(E1000_DEVLINK_PARAM_ID_ADAPTIVE_QUOTA,
			     "adaptive_quota", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     e1000_adaptive_quota_get,
			     e1000_adaptive_quota_set, NULL),
	E1000_DEVLINK_U32(POLL_TARGET_USECS, "poll_target_usecs"),
	E1000_DEVLINK_U32(QUOTA_MIN, "quota_min"),
};

static const struct devlink_ops e1000_devlink_ops = {
};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
/* ethtool -G clamped rx_refill_batch, under rtnl_lock. The notification
 * takes the instance lock (6.3 on), which ranks above rtnl_lock: devlink
 * holds it while it sets a parameter, and setting rx_refill_batch takes
 * rtnl_lock (e1000_rx_refill_batch_store()). So it is sent from here,
 * without rtnl_lock.
 */
static void e1000_devlink_notify_work(struct work_struct *work)
{
	struct e1000_devlink_priv *priv =
		container_of(work, struct e1000_devlink_priv, notify_work);
	struct devlink *devlink = priv_to_devlink(priv);

	devl_lock(devlink);
	devl_param_value_changed(devlink,
				 E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH);
	devl_unlock(devlink);
}

#endif
/**
 * e1000_devlink_register - register the devlink instance and its parameters
 * @adapter: board private structure, with its RX ring size known
 */
int e1000_devlink_register(struct e1000_adapter *adapter)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	struct e1000_devlink_priv *priv;
#endif
	struct devlink *devlink;
	int err;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	devlink = devlink_alloc(&e1000_devlink_ops, sizeof(*priv),
#else
	devlink = devlink_alloc(&e1000_devlink_ops, sizeof(adapter),
#endif
				&adapter->pdev->dev);
	if (!devlink)
		return -ENOMEM;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	priv = e1000_devlink_priv(devlink);
	priv->adapter = adapter;
	INIT_WORK(&priv->notify_work, e1000_devlink_notify_work);
#else
	*(struct e1000_adapter **)devlink_priv(devlink) = adapter;
#endif

	err = devlink_params_register(devlink, e1000_devlink_params,
				      ARRAY_SIZE(e1000_devlink_params));
	if (err) {
		devlink_free(devlink);
		return err;
	}
	devlink_register(devlink);
	adapter->devlink = devlink;
	return 0;
}

void e1000_devlink_unregister(struct e1000_adapter *adapter)
{
	struct devlink *devlink = adapter->devlink;

	if (!devlink)
		return;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	cancel_work_sync(&e1000_devlink_priv(devlink)->notify_work);
#endif
	devlink_unregister(devlink);
	devlink_params_unregister(devlink, e1000_devlink_params,
				  ARRAY_SIZE(e1000_devlink_params));
	devlink_free(devlink);
	adapter->devlink = NULL;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
/* The driver changed rx_refill_batch itself (ethtool -G clamped it, under
 * rtnl_lock): the notification follows from a work item.
 */
#else
/* The driver changed rx_refill_batch itself (ethtool -G clamped it). */
#endif
void e1000_devlink_rx_refill_batch_changed(struct e1000_adapter *adapter)
{
	if (adapter->devlink)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
		schedule_work(&e1000_devlink_priv(adapter->devlink)->notify_work);
#else
		devlink_param_value_changed(adapter->devlink,
					    E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH);
#endif
}
