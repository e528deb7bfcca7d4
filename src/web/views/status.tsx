import { ApiError } from '../api-client.js';

/** A short "loading" line, announced to screen readers. */
export function Loading({ what }: { readonly what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** An error from the API, with its code. */
export function ErrorNote({ error }: { readonly error: Error }) {
  const code = error instanceof ApiError ? error.code : 'ERROR';
  return (
    <p class="error" role="alert">
      <strong>{code}</strong> {error.message}
    </p>
  );
}

/** Milliseconds since the epoch as a local date and time. */
export function When({ ms }: { readonly ms: number }) {
  const date = new Date(ms);
  return <time dateTime={date.toISOString()}>{date.toLocaleString()}</time>;
}
