/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long rotl13(unsigned long x) { return (x << 13) | (x >> 51); }
