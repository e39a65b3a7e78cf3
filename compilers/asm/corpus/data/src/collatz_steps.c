/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long collatz_steps(long n) { long x = n + 1, s = 0; while (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; s++; } return s; }
