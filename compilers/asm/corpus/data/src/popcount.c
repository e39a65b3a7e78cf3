/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long popcount(unsigned long x) { long c = 0; while (x) { x &= x - 1; c++; } return c; }
