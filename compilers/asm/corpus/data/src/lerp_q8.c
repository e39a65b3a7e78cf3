/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long lerp_q8(long x, long y, long t) { t &= 255; return x + (((y - x) * t) >> 8); }
