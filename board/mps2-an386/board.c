/* The MPS2-AN386 board: console, clock, idle, the loader's blocks, the LED, the stack's
 * high-water mark (board.h). Register facts: CMSDK APB UART (Arm DDI 0479, 4.2), SysTick
 * (ARMv7-M ARM B3.3), the FPGA image's FPGAIO LED register (AN386 application note, 4.5;
 * QEMU's hw/misc/mps2-fpgaio.c). */
#include "board.h"

#include <string.h>

#include "board_internal.h"
#include "lwip/sys.h"

#define REG(addr) (*(volatile uint32_t *)(addr))

/* UART0 */
#define UART_DATA REG(0x40004000u)
#define UART_STATE REG(0x40004004u)
#define UART_CTRL REG(0x40004008u)
#define UART_BAUDDIV REG(0x40004010u)
#define UART_STATE_TX_FULL 1u
#define UART_STATE_RX_FULL 2u
#define UART_CTRL_TX_EN 1u
#define UART_CTRL_RX_EN 2u
/* SysTick */
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define SYST_CSR_ENABLE_TICKINT_CPUCLK 7u
/* FPGAIO */
#define FPGAIO_LED0 REG(0x40028000u)

extern uint32_t __stack_bottom, __stack_top;

static volatile uint64_t ticks_ms;

void SysTick_Handler(void);
void SysTick_Handler(void)
{
    ticks_ms++;
}

void board_init(void)
{
    /* 115200 baud from 25 MHz; QEMU ignores the rate but wants a divider of 16 or more. */
    UART_BAUDDIV = BOARD_CPU_HZ / 115200u;
    UART_CTRL = UART_CTRL_TX_EN | UART_CTRL_RX_EN;
    SYST_RVR = BOARD_CPU_HZ / 1000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = SYST_CSR_ENABLE_TICKINT_CPUCLK;
}

const char *board_name(void)
{
    return "mps2-an386";
}

uint64_t board_now_ms(void)
{
    /* A 64-bit read is two loads: read until no tick came between them. */
    uint64_t a;
    uint64_t b;
    do {
        a = ticks_ms;
        b = ticks_ms;
    } while (a != b);
    return a;
}

void board_idle(void)
{
    __asm volatile("wfi");
}

/* lwIP's clock (NO_SYS): its timers run from here. */
u32_t sys_now(void)
{
    return (u32_t)board_now_ms();
}

void board_console_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (UART_STATE & UART_STATE_TX_FULL) {
        }
        UART_DATA = (uint8_t)s[i];
    }
}

int board_console_getc(void)
{
    return (UART_STATE & UART_STATE_RX_FULL) ? (int)(UART_DATA & 0xffu) : -1;
}

const char *board_config_text(void)
{
    const char *text = (const char *)BOARD_CONFIG_ADDR;
    /* No block loaded: the RAM is zero (QEMU's RAM starts so), an empty text. */
    return memchr(text, '\0', BOARD_CONFIG_MAX) != NULL ? text : "";
}

size_t board_seed(const uint8_t **seed)
{
    uint32_t len;
    memcpy(&len, (const void *)BOARD_SEED_ADDR, sizeof len);
    *seed = (const uint8_t *)BOARD_SEED_ADDR + sizeof len;
    return len <= BOARD_SEED_MAX ? len : 0; /* a length past the block: none */
}

size_t board_trust(const char **pem)
{
    uint32_t len;
    memcpy(&len, (const void *)BOARD_TRUST_ADDR, sizeof len);
    *pem = (const char *)BOARD_TRUST_ADDR + sizeof len;
    return len <= BOARD_TRUST_MAX ? len : 0; /* a length past the block: none */
}

void board_led(bool on)
{
    FPGAIO_LED0 = on ? 1u : 0u;
}

size_t board_stack_size(void)
{
    return (size_t)((uintptr_t)&__stack_top - (uintptr_t)&__stack_bottom);
}

size_t board_stack_high_water(void)
{
    const uint32_t *p = &__stack_bottom;
    while (p < &__stack_top && *p == BOARD_STACK_PAINT) {
        p++;
    }
    return (size_t)((uintptr_t)&__stack_top - (uintptr_t)p);
}

static void write_hex(uint32_t v)
{
    char text[11] = "0x";
    for (int i = 0; i < 8; i++) {
        text[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 0xFu];
    }
    text[10] = ' ';
    board_console_write(text, sizeof text);
}

void board_halt(const char *what, uint32_t value)
{
    board_console_write("\nboard: halted: ", 16);
    board_console_write(what, strlen(what));
    board_console_write(" ", 1);
    write_hex(value);
    board_console_write("\n", 1);
    for (;;) {
        __asm volatile("cpsid i\n wfi");
    }
}

void board_fault(uint32_t pc, uint32_t lr, uint32_t cfsr)
{
    board_console_write("\nboard: fault at pc ", 20);
    write_hex(pc);
    board_console_write("lr ", 3);
    write_hex(lr);
    board_halt("CFSR", cfsr);
}

void board_lwip_assert(const char *message, const char *file, int line)
{
    board_console_write("\nboard: lwIP assertion: ", 24);
    board_console_write(message, strlen(message));
    board_console_write(" at ", 4);
    board_console_write(file, strlen(file));
    board_halt("line", (uint32_t)line);
}
