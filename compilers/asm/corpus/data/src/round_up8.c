/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long round_up8(unsigned long x) { return (x + 7) & ~7UL; }
