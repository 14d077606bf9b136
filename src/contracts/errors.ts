import { z } from 'zod';

/** One entry of a 422 body, as FastAPI sends it. */
export const ValidationIssue = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export type ValidationIssue = z.infer<typeof ValidationIssue>;

/** Every error body the server sends: `{"detail": "…"}` or `{"detail": [issue, …]}`. */
export const ErrorBody = z.object({ detail: z.union([z.string(), z.array(ValidationIssue)]) });
export type ErrorBody = z.infer<typeof ErrorBody>;
