/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long bit_reverse8(unsigned long x) { unsigned long r = 0; for (int i = 0; i < 8; i++) { r = (r << 1) | (x & 1); x >>= 1; } return r; }
