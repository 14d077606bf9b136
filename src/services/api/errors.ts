import { ErrorBody } from '../../contracts/errors';

/**
 * docs/product.md §8: the text to show for a server error body. A `detail` list becomes each item's `msg`
 * joined with ". ", a `detail` string is shown as is, anything else gives the caller's fallback.
 */
export function errorText(body: unknown, fallback: string): string {
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success) return fallback;
  const { detail } = parsed.data;
  if (typeof detail === 'string') return detail === '' ? fallback : detail;
  const text = joinSentences(detail.map((issue) => issue.msg));
  return text === '' ? fallback : text;
}

/**
 * Messages joined with ". " (docs/product.md §8) without doubling a period a message already ends with:
 * ["Too small.", "Required"] → "Too small. Required".
 */
export function joinSentences(messages: readonly string[]): string {
  const parts = messages.map((m) => m.trim()).filter((m) => m !== '');
  return parts.map((m, i) => (i < parts.length - 1 ? m.replace(/\.+$/, '') : m)).join('. ');
}

/** The HTTP status of a failed call, or undefined when the call never got an answer. */
export function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}

/** The parsed body of a failed call, if there was one. */
export function bodyOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'data' in error ? error.data : undefined;
}

/** {@link errorText} for a thrown call error (an ofetch `FetchError` or anything else). */
export function errorMessage(error: unknown, fallback: string): string {
  return errorText(bodyOf(error), fallback);
}
