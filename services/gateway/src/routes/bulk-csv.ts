import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import { AppError, validationError, type ErrorDetail } from '@svc/errors';
import busboy from 'busboy';
import { parse } from 'csv-parse/sync';
import { createRowValidator } from '../http/request-validator.ts';
import { PostCreateBody } from '../openapi/publishing.schemas.ts';

/** The CSV columns of a bulk upload; `account_ids` and `text` are required, the others optional. */
export const BULK_CSV_COLUMNS = ['account_ids', 'text', 'media_urls', 'scheduled_at'] as const;
type Column = (typeof BULK_CSV_COLUMNS)[number];
const REQUIRED: readonly Column[] = ['account_ids', 'text'];
/** Separates the items of a list column (`account_ids`, `media_urls`). */
const LIST_SEPARATOR = '|';

export interface BulkUpload {
  csv: Buffer;
  dryRun: boolean;
}

/** One data row of the CSV that reads as a create body, with its 1-based row number. */
export interface CsvPost {
  row: number;
  body: Static<typeof PostCreateBody>;
}

const checkRow = createRowValidator(PostCreateBody);

/**
 * Reads a bulk upload (docs/api-conventions.md, "Bulk"): the `file` part of a multipart form, up to
 * `limitBytes` (413 past it), and the optional `dry_run` field (`true` or `false`). The file is
 * held in memory: it is bounded, and a CSV cannot be checked row by row before it is all read
 * anyway (all rows are checked before any is created).
 */
export function readBulkUpload(
  request: Readable,
  headers: Record<string, string | string[] | undefined>,
  limitBytes: number,
): Promise<BulkUpload> {
  return new Promise((resolve, reject) => {
    const fail = (error: AppError) => {
      request.unpipe();
      request.resume();
      reject(error);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: headers as IncomingHttpHeaders,
        limits: { files: 1, fields: 5, parts: 6, fileSize: limitBytes },
      });
    } catch {
      fail(
        validationError('The multipart body has no boundary.', [
          { path: '/body', message: 'not a multipart/form-data body', rule: 'multipart' },
        ]),
      );
      return;
    }
    const chunks: Buffer[] = [];
    let file = false;
    let tooLarge = false;
    let dryRun = 'false';
    parser.on('file', (name, stream) => {
      if (name !== 'file' || file) {
        stream.resume();
        return;
      }
      file = true;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('limit', () => {
        tooLarge = true;
        fail(
          new AppError(
            'payload_too_large',
            `The CSV file is larger than ${limitBytes} bytes (BULK_BODY_LIMIT_BYTES).`,
            {
              details: [{ path: '/body/file', message: `larger than ${limitBytes} bytes`, rule: 'size' }],
            },
          ),
        );
      });
    });
    parser.on('field', (name, value) => {
      if (name === 'dry_run') dryRun = value;
    });
    parser.once('error', (error: Error) =>
      fail(
        validationError(`The multipart body is malformed: ${error.message}.`, [
          { path: '/body', message: error.message, rule: 'multipart' },
        ]),
      ),
    );
    parser.once('close', () => {
      if (tooLarge) return;
      if (!file)
        return reject(
          validationError('The form has no file part named "file".', [
            { path: '/body/file', message: '"file" is required', rule: 'multipart' },
          ]),
        );
      if (dryRun !== 'true' && dryRun !== 'false')
        return reject(
          validationError('The dry_run field must be true or false.', [
            { path: '/body/dry_run', message: 'must be true or false', rule: 'type' },
          ]),
        );
      resolve({ csv: Buffer.concat(chunks), dryRun: dryRun === 'true' });
    });
    request.pipe(parser);
  });
}

const list = (cell: string | undefined) =>
  (cell ?? '')
    .split(LIST_SEPARATOR)
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** The header's columns in file order; a header that is not ours is a 400 for the whole file. */
function columnsOf(header: string[] | undefined): Column[] {
  const problems: ErrorDetail[] = [];
  const columns = (header ?? []).map((name) => name.trim().toLowerCase());
  columns.forEach((name, index) => {
    if (!(BULK_CSV_COLUMNS as readonly string[]).includes(name))
      problems.push({ path: `/file/header/${index}`, message: `unknown column "${name}"`, rule: 'csv_header' });
    else if (columns.indexOf(name) !== index)
      problems.push({ path: `/file/header/${index}`, message: `column "${name}" appears twice`, rule: 'csv_header' });
  });
  for (const name of REQUIRED)
    if (!columns.includes(name))
      problems.push({ path: '/file/header', message: `column "${name}" is required`, rule: 'csv_header' });
  if (problems.length > 0)
    throw validationError(
      `The CSV's first line must be its header, with the columns ${BULK_CSV_COLUMNS.join(',')}.`,
      problems,
    );
  return columns as Column[];
}

/** A data row as a create body: list columns split on `|`, empty optional cells left out. */
function bodyOf(columns: readonly Column[], record: string[]): Record<string, unknown> {
  const cell = (name: Column) => {
    const index = columns.indexOf(name);
    return index < 0 ? undefined : record[index];
  };
  const mediaUrls = list(cell('media_urls'));
  const scheduledAt = (cell('scheduled_at') ?? '').trim();
  return {
    account_ids: list(cell('account_ids')),
    text: cell('text') ?? '',
    ...(mediaUrls.length === 0 ? {} : { media_urls: mediaUrls }),
    ...(scheduledAt === '' ? {} : { scheduled_at: scheduledAt }),
  };
}

/**
 * The CSV's rows as create bodies, and the problems of the rows that are not: a row the parser
 * cannot read (a field count other than the header's, a quote left open) or one that does not fit
 * the create body's schema. Rows are numbered from 1 after the header, empty lines not counted.
 * A UTF-8 BOM and CRLF line ends are accepted; quoted fields may hold commas, quotes and newlines.
 */
export function parseBulkCsv(csv: Buffer, maxRows: number): { posts: CsvPost[]; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const records: { row: number; record: string[] }[] = [];
  // The parser calls these in file order, so counting in them numbers read and skipped rows alike.
  let seen = 0;
  try {
    parse(csv, {
      bom: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_record: (record: string[]) => {
        records.push({ row: seen++, record });
        return null;
      },
      on_skip: (error) => {
        problems.push({
          row: seen++,
          account_id: null,
          path: '',
          rule: 'csv',
          message: error?.message ?? 'unreadable row',
        });
      },
    });
  } catch (error) {
    throw validationError(`The file is not a CSV this endpoint can read: ${(error as Error).message}.`, [
      { path: '/file', message: (error as Error).message, rule: 'csv' },
    ]);
  }
  const [header, ...rows] = records;
  if (header === undefined || header.row !== 0)
    throw validationError('The CSV has no readable header line.', [
      { path: '/file/header', message: `the first line must be ${BULK_CSV_COLUMNS.join(',')}`, rule: 'csv_header' },
    ]);
  const columns = columnsOf(header.record);
  if (seen - 1 < 1 || seen - 1 > maxRows)
    throw validationError(`The CSV must hold 1 to ${maxRows} data rows; it holds ${seen - 1}.`, [
      { path: '/file', message: `must hold 1 to ${maxRows} data rows`, rule: 'rows' },
    ]);
  const posts: CsvPost[] = [];
  for (const { row, record } of rows) {
    const body = bodyOf(columns, record);
    const shape = checkRow(row, body);
    if (shape.length > 0) problems.push(...shape);
    else posts.push({ row, body: body as CsvPost['body'] });
  }
  problems.sort((a, b) => (a.row as number) - (b.row as number));
  return { posts, problems };
}
