/**
 * Exact Kubernetes resource quantities, behaving like k8s.io/apimachinery/pkg/api/resource
 * (quantity.go, suffix.go, amount.go).
 *
 * A quantity is `<signedNumber><suffix>` where the suffix is binary SI (Ki … Ei), decimal SI
 * (n, u, m, "", k, M, G, T, P, E) or a decimal exponent (`e3`, `E-3`, `e+6`). Values are held as
 * an exact `unscaled × 10^exponent` with a bigint mantissa — never as a float — and, like
 * upstream, rounded up (away from zero) to nano precision when parsed. Binary SI amounts are
 * capped at 2^63-1, exactly as ParseQuantity does.
 *
 * Worked examples (parse → value → how Kubernetes prints it):
 *   "1.5Gi"  → 1610612736          → "1536Mi"
 *   "1.5"    → 1.5                 → "1500m"
 *   "100m"   → 0.1                 → "100m"   (milliValue 100)
 *   "0.1m"   → 0.0001              → "100u"   (milliValue rounds UP to 1)
 *   "1e3"    → 1000                → "1e3"    (DecimalExponent keeps its format)
 *   "9Ei"    → 9223372036854775807 (capped)
 *
 * Printing follows Quantity.String(): when upstream's fast parse path keeps the input string
 * (it is already canonical for its format) that string is printed verbatim, otherwise the
 * canonical form is computed (CanonicalizeBytes).
 */

/** The three serialisation formats of a quantity (quantity.go `Format`). */
export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** The split regular expression upstream quotes in its format error. */
export const QUANTITY_REGEX_STRING = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** Upstream's error texts (quantity.go ErrFormatWrong / ErrNumeric / ErrSuffix). */
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_REGEX_STRING}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

/** Thrown for a string that is not a quantity; `message` is upstream's error text. */
export class QuantityParseError extends Error {
  constructor(
    message: string,
    /** the rejected input */
    readonly input: string,
  ) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

const MAX_INT64 = (1n << 63n) - 1n;
const MAX_INT32 = 2147483647;
/** Beyond 10^this a value is not materialised as a bigint (Go would overflow int64 long before). */
const MAX_MATERIALISED_EXPONENT = 4000;

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['n', -9],
  ['u', -6],
  ['m', -3],
  ['', 0],
  ['k', 3],
  ['M', 6],
  ['G', 9],
  ['T', 12],
  ['P', 15],
  ['E', 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ['Ki', 10],
  ['Mi', 20],
  ['Gi', 30],
  ['Ti', 40],
  ['Pi', 50],
  ['Ei', 60],
]);
const DECIMAL_SUFFIX_BY_EXPONENT = new Map<number, string>([...DECIMAL_SUFFIXES].map(([s, e]) => [e, s]));
const BINARY_SUFFIX_BY_EXPONENT = new Map<number, string>([...BINARY_SUFFIXES].map(([s, e]) => [e, s]));
const SUFFIX_CHARS = 'eEinumkKMGTP';

const POW10: bigint[] = [];
function pow10(n: number): bigint {
  if (n < 64) {
    let p = POW10[n];
    if (p === undefined) {
      p = 10n ** BigInt(n);
      POW10[n] = p;
    }
    return p;
  }
  if (n > MAX_MATERIALISED_EXPONENT)
    throw new RangeError(`quantity exponent 10^${n} is too large to materialise`);
  return 10n ** BigInt(n);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Scale `value` down by 10^k, rounding away from zero (int64Amount's negativeScaleInt64). */
function divRoundAway(value: bigint, k: number): bigint {
  if (k <= 0) return value * pow10(-k);
  if (value === 0n) return 0n;
  const neg = value < 0n;
  const mag = neg ? -value : value;
  // more digits to drop than the magnitude has → the result is the smallest step (1)
  if (k > mag.toString().length) return neg ? -1n : 1n;
  const d = pow10(k);
  let q = mag / d;
  if (q * d !== mag) q += 1n;
  return neg ? -q : q;
}

/**
 * An exact quantity: `unscaled × 10^exponent`, normalised so that `unscaled` has no trailing
 * decimal zeros (zero is `0 × 10^0`). Immutable.
 */
export class Quantity {
  /** signed mantissa without trailing zeros */
  readonly unscaled: bigint;
  /** power of ten */
  readonly exponent: number;
  readonly format: QuantityFormat;
  /** the input string when upstream would keep it for String(); otherwise computed lazily */
  private cached: string | undefined;

  /** Build from `unscaled × 10^exponent` (normalised here). Prefer {@link parseQuantity}. */
  constructor(unscaled: bigint, exponent: number, format: QuantityFormat, printed?: string) {
    if (unscaled === 0n) exponent = 0;
    else {
      while (unscaled % 10n === 0n) {
        unscaled /= 10n;
        exponent++;
      }
    }
    this.unscaled = unscaled;
    this.exponent = exponent;
    this.format = format;
    this.cached = printed;
  }

  /** -1, 0 or 1. */
  sign(): -1 | 0 | 1 {
    return this.unscaled === 0n ? 0 : this.unscaled < 0n ? -1 : 1;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  /**
   * ceil(q / 10^scale) rounded away from zero, exact (ScaledValue). `scale` is a power of ten:
   * 0 for Value, -3 for MilliValue, -9 for nano.
   * @throws RangeError when the result would have more than ~4000 digits
   */
  scaledValue(scale: number): bigint {
    return divRoundAway(this.unscaled, scale - this.exponent);
  }

  /** The value rounded up (away from zero) to an integer, exactly as Quantity.Value(). */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** ceil(q × 1000) (away from zero), exactly as Quantity.MilliValue(). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /** Compare exactly: -1, 0, 1. */
  cmp(other: Quantity): -1 | 0 | 1 {
    const e = Math.min(this.exponent, other.exponent);
    const a = this.unscaled * pow10(this.exponent - e);
    const b = other.unscaled * pow10(other.exponent - e);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  /** Exact sum; keeps this quantity's format unless it is zero (Quantity.Add). */
  add(other: Quantity): Quantity {
    const e = Math.min(this.exponent, other.exponent);
    const sum = this.unscaled * pow10(this.exponent - e) + other.unscaled * pow10(other.exponent - e);
    return new Quantity(sum, e, this.isZero() ? other.format : this.format);
  }

  /** Exact difference; keeps this quantity's format unless it is zero (Quantity.Sub). */
  sub(other: Quantity): Quantity {
    return this.add(other.neg());
  }

  /** The negated quantity (same format). */
  neg(): Quantity {
    return new Quantity(-this.unscaled, this.exponent, this.format);
  }

  /** How Kubernetes prints this quantity (Quantity.String / MarshalJSON). */
  toString(): string {
    if (this.cached === undefined) this.cached = this.canonicalString();
    return this.cached;
  }

  toJSON(): string {
    return this.toString();
  }

  /** The canonical form (CanonicalizeBytes), ignoring any kept input string. */
  canonicalString(): string {
    if (this.unscaled === 0n) return '0';
    if (this.format === 'BinarySI') {
      const small = this.cmp(SMALL_BINARY_BOUND) < 0 && this.cmp(SMALL_BINARY_BOUND_NEG) > 0;
      if (!small && this.exponent >= 0) {
        // integral: express in powers of 1024
        let n = this.unscaled * pow10(this.exponent);
        const neg = n < 0n;
        if (neg) n = -n;
        let times = 0;
        while (n >= 1024n && n % 1024n === 0n) {
          n /= 1024n;
          times++;
        }
        const suffix = times === 0 ? '' : BINARY_SUFFIX_BY_EXPONENT.get(times * 10);
        if (suffix !== undefined) return (neg ? '-' : '') + n.toString() + suffix;
        // past Ei: upstream falls back to the exact decimal form
        return this.decimalString('DecimalExponent');
      }
      // -1024 < q < 1024 or fractional: shown as DecimalSI so nothing is rounded
      return this.decimalString('DecimalSI');
    }
    return this.decimalString(this.format);
  }

  private decimalString(format: 'DecimalSI' | 'DecimalExponent'): string {
    let mantissa = this.unscaled;
    let exponent = this.exponent;
    // exponent down to a multiple of three (floor), as AsCanonicalBytes
    const r = ((exponent % 3) + 3) % 3;
    if (r !== 0) {
      mantissa *= r === 1 ? 10n : 100n;
      exponent -= r;
    }
    if (format === 'DecimalSI') {
      const suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent);
      if (suffix !== undefined) return mantissa.toString() + suffix;
      // no SI suffix beyond E or below n: exponent notation
    }
    return exponent === 0 ? mantissa.toString() : `${mantissa}e${exponent}`;
  }
}

const SMALL_BINARY_BOUND = new Quantity(1024n, 0, 'DecimalSI');
const SMALL_BINARY_BOUND_NEG = new Quantity(-1024n, 0, 'DecimalSI');

/** Parsed pieces of a quantity string (parseQuantityString). */
interface Scanned {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
}

/** A faithful port of parseQuantityString's scanner; returns an error text on failure. */
function scan(str: string): Scanned | string {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    const c = str.charCodeAt(0);
    if (c === 45 /* - */) {
      positive = false;
      pos++;
    } else if (c === 43 /* + */) pos++;
  }
  // strip leading zeros; all zeros → 0
  while (pos < end && str.charCodeAt(pos) === 48) pos++;
  if (pos >= end) return { positive, num: '0', denom: '', suffix: '' };

  let i = pos;
  while (i < end && isDigit(str.charCodeAt(i))) i++;
  let num = str.slice(pos, i);
  pos = i;
  if (pos >= end) return { positive, num: num.length ? num : '0', denom: '', suffix: '' };
  if (num.length === 0) num = '0';

  let denom = '';
  if (str.charCodeAt(pos) === 46 /* . */) {
    pos++;
    i = pos;
    while (i < end && isDigit(str.charCodeAt(i))) i++;
    denom = str.slice(pos, i);
    pos = i;
    if (pos >= end) return { positive, num, denom, suffix: '' };
  }

  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos]!)) pos++;
  if (pos >= end) return { positive, num, denom, suffix: str.slice(suffixStart) };
  const c = str.charCodeAt(pos);
  if (c === 45 || c === 43) pos++;
  while (pos < end && isDigit(str.charCodeAt(pos))) pos++;
  if (pos >= end) return { positive, num, denom, suffix: str.slice(suffixStart) };
  return ERR_FORMAT_WRONG;
}

/** suffixer.interpret: base, exponent and format of a suffix, or undefined. */
function interpret(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  const d = DECIMAL_SUFFIXES.get(suffix);
  if (d !== undefined) return { base: 10, exponent: d, format: 'DecimalSI' };
  const b = BINARY_SUFFIXES.get(suffix);
  if (b !== undefined) return { base: 2, exponent: b, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const n = Number(rest);
    // an exponent outside int32 is rejected rather than truncated (TestInterpretExponentInt32Bounds)
    if (!Number.isSafeInteger(n) || n > MAX_INT32 || n < -MAX_INT32) return undefined;
    return { base: 10, exponent: n, format: 'DecimalExponent' };
  }
  return undefined;
}

/**
 * Which input strings upstream's fast path keeps verbatim for String(): the int64 path
 * (precision ≥ 0, scale ≥ nano, no overflow) with an already-canonical mantissa.
 */
function keepsInputString(s: Scanned, base: 2 | 10, exponent: number): boolean {
  const digits = s.num.length + s.denom.length;
  if (base === 10) {
    if (18 - digits < 0) return false;
    const scale = exponent - s.denom.length;
    if (scale < -9) return false;
    const shifted = s.num + s.denom;
    const v = BigInt(shifted);
    if (v > MAX_INT64) return false;
    return ((scale % 3) + 3) % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
  }
  if (s.denom.length !== 0) return false;
  // float32 arithmetic in upstream; exact for these small exponents
  if (15 - s.num.length - Math.trunc((exponent * 3) / 10) - 1 < 0) return false;
  const v = BigInt(s.num);
  if (v << BigInt(exponent) > MAX_INT64) return false;
  return exponent % 10 === 0 && (v & 7n) !== 0n;
}

/**
 * Parse a Kubernetes quantity exactly like resource.ParseQuantity. Numbers (from YAML/JSON
 * `cpu: 2` or `cpu: 0.5`) are parsed from their shortest decimal representation.
 * @throws QuantityParseError with upstream's message
 */
export function parseQuantity(input: string | number): Quantity {
  let str: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw new QuantityParseError(ERR_FORMAT_WRONG, String(input));
    str = String(input).replace('e+', 'e');
  } else if (typeof input === 'string') {
    str = input;
  } else {
    throw new QuantityParseError(ERR_FORMAT_WRONG, String(input));
  }
  if (str.length === 0) throw new QuantityParseError(ERR_FORMAT_WRONG, str);
  if (str === '0') return new Quantity(0n, 0, 'DecimalSI', '0');

  const scanned = scan(str);
  if (typeof scanned === 'string') throw new QuantityParseError(scanned, str);
  const suffix = interpret(scanned.suffix);
  if (!suffix) throw new QuantityParseError(ERR_SUFFIX, str);
  let format = suffix.format;

  // exact amount = (num.denom) × base^exponent
  let unscaled = BigInt(scanned.num + scanned.denom);
  let exponent = -scanned.denom.length;
  if (suffix.base === 10) exponent += suffix.exponent;
  else unscaled <<= BigInt(suffix.exponent);

  // round non-zero values up (away from zero) to nano
  if (unscaled !== 0n && exponent < -9) {
    unscaled = divRoundAway(unscaled, -9 - exponent);
    exponent = -9;
  }
  if (format === 'BinarySI' && unscaled !== 0n) {
    // cap at 2^63-1 (BinarySI only, as upstream)
    const aboveMax =
      exponent > 19 ||
      (exponent >= 0 ? unscaled * pow10(exponent) > MAX_INT64 : unscaled > MAX_INT64 * pow10(-exponent));
    if (aboveMax) {
      unscaled = MAX_INT64;
      exponent = 0;
    } else if (exponent < 0 && unscaled < pow10(-exponent)) {
      // 0 < amount < 1: shown as DecimalSI to avoid rounding
      format = 'DecimalSI';
    }
  }
  if (!scanned.positive) unscaled = -unscaled;
  const printed = keepsInputString(scanned, suffix.base, suffix.exponent) ? str : undefined;
  return new Quantity(unscaled, exponent, format, printed);
}

/** Like {@link parseQuantity} but returns the error message instead of throwing. */
export function tryParseQuantity(input: unknown): Quantity | string {
  if (typeof input !== 'string' && typeof input !== 'number') return ERR_FORMAT_WRONG;
  try {
    return parseQuantity(input);
  } catch (e) {
    if (e instanceof QuantityParseError) return e.message;
    if (e instanceof RangeError) return e.message;
    throw e;
  }
}

function asQuantity(q: Quantity | string | number): Quantity {
  return q instanceof Quantity ? q : parseQuantity(q);
}

function toSafeNumber(v: bigint, what: string, q: Quantity): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`${what} of quantity ${q.toString()} is outside the safe integer range`);
  }
  return Number(v);
}

/**
 * CPU in millicores (MilliValue, rounded up), as a safe-integer number.
 * `cpuMillis("100m") === 100`, `cpuMillis("1.5") === 1500`, `cpuMillis(2) === 2000`.
 * @throws QuantityParseError for a malformed string, RangeError beyond 2^53
 */
export function cpuMillis(q: Quantity | string | number): number {
  const quantity = asQuantity(q);
  return toSafeNumber(quantity.milliValue(), 'milli value', quantity);
}

/**
 * Bytes (Value, rounded up), as a safe-integer number: `bytes("1.5Gi") === 1610612736`.
 * Also right for any integral resource (pods, ephemeral-storage, extended resources).
 * @throws QuantityParseError for a malformed string, RangeError beyond 2^53
 */
export function bytes(q: Quantity | string | number): number {
  const quantity = asQuantity(q);
  return toSafeNumber(quantity.value(), 'value', quantity);
}

/** How Kubernetes prints a quantity: `formatQuantity("1.5Gi") === "1536Mi"`. */
export function formatQuantity(q: Quantity | string | number): string {
  return asQuantity(q).toString();
}

/** A quantity from a millivalue, DecimalSI (NewMilliQuantity). */
export function milliQuantity(millis: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return new Quantity(BigInt(millis), -3, format);
}

/** A quantity from an integer value (NewQuantity). */
export function intQuantity(value: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return new Quantity(BigInt(value), 0, format);
}
