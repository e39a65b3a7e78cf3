/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long mod_pos(long x, long y) { if (y == 0) return 0; long r = x % y; if (r < 0) r += (y < 0 ? -y : y); return r; }
