import { describe, expect, it } from 'vitest';
import {
  ERR_FORMAT_WRONG,
  ERR_SUFFIX,
  Quantity,
  type QuantityFormat,
  bytes,
  cpuMillis,
  formatQuantity,
  parseQuantity,
  tryParseQuantity,
} from '../../src/api/quantity.js';

const dec = (i: bigint | number, exp: number, format: QuantityFormat) => new Quantity(BigInt(i), exp, format);
const MAX = (1n << 63n) - 1n;

// upstream quantity_test.go TestQuantityParse table
const parseTable: Array<[string, Quantity]> = [
  ['0', dec(0, 0, 'DecimalSI')],
  ['0n', dec(0, 0, 'DecimalSI')],
  ['0u', dec(0, 0, 'DecimalSI')],
  ['0m', dec(0, 0, 'DecimalSI')],
  ['0Ki', dec(0, 0, 'BinarySI')],
  ['0k', dec(0, 0, 'DecimalSI')],
  ['0Mi', dec(0, 0, 'BinarySI')],
  ['0M', dec(0, 0, 'DecimalSI')],
  ['0Gi', dec(0, 0, 'BinarySI')],
  ['0G', dec(0, 0, 'DecimalSI')],
  ['0Ti', dec(0, 0, 'BinarySI')],
  ['0T', dec(0, 0, 'DecimalSI')],
  ['1', dec(1, 0, 'DecimalSI')],
  ['1Ki', dec(1024, 0, 'BinarySI')],
  ['8Ki', dec(8 * 1024, 0, 'BinarySI')],
  ['7Mi', dec(7 * 1024 * 1024, 0, 'BinarySI')],
  ['6Gi', dec(6n * 1024n ** 3n, 0, 'BinarySI')],
  ['5Ti', dec(5n * 1024n ** 4n, 0, 'BinarySI')],
  ['4Pi', dec(4n * 1024n ** 5n, 0, 'BinarySI')],
  ['3Ei', dec(3n * 1024n ** 6n, 0, 'BinarySI')],
  ['10Ti', dec(10n * 1024n ** 4n, 0, 'BinarySI')],
  ['100Ti', dec(100n * 1024n ** 4n, 0, 'BinarySI')],
  ['5n', dec(5, -9, 'DecimalSI')],
  ['4u', dec(4, -6, 'DecimalSI')],
  ['3m', dec(3, -3, 'DecimalSI')],
  ['9', dec(9, 0, 'DecimalSI')],
  ['8k', dec(8, 3, 'DecimalSI')],
  ['50k', dec(5, 4, 'DecimalSI')],
  ['7M', dec(7, 6, 'DecimalSI')],
  ['6G', dec(6, 9, 'DecimalSI')],
  ['5T', dec(5, 12, 'DecimalSI')],
  ['40T', dec(4, 13, 'DecimalSI')],
  ['300T', dec(3, 14, 'DecimalSI')],
  ['2P', dec(2, 15, 'DecimalSI')],
  ['1E', dec(1, 18, 'DecimalSI')],
  ['1E-3', dec(1, -3, 'DecimalExponent')],
  ['1e3', dec(1, 3, 'DecimalExponent')],
  ['1E6', dec(1, 6, 'DecimalExponent')],
  ['1e9', dec(1, 9, 'DecimalExponent')],
  ['1E12', dec(1, 12, 'DecimalExponent')],
  ['1e15', dec(1, 15, 'DecimalExponent')],
  ['1E18', dec(1, 18, 'DecimalExponent')],
  ['1e14', dec(1, 14, 'DecimalExponent')],
  ['1e13', dec(1, 13, 'DecimalExponent')],
  ['100.035k', dec(100035, 0, 'DecimalSI')],
  ['0.001', dec(1, -3, 'DecimalSI')],
  ['0.0005k', dec(5, -1, 'DecimalSI')],
  ['0.005', dec(5, -3, 'DecimalSI')],
  ['0.05', dec(5, -2, 'DecimalSI')],
  ['0.5', dec(5, -1, 'DecimalSI')],
  ['0.00050k', dec(5, -1, 'DecimalSI')],
  ['0.00500', dec(5, -3, 'DecimalSI')],
  ['0.05000', dec(5, -2, 'DecimalSI')],
  ['0.50000', dec(5, -1, 'DecimalSI')],
  ['0.5e0', dec(5, -1, 'DecimalExponent')],
  ['0.5e-1', dec(5, -2, 'DecimalExponent')],
  ['0.5e-2', dec(5, -3, 'DecimalExponent')],
  ['10.035M', dec(10035, 3, 'DecimalSI')],
  ['1.2e3', dec(12, 2, 'DecimalExponent')],
  ['1.3E+6', dec(13, 5, 'DecimalExponent')],
  ['1.40e9', dec(14, 8, 'DecimalExponent')],
  ['1.53E12', dec(153, 10, 'DecimalExponent')],
  ['1.6e15', dec(16, 14, 'DecimalExponent')],
  ['1.7E18', dec(17, 17, 'DecimalExponent')],
  ['9.01', dec(901, -2, 'DecimalSI')],
  ['8.1k', dec(81, 2, 'DecimalSI')],
  ['7.123456M', dec(7123456, 0, 'DecimalSI')],
  ['6.987654321G', dec(6987654321, 0, 'DecimalSI')],
  ['5.444T', dec(5444, 9, 'DecimalSI')],
  ['40.1T', dec(401, 11, 'DecimalSI')],
  ['300.2T', dec(3002, 11, 'DecimalSI')],
  ['2.5P', dec(25, 14, 'DecimalSI')],
  ['1.01E', dec(101, 16, 'DecimalSI')],
  ['3.001n', dec(4, -9, 'DecimalSI')],
  ['1.1E-9', dec(2, -9, 'DecimalExponent')],
  ['0.0000000001', dec(1, -9, 'DecimalSI')],
  ['0.0000000005', dec(1, -9, 'DecimalSI')],
  ['0.00000000050', dec(1, -9, 'DecimalSI')],
  ['0.5e-9', dec(1, -9, 'DecimalExponent')],
  ['0.9n', dec(1, -9, 'DecimalSI')],
  ['0.00000012345', dec(124, -9, 'DecimalSI')],
  ['0.00000012354', dec(124, -9, 'DecimalSI')],
  ['9Ei', dec(MAX, 0, 'BinarySI')],
  ['9223372036854775807Ki', dec(MAX, 0, 'BinarySI')],
  ['53521.375Pi', dec(MAX, 0, 'BinarySI')], // fractional input above the cap (found by the round-trip property test)
  ['12E', dec(12, 18, 'DecimalSI')],
  ['100.035Ki', dec(10243584, -2, 'BinarySI')],
  ['0.5Mi', dec(0.5 * 1024 * 1024, 0, 'BinarySI')],
  ['0.05Gi', dec(536870912, -1, 'BinarySI')],
  ['0.025Ti', dec(274877906944, -1, 'BinarySI')],
  ['0.000000000001Ki', dec(2, -9, 'DecimalSI')],
  ['.001', dec(1, -3, 'DecimalSI')],
  ['.0001k', dec(100, -3, 'DecimalSI')],
  ['1.', dec(1, 0, 'DecimalSI')],
  ['1.G', dec(1, 9, 'DecimalSI')],
];

describe('parseQuantity (upstream TestQuantityParse)', () => {
  it.each(parseTable)('%s', (input, expected) => {
    const got = parseQuantity(input);
    expect(got.cmp(expected)).toBe(0);
    expect(got.format).toBe(expected.format);
    // negative and explicit-plus versions, as upstream checks
    const neg = parseQuantity('-' + input);
    expect(neg.cmp(expected.neg())).toBe(0);
    expect(neg.format).toBe(expected.format);
    const plus = parseQuantity('+' + input);
    expect(plus.cmp(expected)).toBe(0);
    expect(plus.format).toBe(expected.format);
  });

  it('rejects the empty string', () => {
    expect(() => parseQuantity('')).toThrow(ERR_FORMAT_WRONG);
  });

  const invalid = [
    '1.1.M',
    '1+1.0M',
    '0.1mi',
    '0.1am',
    'aoeu',
    '.5i',
    '1i',
    '-3.01i',
    '-3.01e-',
    '1e4294967297',
    ' 1',
    '1 ',
    '1.5x',
    '1K',
    '1e',
  ];
  it.each(invalid)('rejects %j', (input) => {
    expect(() => parseQuantity(input)).toThrow();
    expect(typeof tryParseQuantity(input)).toBe('string');
  });

  it('uses upstream error texts', () => {
    expect(tryParseQuantity('1.5x')).toBe(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    expect(tryParseQuantity('0.1mi')).toBe(ERR_SUFFIX);
    expect(tryParseQuantity('1K')).toBe("unable to parse quantity's suffix");
  });

  it('accepts int32 exponent bounds and rejects beyond (TestInterpretExponentInt32Bounds)', () => {
    expect(typeof tryParseQuantity('1E2147483647')).not.toBe('string');
    expect(parseQuantity('1E-2147483647').cmp(dec(1, -9, 'DecimalSI'))).toBe(0);
    expect(typeof tryParseQuantity('1E2147483648')).toBe('string');
    expect(typeof tryParseQuantity('1E-2147483648')).toBe('string');
  });

  it('parses JSON/YAML numbers', () => {
    expect(cpuMillis(2)).toBe(2000);
    expect(cpuMillis(0.5)).toBe(500);
    expect(bytes(1e21 / 1e12)).toBe(1e9);
    expect(parseQuantity(1e21).toString()).toBe('1e21');
    expect(typeof tryParseQuantity(Number.NaN)).toBe('string');
  });
});

describe('scanner quirks (TestParseQuantityString)', () => {
  it.each([
    ['.', 0n],
    ['-.', 0n],
    ['0.025Ti', 27487790695n],
    ['1E-3', 1n],
  ] as const)('%s', (input, v) => {
    expect(parseQuantity(input).value()).toBe(v);
  });
});

// upstream TestQuantityString: quantity → String(); and the expect string must parse back to itself
const stringTable: Array<[Quantity, string, string]> = [
  [dec(1024 * 1024 * 1024, 0, 'BinarySI'), '1Gi', '1024Mi'],
  [dec(300 * 1024 * 1024, 0, 'BinarySI'), '300Mi', '307200Ki'],
  [dec(6 * 1024, 0, 'BinarySI'), '6Ki', ''],
  [dec(1001n * 1024n ** 3n, 0, 'BinarySI'), '1001Gi', '1025024Mi'],
  [dec(1024n ** 4n, 0, 'BinarySI'), '1Ti', '1024Gi'],
  [dec(5, 0, 'BinarySI'), '5', '5000m'],
  [dec(500, -3, 'BinarySI'), '500m', '0.5'],
  [dec(1, 9, 'DecimalSI'), '1G', '1000M'],
  [dec(1000, 6, 'DecimalSI'), '1G', '0.001T'],
  [dec(1000000, 3, 'DecimalSI'), '1G', ''],
  [dec(1000000000, 0, 'DecimalSI'), '1G', ''],
  [dec(1, -3, 'DecimalSI'), '1m', '1000u'],
  [dec(80, -3, 'DecimalSI'), '80m', ''],
  [dec(1080, -3, 'DecimalSI'), '1080m', '1.08'],
  [dec(108, -2, 'DecimalSI'), '1080m', '1080000000n'],
  [dec(10800, -4, 'DecimalSI'), '1080m', ''],
  [dec(300, 6, 'DecimalSI'), '300M', ''],
  [dec(1, 12, 'DecimalSI'), '1T', ''],
  [dec(1, 18, 'DecimalSI'), '1E', ''],
  [dec(1, 21, 'DecimalSI'), '1e21', '1000E'],
  [dec(5, 21, 'DecimalSI'), '5e21', '5000E'],
  [dec(1, 24, 'DecimalSI'), '1e24', '1000000E'],
  [dec(1, 70, 'BinarySI'), '10e69', ''],
  [dec(2, 70, 'BinarySI'), '20e69', ''],
  [dec(1, 72, 'BinarySI'), '1e72', ''],
  [dec(1234567, 6, 'DecimalSI'), '1234567M', ''],
  [dec(1234567, -3, 'BinarySI'), '1234567m', ''],
  [dec(3, 3, 'DecimalSI'), '3k', ''],
  [dec(1025, 0, 'BinarySI'), '1025', ''],
  [dec(0, 0, 'DecimalSI'), '0', ''],
  [dec(0, 0, 'BinarySI'), '0', ''],
  [dec(1, 9, 'DecimalExponent'), '1e9', '.001e12'],
  [dec(1, -3, 'DecimalExponent'), '1e-3', '0.001e0'],
  [dec(1, -9, 'DecimalExponent'), '1e-9', '1000e-12'],
  [dec(80, -3, 'DecimalExponent'), '80e-3', ''],
  [dec(300, 6, 'DecimalExponent'), '300e6', ''],
  [dec(1, 12, 'DecimalExponent'), '1e12', ''],
  [dec(1, 3, 'DecimalExponent'), '1e3', ''],
  [dec(3, 3, 'DecimalExponent'), '3e3', ''],
  [dec(0, 0, 'DecimalExponent'), '0', '00'],
  [dec(1, -9, 'DecimalSI'), '1n', ''],
  [dec(80, -9, 'DecimalSI'), '80n', ''],
  [dec(1080, -9, 'DecimalSI'), '1080n', ''],
  [dec(108, -8, 'DecimalSI'), '1080n', ''],
  [dec(10800, -10, 'DecimalSI'), '1080n', ''],
  [dec(1, -6, 'DecimalSI'), '1u', ''],
  [dec(80, -6, 'DecimalSI'), '80u', ''],
  [dec(1080, -6, 'DecimalSI'), '1080u', ''],
];

describe('formatting (upstream TestQuantityString)', () => {
  it.each(stringTable)('%s → %s', (q, expected, alternate) => {
    expect(q.toString()).toBe(expected);
    expect(parseQuantity(expected).toString()).toBe(expected);
    if (alternate) expect(formatQuantity(alternate)).toBe(expected);
    if (!q.isZero()) expect(q.neg().toString()).toBe('-' + expected);
  });

  it('prints 2^70 exactly (TestBinarySIPastEiArithmeticRoundTrip)', () => {
    const q = dec(1n << 70n, 0, 'BinarySI');
    expect(q.toString()).toBe('1180591620717411303424');
    expect(parseQuantity(q.toString()).cmp(q)).toBe(0);
  });

  it('prints below nano with exponents (TestQuantityStringBelowNano)', () => {
    expect(dec(1, -12, 'DecimalSI').toString()).toBe('1e-12');
    expect(dec(1, -10, 'DecimalSI').toString()).toBe('100e-12');
  });

  // upstream TestQuantityParseEmit
  it.each([
    ['1Ki', '1Ki'],
    ['1Mi', '1Mi'],
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
  ])('parse+emit %s → %s', (input, out) => {
    expect(formatQuantity(input)).toBe(out);
    expect(formatQuantity('-' + input)).toBe('-' + out);
  });

  it('formats the brief examples', () => {
    expect(formatQuantity('1536Mi')).toBe('1536Mi');
    expect(formatQuantity('1.5Gi')).toBe('1536Mi');
    expect(formatQuantity('100m')).toBe('100m');
    expect(formatQuantity('2')).toBe('2');
    expect(formatQuantity('1.5')).toBe('1500m');
    expect(formatQuantity('0.1')).toBe('100m');
    expect(formatQuantity('2000m')).toBe('2');
    expect(formatQuantity('0.5Mi')).toBe('512Ki');
  });

  it('keeps an input string the fast path keeps (Quantity.s)', () => {
    // already-canonical mantissas keep their exact spelling, like upstream's cached string
    expect(formatQuantity('+1Ki')).toBe('+1Ki');
    expect(formatQuantity('1E3')).toBe('1E3');
    expect(parseQuantity('1E3').canonicalString()).toBe('1e3');
    expect(formatQuantity('1024Ki')).toBe('1Mi');
  });
});

describe('values (MilliValue / Value round up)', () => {
  it.each([
    ['100m', 100n, 1n],
    ['1.5', 1500n, 2n],
    ['0.1m', 1n, 1n],
    ['1n', 1n, 1n],
    ['1.5Gi', 1610612736000n, 1610612736n],
    ['2e3', 2000000n, 2000n],
    ['1E-3', 1n, 1n],
    ['-1.5', -1500n, -2n],
    ['-0.1m', -1n, -1n],
    ['0', 0n, 0n],
    ['9Ei', MAX * 1000n, MAX],
  ] as const)('%s', (input, milli, value) => {
    const q = parseQuantity(input);
    expect(q.milliValue()).toBe(milli);
    expect(q.value()).toBe(value);
  });

  it('upstream TestQuantityRoundUp scaled values', () => {
    const q = parseQuantity('9.01');
    expect(q.scaledValue(-2)).toBe(901n);
    expect(q.scaledValue(-1)).toBe(91n);
    expect(q.scaledValue(0)).toBe(10n);
    expect(q.scaledValue(1)).toBe(1n);
    expect(parseQuantity('-9.01').scaledValue(-1)).toBe(-91n);
  });

  it('convenience numbers', () => {
    expect(cpuMillis('250m')).toBe(250);
    expect(cpuMillis('1')).toBe(1000);
    expect(bytes('128Mi')).toBe(134217728);
    expect(bytes('1G')).toBe(1e9);
    expect(() => bytes('9Ei')).toThrow(RangeError);
    expect(() => cpuMillis('1.5x')).toThrow(ERR_FORMAT_WRONG);
  });

  it('cmp / add / sub (TestQuantityCmp)', () => {
    expect(parseQuantity('100m').cmp(parseQuantity('50m'))).toBe(1);
    expect(parseQuantity('50m').cmp(parseQuantity('100m'))).toBe(-1);
    expect(parseQuantity('10000T').cmp(parseQuantity('100Gi'))).toBe(1);
    expect(parseQuantity('0').cmp(parseQuantity('0'))).toBe(0);
    expect(parseQuantity('1Gi').add(parseQuantity('512Mi')).toString()).toBe('1536Mi');
    expect(parseQuantity('0').add(parseQuantity('100m')).toString()).toBe('100m');
    expect(parseQuantity('1').sub(parseQuantity('1500m')).toString()).toBe('-500m');
    expect(dec(901, -2, 'DecimalSI').neg().toString()).toBe('-9010m');
  });
});

describe('round-trip properties (seeded)', () => {
  it('parse(format(q)) == q and canonical forms are stable, for 5000 random quantities', async () => {
    const { Rng } = await import('../../src/util/rng.js');
    const rng = new Rng(42);
    const suffixes = [
      '',
      'n',
      'u',
      'm',
      'k',
      'M',
      'G',
      'T',
      'P',
      'E',
      'Ki',
      'Mi',
      'Gi',
      'Ti',
      'Pi',
      'Ei',
      'e3',
      'e-3',
      'E6',
      'e0',
    ];
    for (let i = 0; i < 5000; i++) {
      const int = String(rng.int(100000));
      const frac = rng.int(3) === 0 ? '.' + String(rng.int(1000)).padStart(rng.int(4) + 1, '0') : '';
      const sign = ['', '-', '+'][rng.int(3)]!;
      const s = `${sign}${int}${frac}${suffixes[rng.int(suffixes.length)]}`;
      const q = parseQuantity(s);
      const printed = q.toString();
      const back = parseQuantity(printed);
      expect(back.cmp(q), `${s} → ${printed}`).toBe(0);
      const canon = q.canonicalString();
      expect(parseQuantity(canon).canonicalString(), s).toBe(canon);
      // milliValue is the exact ceiling (away from zero) of q×1000
      const m = q.milliValue();
      const exact = q.unscaled * 10n ** BigInt(Math.max(0, q.exponent + 3));
      if (q.exponent + 3 >= 0) expect(m, s).toBe(exact);
      else expect(q.cmp(milliQ(m)) * q.sign() <= 0, s).toBe(true);
    }
  });
});

function milliQ(m: bigint) {
  return parseQuantity(`${m}m`);
}
