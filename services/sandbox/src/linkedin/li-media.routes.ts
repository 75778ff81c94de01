import { json, raw, type Router } from 'express';
import { type SandboxContext } from '../context.ts';
import { sniffFormat } from '../media/sniff.ts';
import { numericId, randomToken } from '../state/ids.ts';
import { liCallerOf, mayActAs, requireLiToken, requireVersion, type LiCaller } from './li-auth.ts';
import { liError, renderLinkedInFault } from './li-errors.ts';
import { documentProblem } from './li-documents.routes.ts';
import { advanceStatus, LI_STORES, PART_BYTES, type LiAsset, type LiUploadSlot } from './li-records.ts';

const assetId = () => `C${numericId(3)}AQ${randomToken('', 10).replace(/[-_]/g, 'x')}`;

/** Images and videos API (docs/networks.md §4.2): register, PUT bytes to upload URLs, finalize, status. */
export function registerLinkedInMedia(router: Router, ctx: SandboxContext): void {
  const { state } = ctx;
  const gate = ctx.gate(['linkedin'], renderLinkedInFault);
  const auth = requireLiToken(ctx);
  const version = requireVersion(state.now);
  const assets = state.store<LiAsset>(LI_STORES.assets);
  const uploads = state.store<LiUploadSlot>(LI_STORES.uploads);

  const uploadUrl = (urn: string, part: number) => {
    const id = randomToken('', 18);
    uploads.set(id, { urn, part });
    return `${ctx.publicUrl}/linkedin/dms-uploads/${id}`;
  };

  const ownerOk = (owner: unknown, caller: LiCaller) => mayActAs(caller, owner);

  router.post('/rest/images', json(), gate, auth, version, (req, res) => {
    if (req.query.action !== 'initializeUpload') return liError(res, 400, 'Unsupported action.', 'ILLEGAL_ARGUMENT');
    const request = (req.body as { initializeUploadRequest?: { owner?: unknown } } | undefined)
      ?.initializeUploadRequest;
    if (!ownerOk(request?.owner, liCallerOf(res)))
      return liError(res, 403, 'Not enough permissions to access: POST /rest/images', 'ACCESS_DENIED', 100);
    const urn = `urn:li:image:${assetId()}`;
    assets.set(urn, {
      urn,
      kind: 'image',
      owner: String(request?.owner),
      status: 'WAITING_UPLOAD',
      size: 0,
      parts: new Map(),
      partCount: 1,
      polls: 0,
      failureReason: undefined,
    });
    res.json({ value: { uploadUrlExpiresAt: state.now() + 86_400_000, uploadUrl: uploadUrl(urn, 0), image: urn } });
  });

  router.post('/rest/videos', json(), gate, auth, version, (req, res) => {
    const action = req.query.action;
    if (action === 'initializeUpload') {
      const request = (
        req.body as { initializeUploadRequest?: { owner?: unknown; fileSizeBytes?: unknown } } | undefined
      )?.initializeUploadRequest;
      if (!ownerOk(request?.owner, liCallerOf(res)))
        return liError(res, 403, 'Not enough permissions to access: POST /rest/videos', 'ACCESS_DENIED', 100);
      const size = Number(request?.fileSizeBytes);
      if (!Number.isInteger(size) || size <= 0)
        return liError(res, 400, 'fileSizeBytes must be a positive integer.', 'ILLEGAL_ARGUMENT');
      const urn = `urn:li:video:${assetId()}`;
      const partCount = Math.max(1, Math.ceil(size / PART_BYTES));
      assets.set(urn, {
        urn,
        kind: 'video',
        owner: String(request?.owner),
        status: 'WAITING_UPLOAD',
        size,
        parts: new Map(),
        partCount,
        polls: 0,
        failureReason: undefined,
      });
      const uploadInstructions = Array.from({ length: partCount }, (_, part) => ({
        uploadUrl: uploadUrl(urn, part),
        firstByte: part * PART_BYTES,
        lastByte: Math.min(size, (part + 1) * PART_BYTES) - 1,
      }));
      return void res.json({
        value: { uploadUrlsExpireAt: state.now() + 86_400_000, video: urn, uploadInstructions, uploadToken: '' },
      });
    }
    if (action === 'finalizeUpload') {
      const request = (
        req.body as { finalizeUploadRequest?: { video?: unknown; uploadedPartIds?: unknown } } | undefined
      )?.finalizeUploadRequest;
      const asset = typeof request?.video === 'string' ? assets.get(request.video) : undefined;
      if (!asset) return liError(res, 404, 'Video not found.', 'NOT_FOUND');
      const etags = Array.isArray(request?.uploadedPartIds) ? request.uploadedPartIds : [];
      const expected = Array.from({ length: asset.partCount }, (_, part) => asset.parts.get(part)?.etag);
      if (expected.some((etag) => etag === undefined) || JSON.stringify(expected) !== JSON.stringify(etags)) {
        return liError(res, 400, 'Uploaded part ids do not match the uploaded parts.', 'ILLEGAL_ARGUMENT');
      }
      const bytes = Buffer.concat(expected.map((_, part) => asset.parts.get(part)!.bytes));
      const format = sniffFormat(bytes);
      asset.status = 'PROCESSING';
      if (bytes.length !== asset.size || (format !== 'mp4' && format !== 'mov'))
        asset.failureReason = 'Unsupported video format or size mismatch.';
      return void res.status(200).end();
    }
    liError(res, 400, 'Unsupported action.', 'ILLEGAL_ARGUMENT');
  });

  // www.linkedin.com/dms-uploads/..., folded in. Parts are raw bytes; each answers its ETag.
  router.put('/dms-uploads/:id', raw({ type: () => true, limit: '600mb' }), gate, auth, async (req, res) => {
    const slot = uploads.get(String(req.params.id));
    const asset = slot ? assets.get(slot.urn) : undefined;
    if (!slot || !asset) return liError(res, 404, 'Upload URL not found.', 'NOT_FOUND');
    const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const etag = `/ambry-video/${randomToken('', 12)}`;
    asset.parts.set(slot.part, { bytes, etag });
    if (asset.kind === 'document') {
      asset.size = bytes.length;
      asset.status = 'PROCESSING';
      asset.failureReason = await documentProblem(bytes);
      return void res.status(201).end();
    }
    if (asset.kind === 'image') {
      const format = sniffFormat(bytes);
      asset.size = bytes.length;
      asset.status = 'PROCESSING';
      if (!['jpeg', 'png', 'gif'].includes(format)) asset.failureReason = 'Unsupported image format.';
      return void res.status(201).end();
    }
    res.setHeader('ETag', etag);
    res.status(200).end();
  });

  const status = (kind: 'image' | 'video') => (urnParam: string) => {
    const asset = assets.get(urnParam);
    if (!asset || asset.kind !== kind) return undefined;
    return advanceStatus(asset, ctx.processingPolls);
  };

  router.get('/rest/images/:urn', gate, auth, version, (req, res) => {
    const asset = status('image')(String(req.params.urn));
    if (!asset) return liError(res, 404, 'Image not found.', 'NOT_FOUND');
    res.json({
      id: asset.urn,
      owner: asset.owner,
      status: asset.status,
      ...(asset.status === 'AVAILABLE'
        ? { downloadUrl: `https://media.licdn.com/dms/image/${asset.urn.split(':').pop()}` }
        : {}),
    });
  });

  router.get('/rest/videos/:urn', gate, auth, version, (req, res) => {
    const asset = status('video')(String(req.params.urn));
    if (!asset) return liError(res, 404, 'Video not found.', 'NOT_FOUND');
    res.json({
      id: asset.urn,
      owner: asset.owner,
      status: asset.status,
      ...(asset.status === 'PROCESSING_FAILED' ? { processingFailureReason: asset.failureReason } : {}),
    });
  });
}
