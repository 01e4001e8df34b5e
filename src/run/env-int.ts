// How an `int` variable of the environment reads (INJ_IGNORE, INJ_DEBUG), the CLI's side of
// preload/spec/environment.yaml's `int`: as C's strtol base 10 reads it, converted to int, the
// value read whole; unset, empty or anything else is the fallback. The shim's side is
// preload/core/env_int.h; test/environment.unit.test.ts runs both on preload/spec/env-int.cases.

// strtol skips what isspace() is in the C locale: space, \t, \n, \v, \f, \r (not Unicode's blanks)
const C_INT = /^[ \t\n\v\f\r]*([+-]?\d+)$/;
const LONG_MAX = (1n << 63n) - 1n;
const LONG_MIN = -(1n << 63n);

export function envInt(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const m = C_INT.exec(value);
  if (!m) return fallback;
  let x = BigInt(m[1]);
  if (x > LONG_MAX) x = LONG_MAX; // strtol's ERANGE: the end of a long's range
  if (x < LONG_MIN) x = LONG_MIN;
  return Number(BigInt.asIntN(32, x)); // (int) x: the low 32 bits
}
