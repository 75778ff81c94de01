// Loads the Node verification example of docs/webhooks.md exactly as published, so the tests run the
// code receivers copy, against real deliveries.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import type { IncomingHttpHeaders } from 'node:http';

type Verify = (secret: string, headers: IncomingHttpHeaders, rawBody: string, nowSeconds?: number) => boolean;

export function loadDocsExample(): { verifyShapeA: Verify; verifyShapeB: Verify } {
  const markdown = readFileSync(path.resolve(__dirname, '../../docs/webhooks.md'), 'utf8');
  const block = /<!-- verify-example:start -->\s*```js\n([\s\S]*?)```\s*<!-- verify-example:end -->/.exec(markdown);
  if (block?.[1] === undefined) throw new Error('docs/webhooks.md has no verify-example block');
  const module = { exports: {} as Record<string, unknown> };
  vm.runInNewContext(block[1], { require, module, exports: module.exports, Buffer });
  return module.exports as { verifyShapeA: Verify; verifyShapeB: Verify };
}
