/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long array_reverse(long *p, long n) { for (long i = 0, j = n - 1; i < j; i++, j--) { long t = p[i]; p[i] = p[j]; p[j] = t; } return n; }
