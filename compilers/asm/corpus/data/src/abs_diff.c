/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long abs_diff(long x, long y) { return x > y ? x - y : y - x; }
