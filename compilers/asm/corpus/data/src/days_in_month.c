/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long days_in_month(long u, long v) {
  long m = v % 12 + 1;
  if (m == 2) return ((u % 4 == 0 && u % 100 != 0) || u % 400 == 0) ? 29 : 28;
  if (m == 4 || m == 6 || m == 9 || m == 11) return 30;
  return 31;
}
