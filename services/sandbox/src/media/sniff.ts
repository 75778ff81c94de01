export type MediaFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'mp4' | 'mov' | 'webm' | 'pdf' | 'unknown';

/** Identifies media by its magic bytes, as the networks do (the URL's extension proves nothing). */
export function sniffFormat(bytes: Buffer): MediaFormat {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.subarray(0, 4).toString('hex') === '89504e47') return 'png';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'webp';
  if (bytes.subarray(0, 4).toString('hex') === '1a45dfa3') return 'webm';
  if (bytes.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp')
    return bytes.subarray(8, 12).toString('latin1') === 'qt  ' ? 'mov' : 'mp4';
  return 'unknown';
}

export const isVideoFormat = (format: MediaFormat) => format === 'mp4' || format === 'mov' || format === 'webm';
