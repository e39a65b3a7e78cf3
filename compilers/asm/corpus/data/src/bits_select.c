/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long bits_select(unsigned long x, unsigned long y, unsigned long m) { return (x & m) | (y & ~m); }
