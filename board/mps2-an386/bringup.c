/* The board's smoke test (tests/firmware/bringup.sh): lwIP on the LAN9118 with the address of
 * the configuration block's `ip=` line (netmask 255.255.255.0), answering ping; nothing of zq.
 * It prints "board: up, ip A.B.C.D" and then, every 5 s, the controller's frame counts. */
#include <string.h>

#include "board.h"
#include "lwip/init.h"
#include "lwip/ip4_addr.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"

static struct netif netif;

/* lwIP's LWIP_RAND (lwipopts.h): nothing here needs secrecy, a counter is enough. */
uint32_t zq_lwip_rand32(void)
{
    static uint32_t n = 0x2545F491u;
    n ^= n << 13;
    n ^= n >> 17;
    n ^= n << 5;
    return n;
}

static void say(const char *s)
{
    board_console_write(s, strlen(s));
}

static void say_number(uint32_t v)
{
    char text[12];
    size_t i = sizeof text;
    do {
        text[--i] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v > 0 && i > 0);
    board_console_write(text + i, sizeof text - i);
}

/* The value of the block's ip= line as an address, or 192.0.2.2. */
static void configured_ip(ip4_addr_t *ip)
{
    const char *text = board_config_text();
    const char *line = strstr(text, "ip=");
    char value[16] = "192.0.2.2";
    if (line != NULL && (line == text || line[-1] == '\n')) {
        size_t n = strcspn(line + 3, "\r\n/");
        if (n < sizeof value) {
            memcpy(value, line + 3, n);
            value[n] = '\0';
        }
    }
    if (!ip4addr_aton(value, ip)) {
        IP4_ADDR(ip, 192, 0, 2, 2);
    }
}

int main(void)
{
    board_init();
    ip4_addr_t ip;
    ip4_addr_t mask;
    ip4_addr_t gw;
    configured_ip(&ip);
    IP4_ADDR(&mask, 255, 255, 255, 0);
    ip4_addr_set_zero(&gw);
    lwip_init();
    if (netif_add(&netif, &ip, &mask, &gw, NULL, board_netif_init, ethernet_input) == NULL) {
        say("board: the LAN9118 did not start\n");
        return 1;
    }
    netif_set_default(&netif);
    netif_set_up(&netif);
    netif_set_link_up(&netif);
    say("board: up, ip ");
    say(ip4addr_ntoa(&ip));
    say("\n");
    uint64_t next = 0;
    for (;;) {
        (void)board_net_poll(&netif, 8);
        sys_check_timeouts();
        if (board_now_ms() >= next) {
            next = board_now_ms() + 5000u;
            board_net_stats_t st;
            board_net_stats(&st);
            say("board: rx ");
            say_number(st.rx_frames);
            say(" tx ");
            say_number(st.tx_frames);
            say(" dropped ");
            say_number(st.rx_dropped + st.tx_dropped);
            say("\n");
        }
        board_idle();
    }
}
