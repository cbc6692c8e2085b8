// SPDX-License-Identifier: GPL-2.0
/*
 * napiget - netdev netlink's napi-get, for a guest without Python (ynl's
 * cli.py does the same from Documentation/netlink/specs/netdev.yaml).
 *
 *   napiget dump IFINDEX   every NAPI instance napi-get lists for the device
 *   napiget get ID         the instance with that NAPI id
 *
 * One line per instance, its attributes as napi-get gave them, in the
 * spec's names, an absent one left out:
 *
 *   id=8193 ifindex=2 weight=64
 *
 * "weight" is the attribute the lab's 6.12 series adds (patch 11); irq and
 * pid appear when the driver set an irq or the instance is threaded.
 * Exit 0 with the lines; 1 with one line "napiget: ..." on stderr when the
 * kernel refused (the errno's name) or has no netdev family; 2 on bad usage.
 * A dump that lists nothing prints nothing and exits 0.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "errname.h"

/*
 * include/uapi/linux/netdev.h of linux-source-6.12 with the lab's series
 * (the host's headers are 6.1's, which have no netdev family). Only for
 * the lab's 6.12 kernels: upstream gave attribute 5 to defer-hard-irqs in
 * 6.13, which this program would print as "weight".
 */
#define NETDEV_FAMILY_VERSION	1
#define NETDEV_CMD_NAPI_GET	11
enum { A_IFINDEX = 1, A_ID, A_IRQ, A_PID, A_WEIGHT, A_MAX = A_WEIGHT };
static const char *const a_name[A_MAX + 1] = {
	[A_IFINDEX] = "ifindex", [A_ID] = "id", [A_IRQ] = "irq",
	[A_PID] = "pid", [A_WEIGHT] = "weight",
};
/* Printing order: the reply's order in the spec (id first). */
static const int a_order[] = { A_ID, A_IFINDEX, A_IRQ, A_PID, A_WEIGHT };

#define BUF_SIZE 32768

struct req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	char attrs[64];
};

static void die(const char *what, int err)
{
	fprintf(stderr, "napiget: %s: %s\n", what, errno_name(err));
	exit(1);
}

static int put_attr(struct req *r, int type, const void *data, size_t len)
{
	struct nlattr *na = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));
	size_t alen = NLA_HDRLEN + len;

	if (NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(alen) > sizeof(*r))
		return -1;
	na->nla_type = type;
	na->nla_len = alen;
	memcpy((char *)na + NLA_HDRLEN, data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + NLA_ALIGN(alen);
	return 0;
}

static void init_req(struct req *r, int family, int cmd, int version, int flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nh.nlmsg_type = family;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nh.nlmsg_seq = 1;
	r->gh.cmd = cmd;
	r->gh.version = version;
}

/* Walk the attributes of a genetlink message: cb(type, payload, len). */
static void for_each_attr(struct nlmsghdr *nh,
			  void (*cb)(int, const void *, int, void *), void *arg)
{
	int len = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	struct nlattr *na = (struct nlattr *)((char *)NLMSG_DATA(nh) + GENL_HDRLEN);

	while (len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN && na->nla_len <= len) {
		cb(na->nla_type & NLA_TYPE_MASK, (char *)na + NLA_HDRLEN,
		   na->nla_len - NLA_HDRLEN, arg);
		len -= NLA_ALIGN(na->nla_len);
		na = (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
	}
}

/*
 * Send r and read the answer up to its ACK (or a dump's DONE), calling
 * on_msg for every genetlink message; a netlink error ends the program.
 */
static void transact(int fd, struct req *r, const char *what,
		     void (*on_msg)(struct nlmsghdr *, void *), void *arg)
{
	static char buf[BUF_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, r, r->nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		die("send", errno);
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nh;

		if (n < 0)
			die("recv", errno);
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE)
				return;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (e->error)
					die(what, -e->error);
				return;		/* the ACK of a do */
			}
			on_msg(nh, arg);
		}
	}
}

static void family_attr(int type, const void *p, int len, void *arg)
{
	if (type == CTRL_ATTR_FAMILY_ID && len >= 2)
		memcpy(arg, p, 2);
}

static void family_msg(struct nlmsghdr *nh, void *arg)
{
	for_each_attr(nh, family_attr, arg);
}

struct napi {
	int have[A_MAX + 1];
	uint32_t val[A_MAX + 1];
};

static void napi_attr(int type, const void *p, int len, void *arg)
{
	struct napi *n = arg;

	if (type >= 1 && type <= A_MAX && len == 4) {
		n->have[type] = 1;
		memcpy(&n->val[type], p, 4);
	}
}

static void napi_msg(struct nlmsghdr *nh, void *arg)
{
	struct napi n = { 0 };
	const char *sep = "";
	size_t i;

	(void)arg;
	for_each_attr(nh, napi_attr, &n);
	for (i = 0; i < sizeof(a_order) / sizeof(a_order[0]); i++) {
		if (!n.have[a_order[i]])
			continue;
		printf("%s%s=%u", sep, a_name[a_order[i]], n.val[a_order[i]]);
		sep = " ";
	}
	printf("\n");
}

static uint32_t number(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v == 0 || v > UINT32_MAX) {
		fprintf(stderr, "napiget: '%s' is not a number 1..%u\n", s, UINT32_MAX);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	uint16_t family = 0;
	uint32_t v;
	struct req r;
	int fd, dump;

	if (argc != 3 || (strcmp(argv[1], "dump") && strcmp(argv[1], "get"))) {
		fprintf(stderr, "usage: napiget dump IFINDEX | napiget get ID\n");
		return 2;
	}
	dump = !strcmp(argv[1], "dump");
	v = number(argv[2]);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		die("socket", errno);

	init_req(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	if (put_attr(&r, CTRL_ATTR_FAMILY_NAME, "netdev", sizeof("netdev")))
		die("request", EMSGSIZE);
	transact(fd, &r, "no netdev netlink family", family_msg, &family);
	if (!family)
		die("no netdev netlink family", ENOENT);

	init_req(&r, family, NETDEV_CMD_NAPI_GET, NETDEV_FAMILY_VERSION,
		 dump ? NLM_F_DUMP : 0);
	if (put_attr(&r, dump ? A_IFINDEX : A_ID, &v, sizeof(v)))
		die("request", EMSGSIZE);
	transact(fd, &r, "napi-get", napi_msg, NULL);
	close(fd);
	return 0;
}
