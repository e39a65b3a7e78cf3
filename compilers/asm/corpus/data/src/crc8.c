/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long crc8(unsigned long x) {
  unsigned long c = 0;
  for (int i = 0; i < 8; i++) { c ^= (x >> (8 * i)) & 0xff; for (int b = 0; b < 8; b++) c = (c & 0x80) ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff; }
  return c;
}
