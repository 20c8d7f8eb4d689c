/* linux.netDevices over rtnetlink (see net_devices.h). One RTM_NEWLINK
 * with IFLA_NET_NS_FD and IFLA_IFNAME moves and renames a device, so the
 * new name never shows in sbrun's namespace (the kernel moves it under its
 * old name first and renames it inside: see moved_anyway). Work inside the container's
 * namespace goes through a netlink socket made there by a short-lived
 * child and passed back: sbrun itself never leaves its own namespace. */
#include "runtime/host/net_devices.h"

#include "common/cleanup.h"
#include "common/error.h"
#include "common/fd_passing.h"
#include "common/log.h"
#include "oci/config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct net_address {
        unsigned char family, prefixlen;
        unsigned char local[16], address[16], broadcast[16];
        unsigned char local_len, address_len, broadcast_len;
};

/* A request: the header, its fixed part and attributes, in one buffer. */
struct nl_req {
        union {
                struct nlmsghdr h;
                char buf[512];
        };
};

static void *nl_begin(struct nl_req *r, int type, int flags, size_t fixed)
{
        memset(r, 0, sizeof(*r));
        r->h.nlmsg_len = NLMSG_LENGTH(fixed);
        r->h.nlmsg_type = (unsigned short)type;
        r->h.nlmsg_flags = (unsigned short)(NLM_F_REQUEST | flags);
        return NLMSG_DATA(&r->h);
}

static void nl_attr(struct nl_req *r, int type, const void *data, size_t len)
{
        struct rtattr *a = (struct rtattr *)(r->buf + NLMSG_ALIGN(r->h.nlmsg_len));

        /* Every request here is far below the buffer: a name, an fd, an
         * address. */
        a->rta_type = (unsigned short)type;
        a->rta_len = (unsigned short)RTA_LENGTH(len);
        memcpy(RTA_DATA(a), data, len);
        r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

typedef void (*nl_reply_fn)(const struct nlmsghdr *h, void *arg);

/* Send r and read until its ACK (or NLMSG_DONE of a dump); each other
 * message goes to fn. 0, or -errno. */
static int nl_talk(int fd, struct nl_req *r, nl_reply_fn fn, void *arg)
{
        static unsigned seq;
        /* The kernel makes no dump message larger than 32 KiB. */
        char buf[32768] __attribute__((aligned(NLMSG_ALIGNTO)));

        r->h.nlmsg_seq = ++seq;
        if (send(fd, r, r->h.nlmsg_len, 0) < 0)
                return -errno;
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
                     h = NLMSG_NEXT(h, n)) {
                        if (h->nlmsg_seq != r->h.nlmsg_seq)
                                continue;
                        if (h->nlmsg_type == NLMSG_DONE)
                                return 0;
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                const struct nlmsgerr *e = NLMSG_DATA(h);
                                return e->error;
                        }
                        if (fn != NULL)
                                fn(h, arg);
                }
        }
}

static int nl_open(void)
{
        return socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
}

struct link_info {
        int index;
        unsigned flags;
        char name[IFNAMSIZ];
};

static void link_reply(const struct nlmsghdr *h, void *arg)
{
        struct link_info *li = arg;
        const struct ifinfomsg *ifi = NLMSG_DATA(h);
        int len = (int)IFLA_PAYLOAD(h);

        if (h->nlmsg_type != RTM_NEWLINK)
                return;
        li->index = ifi->ifi_index;
        li->flags = ifi->ifi_flags;
        for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
                if (a->rta_type == IFLA_IFNAME)
                        snprintf(li->name, sizeof(li->name), "%.*s", (int)RTA_PAYLOAD(a),
                                 (const char *)RTA_DATA(a));
        }
}

/* The device of that index, or of that name when index is 0. */
static int link_get(int fd, int index, const char *name, struct link_info *li)
{
        struct nl_req r;
        struct ifinfomsg *ifi = nl_begin(&r, RTM_GETLINK, NLM_F_ACK, sizeof(*ifi));

        memset(li, 0, sizeof(*li));
        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = index;
        if (index == 0)
                nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
        int e = nl_talk(fd, &r, link_reply, li);
        return e < 0 ? e : li->index > 0 ? 0 : -ENODEV;
}

static int link_set_up(int fd, int index, bool up)
{
        struct nl_req r;
        struct ifinfomsg *ifi = nl_begin(&r, RTM_NEWLINK, NLM_F_ACK, sizeof(*ifi));

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = index;
        ifi->ifi_change = IFF_UP;
        ifi->ifi_flags = up ? IFF_UP : 0;
        return nl_talk(fd, &r, NULL, NULL);
}

/* Into the namespace of ns_fd, named name there, in one request. */
static int link_move(int fd, int index, int ns_fd, const char *name)
{
        struct nl_req r;
        struct ifinfomsg *ifi = nl_begin(&r, RTM_NEWLINK, NLM_F_ACK, sizeof(*ifi));
        uint32_t ns = (uint32_t)ns_fd;

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = index;
        nl_attr(&r, IFLA_NET_NS_FD, &ns, sizeof(ns));
        nl_attr(&r, IFLA_IFNAME, name, strlen(name) + 1);
        return nl_talk(fd, &r, NULL, NULL);
}

struct addr_dump {
        int index;
        struct net_address *addrs;
        size_t n;
        int error;
};

static void copy_addr(const struct rtattr *a, unsigned char *to, unsigned char *len)
{
        size_t n = RTA_PAYLOAD(a);

        if (n > 16)
                return;
        memcpy(to, RTA_DATA(a), n);
        *len = (unsigned char)n;
}

/* runtime-spec 1.3: the permanent addresses of global scope go with the
 * device (the kernel drops every address on a move); dynamic ones depend
 * on the namespace they were made in. */
static void addr_reply(const struct nlmsghdr *h, void *arg)
{
        struct addr_dump *d = arg;
        const struct ifaddrmsg *ifa = NLMSG_DATA(h);
        int len = (int)IFA_PAYLOAD(h);
        uint32_t flags = ifa->ifa_flags;
        struct net_address a = { .family = ifa->ifa_family, .prefixlen = ifa->ifa_prefixlen };

        if (h->nlmsg_type != RTM_NEWADDR || (int)ifa->ifa_index != d->index ||
            ifa->ifa_scope != RT_SCOPE_UNIVERSE)
                return;
        for (const struct rtattr *r = IFA_RTA(ifa); RTA_OK(r, len); r = RTA_NEXT(r, len)) {
                if (r->rta_type == IFA_FLAGS && RTA_PAYLOAD(r) == sizeof(uint32_t))
                        memcpy(&flags, RTA_DATA(r), sizeof(flags));
                else if (r->rta_type == IFA_LOCAL)
                        copy_addr(r, a.local, &a.local_len);
                else if (r->rta_type == IFA_ADDRESS)
                        copy_addr(r, a.address, &a.address_len);
                else if (r->rta_type == IFA_BROADCAST)
                        copy_addr(r, a.broadcast, &a.broadcast_len);
        }
        if (!(flags & IFA_F_PERMANENT) || (a.local_len == 0 && a.address_len == 0))
                return;
        struct net_address *grown = realloc(d->addrs, (d->n + 1) * sizeof(*grown));
        if (grown == NULL) {
                d->error = -ENOMEM;
                return;
        }
        d->addrs = grown;
        d->addrs[d->n++] = a;
}

static int addr_list(int fd, struct net_device_move *dev)
{
        struct nl_req r;
        struct ifaddrmsg *ifa = nl_begin(&r, RTM_GETADDR, NLM_F_DUMP, sizeof(*ifa));
        struct addr_dump d = { .index = dev->host_index };

        ifa->ifa_family = AF_UNSPEC;
        int e = nl_talk(fd, &r, addr_reply, &d);
        dev->addrs = d.addrs;
        dev->n_addrs = d.n;
        return e < 0 ? e : d.error;
}

static int addr_add(int fd, int index, const struct net_address *a)
{
        struct nl_req r;
        struct ifaddrmsg *ifa =
                nl_begin(&r, RTM_NEWADDR, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, sizeof(*ifa));

        ifa->ifa_family = a->family;
        ifa->ifa_prefixlen = a->prefixlen;
        ifa->ifa_scope = RT_SCOPE_UNIVERSE;
        ifa->ifa_index = (unsigned)index;
        if (a->local_len)
                nl_attr(&r, IFA_LOCAL, a->local, a->local_len);
        if (a->address_len)
                nl_attr(&r, IFA_ADDRESS, a->address, a->address_len);
        if (a->broadcast_len)
                nl_attr(&r, IFA_BROADCAST, a->broadcast, a->broadcast_len);
        return nl_talk(fd, &r, NULL, NULL);
}

/* A netlink socket of the network namespace ns_fd, made by a child that
 * enters it: sockets stay in the namespace they were made in. */
static int socket_in(int ns_fd, struct sb_error *err)
{
        int sv[2];
        int fd = -1, status = 0;
        char byte = 0;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return sb_fail(err, errno, "socketpair");
        pid_t child = fork();
        if (child < 0) {
                close(sv[0]);
                close(sv[1]);
                return sb_fail(err, errno, "fork");
        }
        if (child == 0) {
                int s;
                close(sv[0]);
                if (setns(ns_fd, CLONE_NEWNET) < 0 || (s = nl_open()) < 0)
                        _exit(1);
                _exit(sb_send_fd(sv[1], s, &byte, 1) == 1 ? 0 : 1);
        }
        close(sv[1]);
        ssize_t n = sb_recv_fd(sv[0], &byte, 1, &fd);
        int saved = errno;
        close(sv[0]);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        if (n != 1 || fd < 0) {
                if (fd >= 0)
                        close(fd);
                return sb_fail(err, n < 0 ? saved : 0,
                               "a netlink socket in the container's network namespace");
        }
        return fd;
}

int net_devices_check(const struct oci_linux *l, bool rootless, struct sb_error *err)
{
        if (l == NULL)
                return 0;
        for (size_t i = 0; i < l->n_net_devices; i++) {
                const char *name = l->net_devices[i].key;
                if (rootless)
                        return sb_fail(err, 0,
                                       "linux.netDevices: \"%s\": a rootless sbrun cannot "
                                       "move a network device",
                                       name);
                if (if_nametoindex(name) == 0)
                        return sb_fail(err, 0,
                                       "linux.netDevices: \"%s\": no such network device in "
                                       "sbrun's network namespace",
                                       name);
        }
        return 0;
}

/* Whether the kernel's name is the one asked for: the same, or what a
 * "%d" template becomes (digits where it stood). */
static bool name_matches(const char *asked, const char *got)
{
        const char *pct = strchr(asked, '%');
        size_t head, tail, len = strlen(got);

        if (pct == NULL)
                return strcmp(asked, got) == 0;
        head = (size_t)(pct - asked);
        tail = strlen(pct + 2);
        if (len <= head + tail || strncmp(asked, got, head) != 0 ||
            strcmp(pct + 2, got + len - tail) != 0)
                return false;
        for (size_t k = head; k < len - tail; k++) {
                if (got[k] < '0' || got[k] > '9')
                        return false;
        }
        return true;
}

static int open_container_ns(pid_t pid, struct net_devices *nd, struct sb_error *err)
{
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        char path[64];
        struct stat ours, theirs;

        if (pidfd < 0)
                return sb_fail(err, errno, "linux.netDevices: the container's process %d", pid);
        nd->own_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        if (nd->own_ns < 0)
                return sb_fail(err, errno, "linux.netDevices: /proc/self/ns/net");
        snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
        nd->container_ns = open(path, O_RDONLY | O_CLOEXEC);
        if (nd->container_ns < 0)
                return sb_fail(err, errno, "linux.netDevices: %s", path);
        /* Still that process when its namespace was opened: not a pid reused. */
        if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
                return sb_fail(err, errno, "linux.netDevices: the container's process %d", pid);
        if (fstat(nd->own_ns, &ours) < 0 || fstat(nd->container_ns, &theirs) < 0)
                return sb_fail(err, errno, "linux.netDevices: fstat of a network namespace");
        if (ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev)
                return sb_fail(err, 0,
                               "linux.netDevices: the container shares sbrun's network namespace");
        return 0;
}

/* The device at index of sbrun's namespace as it was: its addresses (those
 * still there fail with EEXIST, as they should) and its state. */
static void restore(int host, int index, const struct net_device_move *dev)
{
        for (size_t k = 0; k < dev->n_addrs; k++)
                addr_add(host, index, &dev->addrs[k]);
        if (dev->was_up)
                link_set_up(host, index, true);
}

/* After a failed move: whether the kernel moved the device all the same.
 * It moves a device under its own name and renames it after, so a new
 * name taken in the container's namespace fails with the device already
 * there (a name taken between the check and the move). Then it is
 * recorded as moved, for net_devices_undo. */
static void moved_anyway(int host, int inside_fd, struct net_device_move *dev)
{
        struct link_info li;

        if (link_get(host, dev->host_index, NULL, &li) == 0)
                return;
        if (link_get(inside_fd, dev->host_index, NULL, &li) == 0 &&
            (strcmp(li.name, dev->name) == 0 || name_matches(dev->inside, li.name)))
                dev->index = li.index;
}

/* One device: its addresses read while it is still up (IPv6 drops them on
 * down), down for the move so nothing on the host uses it halfway, moved
 * and renamed, then its addresses again and up, inside. */
static int move_one(int host, int inside_fd, struct net_devices *nd, struct net_device_move *dev,
                    struct sb_error *err)
{
        struct link_info li;
        int e;

        if ((e = link_get(host, 0, dev->name, &li)) < 0)
                return sb_fail(err, -e, "linux.netDevices: \"%s\"", dev->name);
        dev->host_index = li.index;
        dev->was_up = (li.flags & IFF_UP) != 0;
        if ((e = addr_list(host, dev)) < 0)
                return sb_fail(err, -e, "linux.netDevices: \"%s\": its addresses", dev->name);
        /* A name taken inside fails before anything changes. */
        if (strchr(dev->inside, '%') == NULL && link_get(inside_fd, 0, dev->inside, &li) == 0)
                return sb_fail(err, EEXIST,
                               "linux.netDevices: \"%s\": moving it into the container's "
                               "network namespace as \"%s\"",
                               dev->name, dev->inside);
        if (dev->was_up && (e = link_set_up(host, dev->host_index, false)) < 0)
                return sb_fail(err, -e, "linux.netDevices: \"%s\": setting it down", dev->name);
        if ((e = link_move(host, dev->host_index, nd->container_ns, dev->inside)) < 0) {
                moved_anyway(host, inside_fd, dev);
                if (dev->index == 0)
                        restore(host, dev->host_index, dev);
                return sb_fail(err, -e,
                               "linux.netDevices: \"%s\": moving it into the container's "
                               "network namespace as \"%s\"",
                               dev->name, dev->inside);
        }
        li.index = dev->host_index;
        /* The kernel keeps the index unless the namespace has it taken; the
         * name tells whether the device found is this one. */
        e = link_get(inside_fd, li.index, NULL, &li);
        if (e < 0 || !name_matches(dev->inside, li.name))
                return sb_fail(err, e < 0 ? -e : 0,
                               "linux.netDevices: \"%s\": not found in the container's network "
                               "namespace after the move",
                               dev->name);
        dev->index = li.index;
        for (size_t k = 0; k < dev->n_addrs; k++) {
                if ((e = addr_add(inside_fd, dev->index, &dev->addrs[k])) < 0)
                        return sb_fail(err, -e, "linux.netDevices: \"%s\": an address inside",
                                       dev->name);
        }
        if ((e = link_set_up(inside_fd, dev->index, true)) < 0)
                return sb_fail(err, -e, "linux.netDevices: \"%s\": setting it up inside",
                               dev->name);
        return 0;
}

int net_devices_move_in(const struct oci_linux *l, pid_t pid, struct net_devices *nd,
                        struct sb_error *err)
{
        _cleanup_close_ int host = -1;
        _cleanup_close_ int inside = -1;

        if (l == NULL || l->n_net_devices == 0)
                return 0;
        nd->devs = calloc(l->n_net_devices, sizeof(*nd->devs));
        if (nd->devs == NULL)
                return sb_fail(err, ENOMEM, "linux.netDevices");
        nd->n = l->n_net_devices;
        for (size_t i = 0; i < nd->n; i++) {
                const struct oci_kv *kv = &l->net_devices[i];
                nd->devs[i].name = kv->key;
                nd->devs[i].inside = kv->value && kv->value[0] ? kv->value : kv->key;
        }
        if (open_container_ns(pid, nd, err) < 0)
                return -1;
        host = nl_open();
        if (host < 0)
                return sb_fail(err, errno, "linux.netDevices: a netlink socket");
        inside = socket_in(nd->container_ns, err);
        if (inside < 0)
                return sb_error_prefix(err, "linux.netDevices");
        for (size_t i = 0; i < nd->n; i++) {
                if (move_one(host, inside, nd, &nd->devs[i], err) < 0)
                        return -1;
        }
        return 0;
}

static void move_back(int host, int inside, const struct net_devices *nd,
                      const struct net_device_move *dev)
{
        struct link_info li;
        int e;

        link_set_up(inside, dev->index, false);
        if ((e = link_move(inside, dev->index, nd->own_ns, dev->name)) < 0) {
                sb_warn("linux.netDevices: \"%s\" stays in the container's network namespace: "
                        "moving it back: %s",
                        dev->name, strerror(-e));
                return;
        }
        if (link_get(host, 0, dev->name, &li) == 0)
                restore(host, li.index, dev);
}

void net_devices_undo(struct net_devices *nd)
{
        struct sb_error err = { 0 };
        _cleanup_close_ int host = -1;
        _cleanup_close_ int inside = -1;
        bool any = false;

        for (size_t i = 0; i < nd->n; i++)
                any = any || nd->devs[i].index > 0;
        if (any && nd->container_ns >= 0 && nd->own_ns >= 0) {
                host = nl_open();
                inside = socket_in(nd->container_ns, &err);
                if (host < 0 || inside < 0)
                        sb_warn("linux.netDevices: the devices moved stay in the container's "
                                "network namespace: no netlink socket to move them back");
                /* In reverse: a later device may have taken a name an
                 * earlier one gave up. */
                for (size_t i = nd->n; host >= 0 && inside >= 0 && i-- > 0;) {
                        if (nd->devs[i].index > 0)
                                move_back(host, inside, nd, &nd->devs[i]);
                }
                sb_error_clear(&err);
        }
        net_devices_keep(nd);
}

void net_devices_keep(struct net_devices *nd)
{
        for (size_t i = 0; i < nd->n; i++)
                free(nd->devs[i].addrs);
        free(nd->devs);
        nd->devs = NULL;
        nd->n = 0;
        if (nd->own_ns >= 0)
                close(nd->own_ns);
        if (nd->container_ns >= 0)
                close(nd->container_ns);
        nd->own_ns = nd->container_ns = -1;
}
