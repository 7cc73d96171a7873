/**
 * @file board.h
 * @brief Arm's MPS2 board with the AN386 FPGA image (a Cortex-M4 at 25 MHz, a LAN9118
 *        Ethernet controller, CMSDK UARTs), as QEMU emulates it (`-M mps2-an386`): what
 *        firmware/main.c needs of a board. Polled, no RTOS: SysTick is the only interrupt.
 *
 * Memory (QEMU's hw/arm/mps2.c, the AN385/AN386 map): ZBT SSRAM1 at 0x00000000 (4 MiB) holds
 * the image's code and read-only data, as flash would; ZBT SSRAM2/3 at 0x20000000 (4 MiB)
 * holds its RAM, a region of fixed size (mps2-an386.ld), and above it three blocks QEMU's
 * loader fills at boot: the configuration text, the entropy seed and the trust store
 * (scripts/firmware writes them), where a real board would have flash partitions.
 */
#ifndef ZQ_BOARD_MPS2_AN386_H
#define ZQ_BOARD_MPS2_AN386_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lwip/err.h"
#include "lwip/netif.h"

/** Where QEMU's generic loader puts the configuration block (text, NUL-terminated). */
#define BOARD_CONFIG_ADDR 0x20380000u
#define BOARD_CONFIG_MAX 1024u
/** Where it puts the entropy seed: a little-endian 32-bit length, then that many bytes. */
#define BOARD_SEED_ADDR 0x20390000u
#define BOARD_SEED_MAX 4096u
/** Where it puts the trust store, the CA certificates a wss:// server is checked against:
 *  a little-endian 32-bit length, then that much PEM text. */
#define BOARD_TRUST_ADDR 0x203A0000u
#define BOARD_TRUST_MAX (64u * 1024u)

/** The CPU clock (the FPGA image's SYSCLK). */
#define BOARD_CPU_HZ 25000000u

typedef struct {
    uint32_t rx_frames;   /**< frames handed to lwIP */
    uint32_t rx_dropped;  /**< no pbuf, too long, or an error status: read and thrown away */
    uint32_t tx_frames;
    uint32_t tx_dropped;  /**< no room in the controller's FIFO */
} board_net_stats_t;

/** The FPU, the console (UART0) and the millisecond clock (SysTick). */
void board_init(void);
const char *board_name(void);

/** Milliseconds since board_init(). */
uint64_t board_now_ms(void);
/** Sleeps until the next interrupt (the next millisecond's tick at the latest). */
void board_idle(void);

/** Writes @p n bytes to the console (UART0: QEMU's -serial), waiting for room. */
void board_console_write(const char *s, size_t n);
/** The next byte typed on the console (UART0's receiver: QEMU's stdin), or -1 if none waits.
 *  Polled: the UART holds one byte, so a caller reads every turn of its loop. */
int board_console_getc(void);

/** The configuration block: its text up to its NUL, or "" when the loader put none. */
const char *board_config_text(void);
/** The entropy seed the loader put in RAM (@p seed) and its length; 0 when none. */
size_t board_seed(const uint8_t **seed);

/** The trust store the loader put in RAM (@p pem, PEM text, not NUL-terminated) and its
 *  length; 0 when none. */
size_t board_trust(const char **pem);

/** The user LED (FPGAIO LED0). */
void board_led(bool on);

/** The MAC address board_netif_init() gives the controller (before netif_add). */
void board_set_mac(const uint8_t mac[6]);
/** netif_add()'s init: resets the LAN9118, sets its MAC address, enables RX and TX. */
err_t board_netif_init(struct netif *nif);
/** Hands up to @p max_frames of the frames the controller received to lwIP (netif->input);
 *  the rest wait in its FIFO (about 10 KiB), which is the board's back-pressure: a caller that
 *  takes a few at a time and consumes them drops nothing a burst brings. @return how many. */
size_t board_net_poll(struct netif *nif, size_t max_frames);
void board_net_stats(board_net_stats_t *out);

/** The main stack's size and the most of it ever used (the stack is painted at reset). */
size_t board_stack_size(void);
size_t board_stack_high_water(void);

#endif /* ZQ_BOARD_MPS2_AN386_H */
