import type Koa from 'koa';

/** 2 MiB: the submission form carries up to 100,000 characters of content plus files. */
export const FORM_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** 10 MiB: the console's challenge form carries a judge config (up to 8 MB of JSON, sent as multipart). */
export const LARGE_FORM_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** One uploaded file of a form: its name and its text (submissions are text). */
export interface FormFile {
  filename: string;
  content: string;
}

/** A parsed form: each field's values in order (a field sent twice has two), files apart. */
export interface ParsedForm {
  fields: Record<string, string[]>;
  files: Record<string, FormFile[]>;
}

export class FormBodyError extends Error {
  constructor(
    readonly status: 413 | 415 | 400,
    message: string,
  ) {
    super(message);
  }
}

async function readLimited(ctx: Koa.Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) throw new FormBodyError(413, `the form is larger than ${limit / 1024 / 1024} MiB`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new FormBodyError(413, `the form is larger than ${limit / 1024 / 1024} MiB`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads an HTML form post: application/x-www-form-urlencoded or multipart/form-data (file
 * uploads), parsed by the platform's own Request.formData() after the size limit.
 */
export async function readFormBody(ctx: Koa.Context, limit = FORM_BODY_LIMIT_BYTES): Promise<ParsedForm> {
  const type = ctx.get('content-type');
  const empty: ParsedForm = { fields: {}, files: {} };
  if (!type && !ctx.get('content-length') && !ctx.get('transfer-encoding')) return empty;
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type))
    throw new FormBodyError(
      415,
      'a form must be sent as application/x-www-form-urlencoded or multipart/form-data',
    );
  const raw = await readLimited(ctx, limit);
  let data: FormData;
  try {
    data = await new Request('http://form.invalid/', {
      method: 'POST',
      headers: { 'content-type': type },
      body: raw,
    }).formData();
  } catch {
    throw new FormBodyError(400, 'the form could not be read');
  }
  const form: ParsedForm = { fields: {}, files: {} };
  for (const [name, value] of data.entries()) {
    if (typeof value === 'string') (form.fields[name] ??= []).push(value);
    else if (value.name !== '' || value.size > 0)
      (form.files[name] ??= []).push({ filename: value.name, content: await value.text() });
  }
  return form;
}

/** A form's single value of `name` (the first, when sent several times). */
export const formValue = (form: ParsedForm, name: string): string | undefined => form.fields[name]?.[0];
