/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long factorial(long n) { long f = 1; for (long i = 2; i <= n; i++) f *= i; return f; }
