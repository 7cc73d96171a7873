/* wire: a userspace Ethernet cable between two network namespaces.
 *
 *   wire NSFILE_A IFNAME_A NSFILE_B IFNAME_B
 *
 * The NAT test bed (tests/interop/nat/bed.sh) joins its namespaces (public segment, home
 * routers, hosts behind them) with cables. The usual cable is a veth pair; this one is a
 * process, so a test can cut it: drop every frame while the link stays up, a Wi-Fi that
 * stops carrying anything, which otherwise takes netem (not in the kernel these tests were
 * written on). It creates a tap in namespace A and another in namespace B and copies every
 * Ethernet frame one tap's kernel side sends into the other, both ways. To the two kernels
 * the taps look like NICs on one wire, so ARP, bridging, conntrack and NAT behave as over
 * real links.
 *
 * NSFILE is a namespace file such as /proc/PID/ns/net. The tap in A is created before
 * switching to B: a tun fd belongs to the namespace that was current when /dev/net/tun was
 * opened, and stays there after setns(). Once both taps exist, "wire: A <-> B up" goes to
 * stdout (flushed): the taps are there to be configured. The taps disappear when this process
 * exits, so killing the wire unplugs the cable.
 *
 * Signals: SIGTERM/SIGINT end it (exit 0). SIGUSR1 toggles "cut": while cut, frames are read
 * and dropped (and counted) in both directions, a link that loses everything without the
 * link state changing, which the kernels on either side cannot notice; "wire: cut" or
 * "wire: mended" on stdout says when a toggle has taken effect. On exit the counts go
 * to stderr. If the process that started it dies, it gets SIGTERM (PR_SET_PDEATHSIG), so a
 * test killed hard leaves no cable behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

/* A tap without IFF_VNET_HDR gets no GSO frames, so MTU + 14 bytes is the real bound; 64 KiB
 * covers any MTU a test might set on a tap. */
#define FRAME_MAX 65536

struct side {
    const char *name; /* interface name, for messages */
    int fd;
    unsigned long frames;  /* copied to the other side */
    unsigned long dropped; /* read while cut, or refused by the other side */
};

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t cut_toggles;
static unsigned char frame[FRAME_MAX]; /* one frame in flight at a time: one buffer will do */

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void on_cut(int sig)
{
    (void)sig;
    cut_toggles++;
}

static int fail(const char *what, const char *arg)
{
    fprintf(stderr, "wire: %s %s: %s\n", what, arg, strerror(errno));
    return -1;
}

/* Switch this process into the network namespace named by nsfile. */
static int enter_netns(const char *nsfile)
{
    int fd = open(nsfile, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail("cannot open namespace", nsfile);
    int rc = setns(fd, CLONE_NEWNET);
    int saved = errno;
    close(fd);
    errno = saved;
    if (rc != 0)
        return fail("cannot enter namespace", nsfile);
    return 0;
}

/* Create tap ifname in the current namespace; returns its fd. */
static int open_tap(const char *ifname)
{
    if (strlen(ifname) >= IFNAMSIZ) {
        fprintf(stderr, "wire: interface name too long (max %d): %s\n", IFNAMSIZ - 1, ifname);
        return -1;
    }
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return fail("cannot open", "/dev/net/tun");
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI; /* whole Ethernet frames, no packet-info prefix */
    memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
    if (ioctl(fd, TUNSETIFF, &ifr) != 0) {
        fail("cannot create tap", ifname);
        close(fd);
        return -1;
    }
    return fd;
}

static int make_end(struct side *s, const char *nsfile, const char *ifname)
{
    s->name = ifname;
    s->frames = 0;
    s->dropped = 0;
    if (enter_netns(nsfile) != 0)
        return -1;
    s->fd = open_tap(ifname);
    return s->fd < 0 ? -1 : 0;
}

static int install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop; /* no SA_RESTART: ppoll must return EINTR */
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0)
        return -1;
    sa.sa_handler = on_cut;
    if (sigaction(SIGUSR1, &sa, NULL) != 0)
        return -1;
    /* The signals stay blocked except inside ppoll(), so one that arrives between the flag
     * check and the wait is not lost until the next frame. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR1);
    return sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Move one frame from src to dst. A write the kernel refuses (the far tap is down: EIO; a
 * bad frame: EINVAL) is a frame lost on the wire, not a reason to stop. A read error other
 * than an interruption ends the wire: poll would report the fd ready again at once, so
 * carrying on would only spin. */
static int copy_one(struct side *src, struct side *dst, int cut)
{
    ssize_t n = read(src->fd, frame, sizeof frame);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN)
            return 0;
        return fail("read from", src->name);
    }
    if (n == 0)
        return 0;
    if (cut) {
        src->dropped++;
        return 0;
    }
    if (write(dst->fd, frame, (size_t)n) != n) {
        src->dropped++;
        return 0;
    }
    src->frames++;
    return 0;
}

/* Say on stdout when a toggle takes effect, so the script that sent SIGUSR1 can wait until
 * the cable really is cut (or mended) before it goes on. */
static int update_cut(int cut)
{
    int now = (cut_toggles & 1) != 0;
    if (now != cut) {
        printf("wire: %s\n", now ? "cut" : "mended");
        fflush(stdout);
    }
    return now;
}

static int run(struct side *a, struct side *b)
{
    sigset_t during_wait;
    sigemptyset(&during_wait);
    int cut = 0;
    while (!stop_requested) {
        cut = update_cut(cut);
        struct pollfd pfd[2] = {{.fd = a->fd, .events = POLLIN}, {.fd = b->fd, .events = POLLIN}};
        if (ppoll(pfd, 2, NULL, &during_wait) < 0) {
            if (errno == EINTR)
                continue;
            return fail("poll", "");
        }
        if ((pfd[0].revents | pfd[1].revents) & (POLLERR | POLLNVAL)) {
            fprintf(stderr, "wire: tap error (%s or %s)\n", a->name, b->name);
            return -1;
        }
        if ((pfd[0].revents & POLLIN) && copy_one(a, b, cut) != 0)
            return -1;
        if ((pfd[1].revents & POLLIN) && copy_one(b, a, cut) != 0)
            return -1;
    }
    return 0;
}

static void report(const struct side *a, const struct side *b)
{
    fprintf(stderr, "wire: %s -> %s: %lu frames, %lu dropped; %s -> %s: %lu frames, %lu dropped\n",
            a->name, b->name, a->frames, a->dropped, b->name, a->name, b->frames, b->dropped);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: wire NSFILE_A IFNAME_A NSFILE_B IFNAME_B\n"
                        "  e.g. wire /proc/$$/ns/net pub_a /proc/1234/ns/net wan\n");
        return 1;
    }
    /* SIGTERM when the starting shell dies, so a hard-killed test leaves no cable behind. */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
        fail("prctl", "PR_SET_PDEATHSIG");
    if (install_handlers() != 0) {
        fail("cannot install", "signal handlers");
        return 1;
    }
    struct side a, b;
    if (make_end(&a, argv[1], argv[2]) != 0)
        return 1;
    if (make_end(&b, argv[3], argv[4]) != 0)
        return 1;
    printf("wire: %s <-> %s up\n", a.name, b.name);
    fflush(stdout);
    int rc = run(&a, &b);
    report(&a, &b);
    return rc == 0 ? 0 : 1;
}
