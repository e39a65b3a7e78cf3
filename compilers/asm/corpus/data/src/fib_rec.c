/* archsim asm corpus; written for archsim, BSD-2-Clause. */
static long fibr(long n) { return n < 2 ? n : fibr(n - 1) + fibr(n - 2); }
long fib_rec(long n) { return fibr(n); }
