/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long poly3(long x) { return 3 * x * x * x - 5 * x * x + 7 * x - 11; }
