/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long gcd(long x, long y) { if (x < 0) x = -x; if (y < 0) y = -y; while (y != 0) { long t = x % y; x = y; y = t; } return x; }
