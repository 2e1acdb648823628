import type { Busboy } from 'busboy';
import type { Context } from 'hono';
import { toWireFile, type WireFile } from '#core/bundle';
import { DomainError, invalidRequest, payloadTooLarge } from '#core/errors';

/**
 * Reads a `multipart/form-data` body as it streams in, with busboy, holding every limit while it
 * reads: the number of parts, of files and of text fields, each file's size and each field's. A
 * form over any of them is refused at the part that crosses it, and the rest of the body is not
 * read; parsing whole first (`FormData`) would spend the CPU on every part before any limit
 * applied (80,000 empty parts held the loop for seconds). The body's size limit is the app's.
 */

/** What a form may hold. */
export interface FormLimits {
  /** File parts. */
  files: number;
  /** Bytes of one file part. */
  fileBytes: number;
  /** Text parts. */
  fields: number;
  /** Bytes of one text part. */
  fieldBytes: number;
}

/** A form that was read whole: its text parts by name (the first of each), its files in order. */
export interface Form {
  fields: Map<string, string>;
  files: { field: string; filename: string; bytes: Uint8Array }[];
}

/**
 * Reads the request's form: 415 for any other content type, 400 for a form that cannot be read
 * and 413 for one over `limits` (the words the publish's own checks use). `what` says what the
 * form is for, in the 415's message.
 */
export async function readMultipart(c: Context, what: string, limits: FormLimits): Promise<Form> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type.trim())) throw new DomainError('unsupported_media_type', `Send ${what} as multipart/form-data`);
  const body = c.req.raw.body;
  if (!body) throw invalidRequest('The body is not a readable multipart/form-data form');
  return parseForm(type, body, limits);
}

async function parseForm(contentType: string, body: ReadableStream<Uint8Array>, limits: FormLimits): Promise<Form> {
  // Loaded on the first form a process reads: the clawhub-publish Lambda's cold start does not
  // parse it for JSON publishes (a chunk of its own, as the scanner is).
  const { default: busboy } = await import('busboy');
  let parser: Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      // File names as UTF-8, as browsers and undici's FormData send them (busboy's default is Latin-1).
      defParamCharset: 'utf8',
      // A file's name is its path in the skill (busboy keeps only the last segment by default);
      // the publish checks it as it checks every file name.
      preservePath: true,
      limits: {
        files: limits.files,
        fields: limits.fields,
        parts: limits.files + limits.fields,
        fileSize: limits.fileBytes,
        fieldSize: limits.fieldBytes,
        headerPairs: 16,
      },
    });
  } catch {
    throw invalidRequest('The body is not a readable multipart/form-data form: its Content-Type has no boundary');
  }
  const form: Form = { fields: new Map(), files: [] };
  const reader = body.getReader();
  let failure: DomainError | undefined;
  const fail = (error: DomainError) => {
    failure ??= error;
  };
  const over = (what: string, limit: number) => fail(payloadTooLarge(`At most ${limit} ${what} per form; this one has more`));

  const done = new Promise<void>((resolve) => {
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(payloadTooLarge(`${info.filename} is over ${limits.fileBytes} bytes`)));
      // A body cut short ends the file being read with an error; the form's own error says so.
      stream.on('error', () => fail(invalidRequest('The body ended before the form did')));
      stream.on('end', () => {
        if (!failure) form.files.push({ field, filename: info.filename ?? '', bytes: new Uint8Array(Buffer.concat(chunks)) });
      });
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(payloadTooLarge(`The text part ${name} is over ${limits.fieldBytes} bytes`));
      else if (!form.fields.has(name)) form.fields.set(name, value);
    });
    parser.on('filesLimit', () => over('files', limits.files));
    parser.on('fieldsLimit', () => over('text parts', limits.fields));
    parser.on('partsLimit', () => over('parts', limits.files + limits.fields));
    parser.on('error', () => {
      fail(invalidRequest('The body is not a readable multipart/form-data form'));
      resolve();
    });
    parser.on('close', resolve);
  });

  try {
    while (!failure) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      if (!parser.write(value)) await new Promise((resolve) => parser.once('drain', resolve));
    }
  } catch {
    fail(invalidRequest('The body ended before the form did'));
  }
  if (failure) {
    // Nothing more of the body is read: its remaining parts cost nothing.
    await reader.cancel().catch(() => undefined);
    parser.destroy();
    throw failure;
  }
  parser.end();
  await done;
  if (failure) throw failure;
  return form;
}

/** The JSON of the text part `name`: 400 when it is missing or not JSON. */
export function jsonPart(form: Form, name: string): unknown {
  const part = form.fields.get(name);
  const issue = (message: string) => invalidRequest(`${name}: ${message}`, { issues: [{ path: [name], message }] });
  if (part === undefined) throw issue(form.files.some((f) => f.field === name) ? 'must be a text part, not a file' : 'required');
  try {
    return JSON.parse(part);
  } catch {
    throw issue('is not valid JSON');
  }
}

/**
 * The file parts named `name`, in order, as the JSON bodies carry files (their names as file
 * names; text when UTF-8, else base64): 400 for a text part of that name.
 */
export function fileParts(form: Form, name: string): WireFile[] {
  if (form.fields.has(name)) throw invalidRequest(`${name}: must be file parts`, { issues: [{ path: [name], message: 'not a file' }] });
  return form.files.filter((f) => f.field === name).map((f) => toWireFile({ filename: f.filename, bytes: f.bytes, encoding: 'utf8' }));
}
