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

/** A 422: what was wrong with the request, part by part (`loc[0]` is body, query, path or header). */
export const ValidationErrorBody = z.object({ detail: z.array(ValidationIssue) });

/** Every other error: one sentence, and for the few a client acts on by itself, a machine-readable code. */
export const DetailBody = z.object({ detail: z.string(), code: z.string().optional() });
