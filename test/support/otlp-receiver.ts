// A local OTLP/HTTP trace receiver for tests: decodes the JSON export requests (`POST /v1/traces`) the
// services send and keeps every span with its service name.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
}

function valueOf(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map((attribute) => [attribute.key, valueOf(attribute.value)]));

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Export requests that were not OTLP JSON (content type and first bytes), to fail on. */
  rejected: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const rejected: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        rejected.push(`${req.url} ${req.headers['content-type']} ${body.subarray(0, 40).toString('hex')}`);
        res.writeHead(415).end();
        return;
      }
      const exported = JSON.parse(body.toString('utf8')) as OtlpExport;
      for (const resource of exported.resourceSpans ?? []) {
        const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
        for (const scope of resource.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              service,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    rejected,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
