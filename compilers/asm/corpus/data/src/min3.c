/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long min3(long x, long y, long z) { long m = x; if (y < m) m = y; if (z < m) m = z; return m; }
