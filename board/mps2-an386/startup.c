/* Reset and exceptions of the MPS2-AN386 board (Armv7-M: the vector table at 0, VTOR's reset
 * value; ARMv7-M Architecture Reference Manual B1.5.3). Reset copies .data from flash, zeroes
 * .bss, gives the FPU to the program (CPACR, B3.2.20), paints the stack for its high-water
 * mark and calls main(). A fault prints where it happened on the console and stops. */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "board_internal.h"

extern uint32_t __data_start, __data_end, __data_load, __bss_start, __bss_end;
extern uint32_t __stack_bottom, __stack_top;

int main(void);
void Reset_Handler(void);
void Fault_Handler(void);
void SysTick_Handler(void);

#define CPACR (*(volatile uint32_t *)0xE000ED88u)
#define CFSR (*(volatile uint32_t *)0xE000ED28u)

/* Below the caller's frame: Reset_Handler's own few words stay unpainted. */
#define PAINT_MARGIN 64u

static void paint_stack(void)
{
    uint32_t *p = &__stack_bottom;
    uint32_t *sp;
    __asm volatile("mov %0, sp" : "=r"(sp));
    while (p < sp - PAINT_MARGIN / 4u) {
        *p++ = BOARD_STACK_PAINT;
    }
}

void Reset_Handler(void)
{
    memcpy(&__data_start, &__data_load,
           (size_t)((uintptr_t)&__data_end - (uintptr_t)&__data_start));
    memset(&__bss_start, 0, (size_t)((uintptr_t)&__bss_end - (uintptr_t)&__bss_start));
    CPACR |= 0xFu << 20; /* CP10 and CP11: full access */
    __asm volatile("dsb\n isb");
    paint_stack();
    int rc = main();
    board_halt("main returned", (uint32_t)rc);
}

/* The stacked PC and LR of the faulting code (B1.5.6: the exception frame). */
__attribute__((used)) static void report_fault(const uint32_t *frame)
{
    board_fault(frame[6], frame[5], CFSR);
}

__attribute__((naked)) void Fault_Handler(void)
{
    __asm volatile("tst lr, #4\n"
                   "ite eq\n"
                   "mrseq r0, msp\n"
                   "mrsne r0, psp\n"
                   "b report_fault\n");
}

typedef void (*vector_t)(void);

__attribute__((section(".vectors"), used)) static const vector_t vectors[16 + 32] = {
    (vector_t)(uintptr_t)&__stack_top,
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    0, 0, 0, 0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMonitor */
    0,
    Fault_Handler, /* PendSV */
    SysTick_Handler,
    /* external interrupts: none enabled (the LAN9118 is polled) */
};
