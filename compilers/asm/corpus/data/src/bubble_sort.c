/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long bubble_sort(long *p, long n) {
  for (long i = 0; i < n; i++) for (long j = 0; j + 1 < n - i; j++) if (p[j] > p[j + 1]) { long t = p[j]; p[j] = p[j + 1]; p[j + 1] = t; }
  return n;
}
