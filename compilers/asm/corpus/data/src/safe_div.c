/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long safe_div(long x, long y) { if (y == 0) return 0; return x / y; }
