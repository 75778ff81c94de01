import { AppError } from '@svc/errors';
import { DecodeTimeout } from './decode-pool.ts';
import { defaultDecoder, type MediaDecoder } from './decoder.ts';
import { countPdfPages, PdfRefused } from './pdf-pages.ts';
import { tookTooLong, type Dimensions } from './probe.ts';

/** The library's document limits when a caller sets none: LinkedIn's (docs/networks.md §4.4). */
export const DOCUMENT_DEFAULTS = { maxBytes: 100 * 1024 * 1024, maxPages: 300 } as const;

/**
 * A PDF's measures: its page count, read in the decode pool. Encrypted, damaged, page-less files and
 * files past `maxPages` are a 400 naming the rule (`encrypted`, `decodable`, `max_pages`).
 */
export async function measureDocument(
  path: string,
  sizeBytes: number,
  maxPages: number,
  decoder: MediaDecoder = defaultDecoder(),
): Promise<Dimensions> {
  let pageCount: number;
  try {
    pageCount = await countPdfPages(path, sizeBytes, decoder);
  } catch (error) {
    if (error instanceof DecodeTimeout) throw tookTooLong('PDF', error.timeoutMs);
    if (error instanceof PdfRefused)
      throw new AppError(
        'validation_error',
        error.rule === 'encrypted'
          ? 'The PDF is encrypted; only unprotected PDFs are taken.'
          : `The application/pdf file is damaged: ${error.message}.`,
        { details: [{ path: '/body', message: error.message, rule: error.rule }] },
      );
    throw error;
  }
  if (pageCount > maxPages)
    throw new AppError('validation_error', `The PDF has ${pageCount} pages; documents hold at most ${maxPages}.`, {
      details: [{ path: '/body', message: `${pageCount} pages`, rule: 'max_pages', limit: maxPages }],
    });
  return { width: null, height: null, durationMs: null, pageCount };
}
