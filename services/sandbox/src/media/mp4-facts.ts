/** What a network's video pipeline reads from an MP4/MOV: length and displayed size. */
export interface VideoFacts {
  durationMs: number;
  width: number;
  height: number;
}

interface Box {
  type: string;
  start: number;
  end: number;
}

/** The ISO BMFF boxes in `[start, end)`: 32-bit sizes, 64-bit `largesize` (size 1), to the end (size 0). */
function boxes(bytes: Buffer, start: number, end: number): Box[] {
  const found: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) break;
      size = Number(bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = end - at;
    if (size < header || at + size > end) break;
    found.push({ type, start: at + header, end: at + size });
    at += size;
  }
  return found;
}

const child = (bytes: Buffer, parent: Box, type: string) =>
  boxes(bytes, parent.start, parent.end).filter((box) => box.type === type);

/** `mvhd`: the movie's timescale and duration (version 1 widens the times to 64 bits). */
function movieDurationMs(bytes: Buffer, mvhd: Box): number | undefined {
  const version = bytes.readUInt8(mvhd.start);
  const at = mvhd.start + 4 + (version === 1 ? 16 : 8);
  if (at + (version === 1 ? 12 : 8) > mvhd.end) return undefined;
  const timescale = bytes.readUInt32BE(at);
  const duration = version === 1 ? Number(bytes.readBigUInt64BE(at + 4)) : bytes.readUInt32BE(at + 4);
  return timescale > 0 ? Math.round((duration / timescale) * 1000) : undefined;
}

/** `tkhd`: a track's width and height (16.16 fixed point), swapped when its matrix turns it a quarter. */
function trackSize(bytes: Buffer, tkhd: Box): { width: number; height: number } | undefined {
  const version = bytes.readUInt8(tkhd.start);
  const matrixAt = tkhd.start + 4 + (version === 1 ? 32 : 20) + 16;
  const sizeAt = matrixAt + 36;
  if (sizeAt + 8 > tkhd.end) return undefined;
  const width = bytes.readUInt32BE(sizeAt) / 65536;
  const height = bytes.readUInt32BE(sizeAt + 4) / 65536;
  const quarterTurn = bytes.readInt32BE(matrixAt) === 0 && bytes.readInt32BE(matrixAt + 4) !== 0;
  return quarterTurn ? { width: height, height: width } : { width, height };
}

/**
 * Length and displayed size of an MP4/MOV from its `moov` box (the movie header and the first track
 * with a picture), as a network reads them before accepting a reel; undefined when the file has none.
 */
export function mp4Facts(bytes: Buffer): VideoFacts | undefined {
  try {
    const moov = boxes(bytes, 0, bytes.length).find((box) => box.type === 'moov');
    if (moov === undefined) return undefined;
    const [mvhd] = child(bytes, moov, 'mvhd');
    const durationMs = mvhd === undefined ? undefined : movieDurationMs(bytes, mvhd);
    const size = child(bytes, moov, 'trak')
      .flatMap((trak) => child(bytes, trak, 'tkhd'))
      .map((tkhd) => trackSize(bytes, tkhd))
      .find((item) => item !== undefined && item.width > 0 && item.height > 0);
    return durationMs === undefined || size === undefined ? undefined : { durationMs, ...size };
  } catch {
    return undefined;
  }
}
