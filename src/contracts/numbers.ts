import { z } from 'zod';

/** A plain decimal as text: digits with an optional sign and fraction. No hex, exponent, or blank. */
const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A number that may arrive as decimal text (a query string, a form): "12.5" is 12.5, while "0x10", "1e3",
 * "", true and [] stay what they are and fail `schema` with its own message. `z.coerce.number` would
 * read them as 16, 1000, 0, 1 and 0.
 */
export function decimal<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    (v) => (typeof v === 'string' && DECIMAL_TEXT.test(v.trim()) ? Number(v.trim()) : v),
    schema,
  );
}
