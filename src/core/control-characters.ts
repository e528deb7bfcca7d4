/**
 * Characters a terminal may act on rather than print: C0 controls, DEL, C1 controls (U+0080–
 * U+009F; U+009B alone starts a CSI sequence on many terminals), and the bidirectional
 * overrides and isolates that reorder what is shown ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** The same set less tab and line feed, which human output keeps as layout. */
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

/** The same set as JSON leaves it raw: DEL, C1 and the bidi controls (JSON escapes C0 itself). */
const RAW_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

/** True when `text` holds a control character (see {@link escapeControlCharacters}). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

/** `\u001b`-style escape of one character. */
function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character but tab and line feed shown as a visible escape
 * (`ESC` becomes the six characters `\u001b`), so stored text printed to a terminal can
 * neither move the cursor, recolour, retitle, write the clipboard (OSC 52) nor reorder a line.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, unicodeEscape);
}

/**
 * A JSON text with DEL, C1 and bidi controls written as `\uXXXX` escapes too: the same JSON
 * value, safe to print on a terminal. (Outside strings JSON is ASCII, so only strings change.)
 */
export function escapeJsonControls(json: string): string {
  return json.replace(RAW_IN_JSON, unicodeEscape);
}
