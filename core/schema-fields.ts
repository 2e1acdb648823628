import * as z from 'zod/mini';
import { LOGIN_PATTERN } from './login.ts';
import { SLUG_MAX, SLUG_PATTERN } from './slug.ts';
import { multiLineTextProblem, singleLineTextProblem } from './text.ts';
import { lazySchema } from './lazy-schema.ts';

/**
 * The field rules that request bodies are made of (a slug, a login, a line of visible text, a
 * changelog) and the shape of a validation error's details, apart from `schemas.ts`: a zod schema
 * is built when its module loads, so a module that needs one field rule would otherwise load every
 * body and document schema, and what those import (semver ranges, the currency table, the scan
 * result). The ClawHub Lambdas and the HTTP plumbing need only these.
 */

/** Refines a string schema with one of the text rules of text.ts. */
export const textRule = (problem: (text: string) => string | null) => (text: string, ctx: z.core.$RefinementCtx) => {
  const found = problem(text);
  if (found) ctx.addIssue({ code: 'custom', message: found });
};

/** One line of visible text: a name, a description, a label; `tooLong` says what to do when it is over `max`. */
export const visibleText = (max: number, tooLong?: string) =>
  z.string().check(
    z.minLength(1),
    z.maxLength(max, tooLong),
    z.refine((s) => s.trim().length > 0, 'must not be blank'),
    z.superRefine(textRule(singleLineTextProblem)),
  );

export const slugSchema = lazySchema(() =>
  z.string().check(z.maxLength(SLUG_MAX), z.regex(SLUG_PATTERN, '1 to 64 lower-case letters and digits, in words joined by single hyphens')),
);

export const changelogSchema = lazySchema(() => z.string().check(z.maxLength(20_000), z.superRefine(textRule(multiLineTextProblem))));

export const loginSchema = lazySchema(() => z.string().check(z.regex(LOGIN_PATTERN, 'a GitHub-style login: letters, digits and hyphens, up to 39')));

/** Turns zod issues into the `details` of an invalid_request error. */
export function issueDetails(error: z.core.$ZodError): { issues: { path: (string | number)[]; message: string }[] } {
  return {
    issues: error.issues.slice(0, 20).map((issue) => ({
      path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      message: issue.message,
    })),
  };
}
