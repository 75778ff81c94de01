export interface MultipartField {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

/** A minimal multipart/form-data reader, enough for the upload endpoints the sandbox mimics. */
export function parseMultipart(body: Buffer, contentType: string | undefined): MultipartField[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '');
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker) return [];
  const delimiter = Buffer.from(`--${marker}`);
  const fields: MultipartField[] = [];
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    const part = body.subarray(start + delimiter.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    if (split !== -1) {
      const headers = part.subarray(0, split).toString('utf8');
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      if (name !== undefined) {
        fields.push({
          name,
          filename: /filename="([^"]*)"/i.exec(headers)?.[1],
          contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1],
          data: part.subarray(split + 4),
        });
      }
    }
    start = next;
  }
  return fields;
}
