/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long clamp(long x, long lo, long hi) { if (x < lo) return lo; if (x > hi) return hi; return x; }
