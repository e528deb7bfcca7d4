/**
 * Parses JSON this library wrote itself (a stored column), falling back to `fallback` when the
 * text does not parse: a damaged derived column must not make the verbatim record unreadable.
 */
export function parseJsonOr<T>(text: string, fallback: T): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}
