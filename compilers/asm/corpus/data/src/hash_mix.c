/* archsim asm corpus; written for archsim, BSD-2-Clause. */
unsigned long hash_mix(unsigned long x) {
  x ^= x >> 33; x *= 0x45d9f3bUL; x ^= x >> 29; x *= 0x119de1f3UL; x ^= x >> 32;
  return x;
}
