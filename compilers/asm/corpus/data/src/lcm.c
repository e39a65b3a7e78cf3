/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long lcm(long x, long y) {
  if (x < 0) x = -x; if (y < 0) y = -y; if (x == 0 || y == 0) return 0;
  long a = x, b = y; while (b != 0) { long t = a % b; a = b; b = t; } return x / a * y;
}
