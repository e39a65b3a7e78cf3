/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long isqrt(long u) { if (u < 0) return -1; long r = 0; while ((r + 1) * (r + 1) <= u) r++; return r; }
