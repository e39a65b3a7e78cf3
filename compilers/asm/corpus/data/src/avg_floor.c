/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long avg_floor(long x, long y) { return (x & y) + ((x ^ y) >> 1); }
