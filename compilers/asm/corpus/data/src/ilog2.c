/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long ilog2(unsigned long x) { long r = -1; while (x) { x >>= 1; r++; } return r; }
