import { Worker } from 'node:worker_threads';
import { defaultDecoder, type MediaDecoder } from './decoder.ts';

/** Why a PDF could not be counted: the file's fault, never ours. */
export class PdfRefused extends Error {
  override name = 'PdfRefused';
  constructor(
    readonly rule: 'encrypted' | 'decodable',
    message: string,
  ) {
    super(message);
  }
}

/**
 * pdf-lib parses on the thread that calls it and cannot be interrupted, so it runs in a worker
 * thread: the pool's deadline terminates it, and its heap is capped so a crafted object table
 * cannot take the process's memory. The worker reads the file itself (no copy crosses threads).
 * `updateMetadata: false` keeps the parse read-only; pdf-lib refuses an encrypted file.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const { PDFDocument, EncryptedPDFError } = require(workerData.lib);
(async () => {
  try {
    const document = await PDFDocument.load(readFileSync(workerData.path), { updateMetadata: false, throwOnInvalidObject: true });
    parentPort.postMessage({ pages: document.getPageCount() });
  } catch (error) {
    const encrypted = error instanceof EncryptedPDFError || /encrypt/i.test(String(error && error.message));
    parentPort.postMessage({ refused: encrypted ? 'encrypted' : 'decodable', message: String(error && error.message) });
  }
})();
`;

const PDF_LIB = require.resolve('pdf-lib');
const MB = 1024 * 1024;
/** Heap a parse may take beyond the file: pdf-lib holds the bytes and one object per indirect object. */
const HEAP_OVERHEAD = 64 * MB;

/** The decode memory a PDF's parse is held to in the pool (its heap cap): the file twice plus room for its objects. */
export const pdfParseBytes = (sizeBytes: number, decoder: MediaDecoder) =>
  Math.min(decoder.limits.memoryBytes, 2 * sizeBytes + HEAP_OVERHEAD);

function countInWorker(path: string, heapBytes: number, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { lib: PDF_LIB, path },
      resourceLimits: { maxOldGenerationSizeMb: Math.max(16, Math.floor(heapBytes / MB)), maxYoungGenerationSizeMb: 8 },
    });
    let settled = false;
    // Settled only once the worker is gone, so the pool's slot and memory are held until the parse has stopped.
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      void worker.terminate().finally(outcome);
    };
    const onAbort = () => finish(() => reject(signal.reason as Error));
    signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (answer: { pages?: number; refused?: 'encrypted' | 'decodable'; message?: string }) =>
      finish(() =>
        answer.refused === undefined
          ? resolve(answer.pages ?? 0)
          : reject(new PdfRefused(answer.refused, answer.message ?? 'unreadable')),
      ),
    );
    // ERR_WORKER_OUT_OF_MEMORY: the file asked for more than its budget.
    worker.once('error', (error: Error & { code?: string }) =>
      finish(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new PdfRefused('decodable', 'reading it needs more memory than a file of its size may take')
            : error,
        ),
      ),
    );
    worker.once('exit', () => finish(() => reject(new Error('the PDF reader stopped without an answer'))));
  });
}

/**
 * The pages of a PDF on disk, counted from its bytes in the decode pool (its concurrency, memory
 * budget and deadline). An encrypted, damaged or page-less file is a PdfRefused; a parse past the
 * deadline a DecodeTimeout.
 */
export async function countPdfPages(
  path: string,
  sizeBytes: number,
  decoder: MediaDecoder = defaultDecoder(),
): Promise<number> {
  const bytes = pdfParseBytes(sizeBytes, decoder);
  const pages = await decoder.pool.run(bytes, (signal) => countInWorker(path, bytes, signal));
  if (pages < 1) throw new PdfRefused('decodable', 'it has no pages');
  return pages;
}
