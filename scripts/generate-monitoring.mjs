#!/usr/bin/env node
// Writes deploy/monitoring/rules.yml (the PrometheusRule's groups as a plain Prometheus rule file, for
// promtool and Prometheus without the operator) and deploy/monitoring/grafana/social-publishing.json
// (the dashboard, from deploy/monitoring/dashboard.mjs). `--check` writes nothing and exits 1 when
// either file differs from what it would write.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { dashboard } from '../deploy/monitoring/dashboard.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const monitoring = path.join(root, 'deploy/monitoring');

export function renderRules() {
  const manifest = parse(readFileSync(path.join(monitoring, 'prometheus-rule.yaml'), 'utf8'));
  const header =
    '# Generated from prometheus-rule.yaml by scripts/generate-monitoring.mjs: edit that file, then run the script.\n';
  return header + stringify({ groups: manifest.spec.groups }, { lineWidth: 0 });
}

export function renderDashboard() {
  return `${JSON.stringify(dashboard(), null, 2)}\n`;
}

const outputs = [
  [path.join(monitoring, 'rules.yml'), renderRules()],
  [path.join(monitoring, 'grafana/social-publishing.json'), renderDashboard()],
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const [file, text] of outputs) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      current = '';
    }
    if (current === text) continue;
    if (check) {
      console.error(`${path.relative(root, file)} is out of date: run node scripts/generate-monitoring.mjs`);
      stale = true;
    } else writeFileSync(file, text);
  }
  if (stale) process.exit(1);
}
