import { confirmationPage, escapeHtml, refusalPage } from './oauth-handoff-page.ts';

const base = {
  provider: 'instagram' as const,
  orgId: 'org_1',
  createdAt: new Date('2030-01-01T09:05:30Z'),
  expiresAt: new Date('2030-01-01T09:15:30Z'),
  confirm: 'v"1',
  action: 'code"><b>',
  authorizeUrl: 'https://www.instagram.com/oauth/authorize?client_id=1',
};

describe('hand-off pages', () => {
  it('escape every character that could open markup or leave an attribute', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('name the network, the organization and the times, with a form and no script', () => {
    const page = confirmationPage({ ...base, orgName: '<img src=x onerror=alert(1)>' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html lang="en">');
    expect(page.html).toContain(
      'Connect an Instagram account to organization <strong>&lt;img src=x onerror=alert(1)&gt;</strong> (<code>org_1</code>).',
    );
    expect(page.html).toContain(
      'created at <time datetime="2030-01-01T09:05:30.000Z">2030-01-01 09:05 UTC</time> and works once, until <time datetime="2030-01-01T09:15:30.000Z">2030-01-01 09:15 UTC</time>.',
    );
    expect(page.html).toContain('<form method="post" action="code&quot;&gt;&lt;b&gt;">');
    expect(page.html).toContain('<input type="hidden" name="confirm" value="v&quot;1">');
    expect(page.html).not.toMatch(/<script|onerror=alert\(1\)>/);
    expect(page.csp).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; form-action 'self' https:\/\/www\.instagram\.com; frame-ancestors 'none'; base-uri 'none'$/,
    );
  });

  it("let the form's redirects end where the callback returns: a network that consents at once is one navigation", () => {
    const back = confirmationPage({ ...base, returnUrl: 'https://app.example.com/accounts' });
    expect(back.csp).toContain("form-action 'self' https://www.instagram.com https://app.example.com;");
    const same = confirmationPage({ ...base, returnUrl: 'https://www.instagram.com/somewhere' });
    expect(same.csp).toContain("form-action 'self' https://www.instagram.com;");
  });

  it('say why a link cannot be used, with the status that goes with it', () => {
    expect(refusalPage('used')).toMatchObject({ status: 410, csp: expect.stringContaining("form-action 'none'") });
    expect(refusalPage('expired').status).toBe(410);
    expect(refusalPage('unknown').status).toBe(404);
    const unconfirmed = refusalPage('unconfirmed', 'abc.def');
    expect(unconfirmed.status).toBe(403);
    expect(unconfirmed.html).toContain('<a href="abc.def">Open the link again</a>');
  });
});
