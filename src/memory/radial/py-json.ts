/**
 * JSON as Python's `json` module reads and writes it, kept exact: numbers keep their source
 * spelling (`1.0`, `1e-05`, big integers, Python's `NaN`/`Infinity`), objects keep their key
 * order, and printing reproduces `json.dump(obj, indent=2, ensure_ascii=False)` byte for byte.
 * Used to import and export HedgehogMemory's `origin.json` without losing anything.
 */
import { HedgehopError } from '../../core/errors.js';

/** A JSON value with exact number spellings and ordered object entries. */
export type PyValue =
  | { readonly kind: 'null' }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'num'; readonly raw: string }
  | { readonly kind: 'str'; readonly value: string }
  | { readonly kind: 'arr'; readonly items: readonly PyValue[] }
  | { readonly kind: 'obj'; readonly entries: readonly (readonly [string, PyValue])[] };

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WS_RE = /[ \t\n\r]*/y;
// Everything but a quote, a backslash and the C0 controls (which JSON forbids raw in strings).
// eslint-disable-next-line no-control-regex
const PLAIN_RUN_RE = /[^"\\\u0000-\u001f]*/y;
const MAX_DEPTH = 10_000;

class Parser {
  #pos = 0;
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  parseDocument(): PyValue {
    const value = this.#value(0);
    this.#ws();
    if (this.#pos !== this.#text.length) this.#fail('extra data after the JSON value');
    return value;
  }

  #fail(message: string): never {
    const before = this.#text.slice(0, this.#pos);
    const line = before.split('\n').length;
    const column = this.#pos - before.lastIndexOf('\n');
    throw new HedgehopError('INVALID_INPUT', `json: ${message} at line ${line} column ${column}`, {
      field: 'json',
    });
  }

  #ws(): void {
    WS_RE.lastIndex = this.#pos;
    WS_RE.exec(this.#text);
    this.#pos = WS_RE.lastIndex;
  }

  #value(depth: number): PyValue {
    if (depth > MAX_DEPTH) this.#fail('nested too deeply');
    this.#ws();
    const c = this.#text[this.#pos];
    if (c === '{') return this.#object(depth);
    if (c === '[') return this.#array(depth);
    if (c === '"') return { kind: 'str', value: this.#string() };
    if (this.#take('null')) return { kind: 'null' };
    if (this.#take('true')) return { kind: 'bool', value: true };
    if (this.#take('false')) return { kind: 'bool', value: false };
    for (const special of ['NaN', 'Infinity', '-Infinity'])
      if (this.#take(special)) return { kind: 'num', raw: special };
    NUMBER_RE.lastIndex = this.#pos;
    const match = NUMBER_RE.exec(this.#text);
    if (match && match[0].length > 0) {
      this.#pos += match[0].length;
      return { kind: 'num', raw: match[0] };
    }
    return this.#fail(
      c === undefined ? 'unexpected end of text' : `unexpected character ${JSON.stringify(c)}`,
    );
  }

  #take(word: string): boolean {
    if (!this.#text.startsWith(word, this.#pos)) return false;
    this.#pos += word.length;
    return true;
  }

  #object(depth: number): PyValue {
    this.#pos++;
    const entries = new Map<string, PyValue>();
    this.#ws();
    if (this.#take('}')) return { kind: 'obj', entries: [] };
    for (;;) {
      this.#ws();
      if (this.#text[this.#pos] !== '"') this.#fail('expected a property name in double quotes');
      const key = this.#string();
      this.#ws();
      if (!this.#take(':')) this.#fail("expected ':'");
      // A repeated key keeps its first place and its last value, as a Python dict does.
      entries.set(key, this.#value(depth + 1));
      this.#ws();
      if (this.#take('}')) return { kind: 'obj', entries: [...entries] };
      if (!this.#take(',')) this.#fail("expected ',' or '}'");
    }
  }

  #array(depth: number): PyValue {
    this.#pos++;
    const items: PyValue[] = [];
    this.#ws();
    if (this.#take(']')) return { kind: 'arr', items };
    for (;;) {
      items.push(this.#value(depth + 1));
      this.#ws();
      if (this.#take(']')) return { kind: 'arr', items };
      if (!this.#take(',')) this.#fail("expected ',' or ']'");
    }
  }

  #string(): string {
    this.#pos++;
    let out = '';
    for (;;) {
      PLAIN_RUN_RE.lastIndex = this.#pos;
      PLAIN_RUN_RE.exec(this.#text);
      out += this.#text.slice(this.#pos, PLAIN_RUN_RE.lastIndex);
      this.#pos = PLAIN_RUN_RE.lastIndex;
      const c = this.#text[this.#pos];
      if (c === '"') {
        this.#pos++;
        return out;
      }
      if (c === '\\') out += this.#escape();
      else if (c === undefined) this.#fail('unterminated string');
      else this.#fail('control character in a string');
    }
  }

  #escape(): string {
    const c = this.#text[this.#pos + 1];
    this.#pos += 2;
    switch (c) {
      case '"':
        return '"';
      case '\\':
        return '\\';
      case '/':
        return '/';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'u': {
        const hex = this.#text.slice(this.#pos, this.#pos + 4);
        if (!/^[0-9a-fA-F]{4}$/u.test(hex)) this.#fail('bad \\u escape');
        this.#pos += 4;
        return String.fromCharCode(Number.parseInt(hex, 16));
      }
      default:
        return this.#fail('bad escape');
    }
  }
}

/** Parses JSON text (as Python's `json.loads` accepts it). Errors are `INVALID_INPUT` with a position. */
export function parsePyJson(text: string): PyValue {
  return new Parser(text).parseDocument();
}

/** `json.dump(value, indent=2, ensure_ascii=False)`: the exact text Python writes. */
export function printPyJson(value: PyValue): string {
  const out: string[] = [];
  write(value, 0, out);
  return out.join('');
}

function write(value: PyValue, depth: number, out: string[]): void {
  switch (value.kind) {
    case 'null':
      out.push('null');
      return;
    case 'bool':
      out.push(value.value ? 'true' : 'false');
      return;
    case 'num':
      out.push(value.raw);
      return;
    case 'str':
      // JSON.stringify escapes exactly what Python's encoder escapes with ensure_ascii=False:
      // quote, backslash and C0 controls (short forms for \b \f \n \r \t, else \u00xx).
      out.push(JSON.stringify(value.value));
      return;
    case 'arr':
      writeList(value.items, depth, out, '[', ']', (item) => write(item, depth + 1, out));
      return;
    case 'obj':
      writeList(value.entries, depth, out, '{', '}', ([key, item]) => {
        out.push(JSON.stringify(key), ': ');
        write(item, depth + 1, out);
      });
      return;
  }
}

function writeList<T>(
  items: readonly T[],
  depth: number,
  out: string[],
  open: string,
  close: string,
  each: (item: T) => void,
): void {
  if (items.length === 0) {
    out.push(open, close);
    return;
  }
  const inner = '\n' + '  '.repeat(depth + 1);
  out.push(open);
  items.forEach((item, i) => {
    out.push(i === 0 ? inner : `,${inner}`);
    each(item);
  });
  out.push('\n', '  '.repeat(depth), close);
}

/** A plain JavaScript value (numbers as JS numbers: `1.0` becomes 1, `NaN` stays NaN). */
export function toPlain(value: PyValue): unknown {
  switch (value.kind) {
    case 'null':
      return null;
    case 'bool':
    case 'str':
      return value.value;
    case 'num':
      return Number(value.raw);
    case 'arr':
      return value.items.map(toPlain);
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of value.entries) {
        Object.defineProperty(out, key, {
          value: toPlain(item),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
  }
}

/** A plain JSON value as {@link PyValue}, numbers spelled as Python would print them. */
export function fromPlain(value: unknown): PyValue {
  if (value === null || value === undefined) return { kind: 'null' };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'string') return { kind: 'str', value };
  if (typeof value === 'number') return { kind: 'num', raw: pythonNumber(value) };
  if (Array.isArray(value)) return { kind: 'arr', items: value.map(fromPlain) };
  if (typeof value === 'object') {
    return {
      kind: 'obj',
      entries: Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromPlain(v)]),
    };
  }
  return { kind: 'str', value: String(value) };
}

/**
 * How Python prints a number that JavaScript holds: integers (below 1e16) without a fraction,
 * other values as `repr(float)` (shortest round-trip digits; exponent form below 1e-4 and from
 * 1e16, with a sign and at least two exponent digits).
 */
export function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return Object.is(value, -0) ? '-0.0' : String(value);
  const [mantissa = '0', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let body: string;
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) body = `0.${'0'.repeat(-exponent - 1)}${digits}`;
    else {
      const whole = digits.padEnd(exponent + 1, '0');
      const int = whole.slice(0, exponent + 1);
      const frac = whole.slice(exponent + 1);
      body = `${int}.${frac.length > 0 ? frac : '0'}`;
    }
  } else {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const sign = exponent < 0 ? '-' : '+';
    body = `${digits[0]}${fraction}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return negative ? `-${body}` : body;
}
