/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long binary_search(long *p, long n, long x) {
  for (long i = 1; i < n; i++) if (p[i] < p[i - 1]) p[i] = p[i - 1];
  long lo = 0, hi = n - 1;
  while (lo <= hi) { long mid = lo + (hi - lo) / 2; if (p[mid] == x) return mid; if (p[mid] < x) lo = mid + 1; else hi = mid - 1; }
  return -1;
}
