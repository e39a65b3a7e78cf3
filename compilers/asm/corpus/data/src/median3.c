/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long median3(long x, long y, long z) {
  if ((x <= y && y <= z) || (z <= y && y <= x)) return y;
  if ((y <= x && x <= z) || (z <= x && x <= y)) return x;
  return z;
}
