/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long gray_code(unsigned long x) { return x ^ (x >> 1); }
