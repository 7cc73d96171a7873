/* The board's Ethernet: an lwIP netif over the SMSC LAN9118 at 0x40200000 (the AN386's
 * LAN9220 is register-compatible; SMSC LAN9118 datasheet rev. 1.5, section 5), polled.
 *
 * Receive: each frame waits in the controller's RX data FIFO with its status in the RX status
 * FIFO (5.3.1); board_net_poll() reads every waiting one into a pbuf of lwIP's pool, without
 * its 4-byte FCS, and hands it to netif->input. A frame lwIP has no pbuf for, or one with an
 * error status, is read out and counted as dropped: the FIFO never stalls.
 * Transmit: TX command A (first and last segment, the length) and B (the frame's length) then
 * the frame in 32-bit little-endian words (5.4.1), one segment per frame.
 *
 * What QEMU's model (hw/net/lan9118.c) does not need and a real chip does is done anyway:
 * waiting for READY after reset (PMT_CTRL bit 0), the MAC CSR busy bit, TX_ON. What a real
 * chip needs and this leaves out: the PHY's auto-negotiation (QEMU's link is up at once; a
 * real board reads the PHY's status over MII and sets the link from it) and the RX status
 * error bits beyond the error summary. */
#include <string.h>

#include "board.h"
#include "lwip/etharp.h"
#include "lwip/pbuf.h"
#include "netif/ethernet.h"

#define LAN_BASE 0x40200000u
#define REG(off) (*(volatile uint32_t *)(LAN_BASE + (off)))

#define RX_DATA_FIFO REG(0x00)
#define TX_DATA_FIFO REG(0x20)
#define RX_STATUS_FIFO REG(0x40)
#define TX_STATUS_FIFO REG(0x48)
#define BYTE_TEST REG(0x64)
#define TX_CFG REG(0x70)
#define HW_CFG REG(0x74)
#define RX_FIFO_INF REG(0x7c)
#define TX_FIFO_INF REG(0x80)
#define PMT_CTRL REG(0x84)
#define MAC_CSR_CMD REG(0xa4)
#define MAC_CSR_DATA REG(0xa8)

#define BYTE_TEST_VALUE 0x87654321u
#define HW_CFG_SRST 1u
#define PMT_CTRL_READY 1u
#define TX_CFG_TX_ON 0x2u
#define TX_CFG_TXSAO 0x4u /* the TX status FIFO may overrun: statuses are not read */
#define MAC_CSR_BUSY 0x80000000u
#define MAC_CSR_READ 0x40000000u
#define MAC_CR 1u
#define MAC_ADDRH 2u
#define MAC_ADDRL 3u
#define MAC_CR_TXEN 0x8u
#define MAC_CR_RXEN 0x4u
#define MAC_CR_FDPX 0x100000u
#define TX_CMD_A_FIRST 0x2000u
#define TX_CMD_A_LAST 0x1000u
#define RX_STS_ERROR 0x8000u
#define FCS_LEN 4u
#define FRAME_MAX 1518u /* with the FCS */
#define SPIN_MAX 100000u

static uint8_t mac_address[6] = {0x02, 0, 0, 0, 0, 0x01};
static board_net_stats_t stats;

void board_set_mac(const uint8_t mac[6])
{
    memcpy(mac_address, mac, sizeof mac_address);
}

void board_net_stats(board_net_stats_t *out)
{
    *out = stats;
}

static bool mac_csr_idle(void)
{
    for (uint32_t i = 0; i < SPIN_MAX; i++) {
        if ((MAC_CSR_CMD & MAC_CSR_BUSY) == 0) {
            return true;
        }
    }
    return false;
}

static bool mac_write(uint32_t reg, uint32_t value)
{
    if (!mac_csr_idle()) {
        return false;
    }
    MAC_CSR_DATA = value;
    MAC_CSR_CMD = MAC_CSR_BUSY | reg;
    return mac_csr_idle();
}

static bool reset(void)
{
    if (BYTE_TEST != BYTE_TEST_VALUE) {
        return false; /* no controller, or the bus is not 32-bit little-endian */
    }
    HW_CFG = HW_CFG_SRST;
    for (uint32_t i = 0; i < SPIN_MAX; i++) {
        if ((HW_CFG & HW_CFG_SRST) == 0 && (PMT_CTRL & PMT_CTRL_READY) != 0) {
            return true;
        }
    }
    return false;
}

/* Writes the frame in @p p into the TX data FIFO as little-endian words. */
static void write_frame(const struct pbuf *p)
{
    uint32_t word = 0;
    unsigned filled = 0;
    for (const struct pbuf *q = p; q != NULL; q = q->next) {
        const uint8_t *b = q->payload;
        for (u16_t i = 0; i < q->len; i++) {
            word |= (uint32_t)b[i] << (8u * filled);
            if (++filled == 4) {
                TX_DATA_FIFO = word;
                word = 0;
                filled = 0;
            }
        }
    }
    if (filled > 0) {
        TX_DATA_FIFO = word;
    }
}

static err_t link_output(struct netif *nif, struct pbuf *p)
{
    (void)nif;
    uint32_t len = p->tot_len;
    /* TX_FIFO_INF's low half: free bytes of the data FIFO; the two command words need 8. */
    if (len > FRAME_MAX - FCS_LEN || (TX_FIFO_INF & 0xffffu) < len + 8u) {
        stats.tx_dropped++;
        return ERR_MEM;
    }
    TX_DATA_FIFO = TX_CMD_A_FIRST | TX_CMD_A_LAST | len;
    TX_DATA_FIFO = (len << 16) | len; /* B: the packet tag (its length) and its length */
    write_frame(p);
    stats.tx_frames++;
    return ERR_OK;
}

err_t board_netif_init(struct netif *nif)
{
    if (!reset()) {
        return ERR_IF;
    }
    uint32_t low = (uint32_t)mac_address[0] | (uint32_t)mac_address[1] << 8 |
                   (uint32_t)mac_address[2] << 16 | (uint32_t)mac_address[3] << 24;
    uint32_t high = (uint32_t)mac_address[4] | (uint32_t)mac_address[5] << 8;
    if (!mac_write(MAC_ADDRL, low) || !mac_write(MAC_ADDRH, high) ||
        !mac_write(MAC_CR, MAC_CR_TXEN | MAC_CR_RXEN | MAC_CR_FDPX)) {
        return ERR_IF;
    }
    TX_CFG = TX_CFG_TX_ON | TX_CFG_TXSAO;
    memcpy(nif->hwaddr, mac_address, sizeof mac_address);
    nif->hwaddr_len = ETH_HWADDR_LEN;
    nif->mtu = 1500;
    nif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
    nif->name[0] = 'e';
    nif->name[1] = 'n';
    nif->output = etharp_output;
    nif->linkoutput = link_output;
    return ERR_OK;
}

/* Reads @p words words of one frame: into @p p (the first @p keep bytes), the rest dropped. */
static void read_frame(struct pbuf *p, uint32_t words, uint32_t keep)
{
    for (uint32_t i = 0; i < words; i++) {
        uint32_t word = RX_DATA_FIFO;
        uint32_t at = 4u * i;
        if (p != NULL && at < keep) {
            uint32_t n = keep - at < 4u ? keep - at : 4u;
            (void)pbuf_take_at(p, &word, (u16_t)n, (u16_t)at); /* little-endian: bytes in order */
        }
    }
}

size_t board_net_poll(struct netif *nif, size_t max_frames)
{
    size_t n = 0;
    /* RX_FIFO_INF bits 23:16: statuses waiting, one per frame (5.3.27). */
    for (; n < max_frames && (RX_FIFO_INF >> 16 & 0xffu) != 0; n++) {
        uint32_t status = RX_STATUS_FIFO;
        uint32_t len = status >> 16 & 0x3fffu; /* with the FCS */
        uint32_t words = (len + 3u) / 4u;
        bool good = (status & RX_STS_ERROR) == 0 && len > FCS_LEN && len <= FRAME_MAX;
        struct pbuf *p = good ? pbuf_alloc(PBUF_RAW, (u16_t)(len - FCS_LEN), PBUF_POOL) : NULL;
        read_frame(p, words, good ? len - FCS_LEN : 0);
        if (p == NULL) {
            stats.rx_dropped++;
            continue;
        }
        if (nif->input(p, nif) != ERR_OK) {
            pbuf_free(p);
            stats.rx_dropped++;
            continue;
        }
        stats.rx_frames++;
    }
    return n;
}
