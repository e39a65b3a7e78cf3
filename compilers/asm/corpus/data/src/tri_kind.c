/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long tri_kind(long x, long y, long z) {
  if (x <= 0 || y <= 0 || z <= 0) return 0;
  if (x + y <= z || y + z <= x || x + z <= y) return 0;
  if (x == y && y == z) return 3;
  if (x == y || y == z || x == z) return 2;
  return 1;
}
