// Validates Kubernetes manifests (a YAML stream on stdin) against the API's schemas with
// kubernetes-models and KEDA's with @kubernetes-models/keda: each document is built as its model
// (found by apiVersion and kind) and `.validate()`d. Prints a JSON list of { kind, name, error },
// error null when valid; a kind neither package knows is an error. ESM, as both packages are: jest
// (CommonJS) runs it as a child process (test/deploy/k8s-schemas.test.ts).
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/** The module exporting an apiVersion's models: core `v1`, `<group>/<version>`, KEDA's own. */
function modelModule(apiVersion) {
  if (apiVersion.startsWith('keda.sh/')) return `@kubernetes-models/keda/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

async function check(body) {
  const { apiVersion, kind } = body;
  let models;
  try {
    models = await import(modelModule(apiVersion));
  } catch {
    return `no schema for apiVersion ${apiVersion}`;
  }
  const Model = models[kind];
  if (typeof Model !== 'function') return `no schema for ${apiVersion} ${kind}`;
  try {
    new Model(body).validate();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const results = [];
for (const document of parseAllDocuments(readFileSync(0, 'utf8'))) {
  const body = document.toJS();
  if (body === null || body === undefined) continue;
  results.push({ kind: body.kind, name: body.metadata?.name, error: await check(body) });
}
process.stdout.write(JSON.stringify(results));
