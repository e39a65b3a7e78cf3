/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long bswap16(unsigned long x) { return ((x & 0xff) << 8) | ((x >> 8) & 0xff); }
