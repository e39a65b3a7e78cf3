/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long insertion_sort(long *p, long n) {
  for (long i = 1; i < n; i++) { long k = p[i], j = i - 1; while (j >= 0 && p[j] > k) { p[j + 1] = p[j]; j--; } p[j + 1] = k; }
  return n;
}
