import { json, type Router } from 'express';
import { PDFDocument } from 'pdf-lib';
import { type SandboxContext } from '../context.ts';
import { sniffFormat } from '../media/sniff.ts';
import { numericId, randomToken } from '../state/ids.ts';
import { liCallerOf, mayActAs, requireLiToken, requireVersion } from './li-auth.ts';
import { liError, renderLinkedInFault } from './li-errors.ts';
import { advanceStatus, LI_STORES, type LiAsset, type LiUploadSlot } from './li-records.ts';

/** Documents API limits (docs/networks.md §4.4): PDF (of PDF, PPT, PPTX, DOC, DOCX), 100 MB, 300 pages. */
export const LI_DOCUMENT_MAX_BYTES = 100 * 1024 * 1024;
export const LI_DOCUMENT_MAX_PAGES = 300;

/** Why LinkedIn would fail processing these bytes (PROCESSING_FAILED), or undefined when it takes them. */
export async function documentProblem(bytes: Buffer): Promise<string | undefined> {
  if (sniffFormat(bytes) !== 'pdf') return 'Unsupported document format.';
  if (bytes.length > LI_DOCUMENT_MAX_BYTES) return 'Document is larger than 100 MB.';
  let pages: number;
  try {
    pages = (await PDFDocument.load(bytes, { updateMetadata: false })).getPageCount();
  } catch {
    return 'Document could not be read (damaged or encrypted).';
  }
  if (pages > LI_DOCUMENT_MAX_PAGES) return `Document has ${pages} pages; at most ${LI_DOCUMENT_MAX_PAGES}.`;
  return undefined;
}

/**
 * Documents API (learn.microsoft.com linkedin marketing community-management shares documents-api):
 * `initializeUpload` answers an upload URL and the `urn:li:document:` URN; the bytes are PUT there
 * (li-media.routes.ts, checked by documentProblem); the status moves PROCESSING to AVAILABLE (or
 * PROCESSING_FAILED) as it is read.
 */
export function registerLinkedInDocuments(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['linkedin'], renderLinkedInFault);
  const auth = requireLiToken(ctx);
  const version = requireVersion(state.now);
  const assets = state.store<LiAsset>(LI_STORES.assets);
  const uploads = state.store<LiUploadSlot>(LI_STORES.uploads);

  router.post('/rest/documents', json(), gate, auth, version, (req, res) => {
    if (req.query.action !== 'initializeUpload') return liError(res, 400, 'Unsupported action.', 'ILLEGAL_ARGUMENT');
    const request = (req.body as { initializeUploadRequest?: { owner?: unknown } } | undefined)
      ?.initializeUploadRequest;
    if (!mayActAs(liCallerOf(res), request?.owner))
      return liError(res, 403, 'Not enough permissions to access: POST /rest/documents', 'ACCESS_DENIED', 100);
    const urn = `urn:li:document:D${numericId(3)}AQ${randomToken('', 10).replace(/[-_]/g, 'x')}`;
    assets.set(urn, {
      urn,
      kind: 'document',
      owner: String(request?.owner),
      status: 'WAITING_UPLOAD',
      size: 0,
      parts: new Map(),
      partCount: 1,
      polls: 0,
      failureReason: undefined,
    });
    const slot = randomToken('', 18);
    uploads.set(slot, { urn, part: 0 });
    res.json({
      value: {
        uploadUrlExpiresAt: state.now() + 86_400_000,
        uploadUrl: `${ctx.publicUrl}/linkedin/dms-uploads/${slot}`,
        document: urn,
      },
    });
  });

  router.get('/rest/documents/:urn', gate, auth, version, (req, res) => {
    const asset = assets.get(String(req.params.urn));
    if (!asset || asset.kind !== 'document') return liError(res, 404, 'Document not found.', 'NOT_FOUND');
    advanceStatus(asset, ctx.processingPolls);
    res.json({
      id: asset.urn,
      owner: asset.owner,
      status: asset.status,
      ...(asset.status === 'PROCESSING_FAILED' ? { processingFailureReason: asset.failureReason } : {}),
      ...(asset.status === 'AVAILABLE'
        ? { downloadUrl: `https://media.licdn.com/dms/document/${asset.urn.split(':').pop()}` }
        : {}),
    });
  });
}
