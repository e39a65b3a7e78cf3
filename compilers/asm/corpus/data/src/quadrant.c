/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long quadrant(long x, long y) { if (x >= 0) return y >= 0 ? 1 : 4; return y >= 0 ? 2 : 3; }
