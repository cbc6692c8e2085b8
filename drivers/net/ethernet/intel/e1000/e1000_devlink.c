// SPDX-License-Identifier: GPL-2.0
/* e1000 devlink instance: run-time parameters of the RX path.
 *
 *   devlink dev param set pci/<bdf> name rx_refill_batch value N cmode runtime
 *
 * Values are read once per NAPI poll with READ_ONCE(), so a change applies
 * from the next poll; any value that passed validation is safe there.
 */
#include <net/devlink.h>

#include "e1000.h"

enum e1000_devlink_param_id {
	E1000_DEVLINK_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH,
};

static struct e1000_adapter *e1000_devlink_adapter(struct devlink *devlink)
{
	return *(struct e1000_adapter **)devlink_priv(devlink);
}

static int e1000_rx_refill_batch_get(struct devlink *devlink, u32 id,
				     struct devlink_param_gset_ctx *ctx)
{
	ctx->val.vu32 = READ_ONCE(e1000_devlink_adapter(devlink)->rx_refill_batch);
	return 0;
}

static int e1000_rx_refill_batch_set(struct devlink *devlink, u32 id,
				     struct devlink_param_gset_ctx *ctx)
{
	WRITE_ONCE(e1000_devlink_adapter(devlink)->rx_refill_batch, ctx->val.vu32);
	return 0;
}

static int e1000_rx_refill_batch_validate(struct devlink *devlink, u32 id,
					  union devlink_param_value val,
					  struct netlink_ext_ack *extack)
{
	struct e1000_adapter *adapter = e1000_devlink_adapter(devlink);

	if (!e1000_rx_refill_batch_valid(val.vu32,
					 READ_ONCE(adapter->rx_ring_size))) {
		NL_SET_ERR_MSG_MOD(extack,
				   "rx_refill_batch must be 0 (refill after the poll) or 1 to the RX ring size");
		return -EINVAL;
	}
	return 0;
}

static const struct devlink_param e1000_devlink_params[] = {
	DEVLINK_PARAM_DRIVER(E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH,
			     "rx_refill_batch", DEVLINK_PARAM_TYPE_U32,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     e1000_rx_refill_batch_get,
			     e1000_rx_refill_batch_set,
			     e1000_rx_refill_batch_validate),
};

static const struct devlink_ops e1000_devlink_ops = {
};

/**
 * e1000_devlink_register - register the devlink instance and its parameters
 * @adapter: board private structure, with its RX ring size known
 */
int e1000_devlink_register(struct e1000_adapter *adapter)
{
	struct devlink *devlink;
	int err;

	devlink = devlink_alloc(&e1000_devlink_ops, sizeof(adapter),
				&adapter->pdev->dev);
	if (!devlink)
		return -ENOMEM;
	*(struct e1000_adapter **)devlink_priv(devlink) = adapter;

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
	devlink_unregister(devlink);
	devlink_params_unregister(devlink, e1000_devlink_params,
				  ARRAY_SIZE(e1000_devlink_params));
	devlink_free(devlink);
	adapter->devlink = NULL;
}

/* The driver changed rx_refill_batch itself (ethtool -G clamped it). */
void e1000_devlink_rx_refill_batch_changed(struct e1000_adapter *adapter)
{
	if (adapter->devlink)
		devlink_param_value_changed(adapter->devlink,
					    E1000_DEVLINK_PARAM_ID_RX_REFILL_BATCH);
}
