import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromPlain, parsePyJson, printPyJson, pythonNumber, toPlain, type PyValue } from './py-json.js';

const numberLexeme = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(pythonNumber),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '1.0', '1e-05', '2.5e+20', '-0.0'),
);

const pyValue: fc.Arbitrary<PyValue> = fc.letrec<{ value: PyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant<PyValue>({ kind: 'null' }),
    fc.boolean().map((value): PyValue => ({ kind: 'bool', value })),
    numberLexeme.map((raw): PyValue => ({ kind: 'num', raw })),
    fc.string({ unit: 'binary' }).map((value): PyValue => ({ kind: 'str', value })),
    fc.array(tie('value'), { maxLength: 4 }).map((items): PyValue => ({ kind: 'arr', items })),
    fc
      .uniqueArray(fc.tuple(fc.string({ unit: 'binary', maxLength: 6 }), tie('value')), {
        maxLength: 4,
        selector: ([key]) => key,
      })
      .map((entries): PyValue => ({ kind: 'obj', entries })),
  ),
})).value;

describe('Python-exact JSON', () => {
  it('prints what it parses, byte for byte, for any value', () => {
    fc.assert(
      fc.property(pyValue, (value) => {
        const text = printPyJson(value);
        expect(printPyJson(parsePyJson(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('prints plain JSON exactly as JSON.stringify(value, null, 2) does (Python’s indent=2 format)', () => {
    fc.assert(
      fc.property(fc.json({ noUnicodeString: false }), (json) => {
        const value: unknown = JSON.parse(json);
        const integral = JSON.stringify(value, (_k, v: unknown) =>
          typeof v === 'number' ? Math.trunc(v) % 1e15 : v,
        );
        const plain: unknown = JSON.parse(integral);
        expect(printPyJson(fromPlain(plain))).toBe(JSON.stringify(plain, null, 2));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps key order and Python’s rule for repeated keys (first place, last value)', () => {
    const value = parsePyJson('{"b": 1, "a": 2, "b": 3}');
    expect(printPyJson(value)).toBe('{\n  "b": 3,\n  "a": 2\n}');
    expect(toPlain(value)).toEqual({ b: 3, a: 2 });
  });

  it('spells floats as Python’s repr does', () => {
    const cases: [number, string][] = [
      [1, '1'],
      [1.5, '1.5'],
      [0.1, '0.1'],
      [1e-4, '0.0001'],
      [1e-5, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [123456.789, '123456.789'],
      [1e16, '1e+16'],
      [2.5e20, '2.5e+20'],
      [-0.001, '-0.001'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      [1e300, '1e+300'],
    ];
    for (const [value, expected] of cases) expect(pythonNumber(value)).toBe(expected);
  });

  it('rejects malformed JSON with a position', () => {
    for (const bad of ['', '{', '{"a" 1}', '[1,]', '"\u0001"', '{"a": 1} x', '"\\x"', 'nul']) {
      expect(() => parsePyJson(bad), bad).toThrow(/json: .* at line \d+ column \d+/u);
    }
  });
});
