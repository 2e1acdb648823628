import type { Context } from 'hono';
import { toWireFile, type WireFile } from '#core/bundle';
import { DomainError, invalidRequest } from '#core/errors';

/**
 * Reads a `multipart/form-data` body: 415 for any other content type, 400 for a form that cannot
 * be read. The size limit is the app's, before this (app.ts). `what` says what the form is for,
 * in the 415's message.
 */
export async function readMultipart(c: Context, what: string): Promise<FormData> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type.trim())) throw new DomainError('unsupported_media_type', `Send ${what} as multipart/form-data`);
  try {
    return await c.req.formData();
  } catch {
    throw invalidRequest('The body is not a readable multipart/form-data form');
  }
}

/** The JSON of the text part `name`: 400 when it is missing, a file, or not JSON. */
export function jsonPart(form: FormData, name: string): unknown {
  const part = form.get(name);
  const issue = (message: string) => invalidRequest(`${name}: ${message}`, { issues: [{ path: [name], message }] });
  if (typeof part !== 'string') throw issue(part === null ? 'required' : 'must be a text part, not a file');
  try {
    return JSON.parse(part);
  } catch {
    throw issue('is not valid JSON');
  }
}

/**
 * The file parts named `name`, in order, as the JSON bodies carry files (their names as file
 * names; text when UTF-8, else base64): 400 for a text part among them.
 */
export async function fileParts(form: FormData, name: string): Promise<WireFile[]> {
  const parts = form.getAll(name);
  return Promise.all(
    parts.map(async (part, index) => {
      if (typeof part === 'string') throw invalidRequest(`${name}.${index}: must be a file part`, { issues: [{ path: [name, index], message: 'not a file' }] });
      return toWireFile({ filename: part.name, bytes: new Uint8Array(await part.arrayBuffer()), encoding: 'utf8' });
    }),
  );
}
