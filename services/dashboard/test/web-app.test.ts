import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { CONTENT_SECURITY_POLICY, webApp } from '../src/http/web-app.ts';

// The built pages as the dashboard serves them: hashed assets cached for good, index.html for every
// page path (never cached), the service's own paths left alone, and the CSP on all of it.
const dir = mkdtempSync(path.join(os.tmpdir(), 'web-'));
mkdirSync(path.join(dir, 'assets'));
writeFileSync(path.join(dir, 'index.html'), '<!doctype html><script type="module" src="/assets/app-1.js"></script>');
writeFileSync(path.join(dir, 'assets', 'app-1.js'), 'console.log(1)');
const app = express().use(webApp(dir));
app.use((_req, res) => res.status(404).json({ error: { code: 'not_found' } }));

describe('the pages served by the dashboard', () => {
  it('answers every page path with index.html, uncached, under the CSP', async () => {
    for (const page of ['/', '/compose', '/invites/abc', '/history?post=1']) {
      const res = await request(app).get(page);
      expect(res.status).toBe(200);
      expect(res.text).toContain('/assets/app-1.js');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*unsafe-inline/);
  });

  it('caches hashed assets for a year and 404s a missing one', async () => {
    const asset = await request(app).get('/assets/app-1.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await request(app).get('/assets/missing.js')).status).toBe(404);
  });

  it("leaves the service's own paths to the service", async () => {
    for (const own of ['/api/v1/posts', '/auth/me', '/.well-known/jwks.json', '/health']) {
      expect((await request(app).get(own)).status).toBe(404);
    }
  });

  it('serves nothing without a build', async () => {
    const bare = express().use(webApp(path.join(dir, 'missing')));
    bare.use((_req, res) => res.status(404).end());
    expect((await request(bare).get('/compose')).status).toBe(404);
  });
});
