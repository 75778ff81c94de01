import { ConnectLinkUnavailable, handoffTarget } from './handoff.ts';

const AUTHORIZE = 'https://x.example/i/oauth2/authorize?state=s';

describe('handoffTarget', () => {
  it("goes to the hand-off link, never to authorize_url (the flow's cookie is not in this browser)", () => {
    const link = 'https://api.example.com/v1/oauth/handoff/lk3p.abc';
    expect(
      handoffTarget({ authorize_url: AUTHORIZE, handoff_url: link, handoff_expires_at: '2026-12-01T10:10:00Z' }),
    ).toBe(link);
  });

  it('refuses to go anywhere when the API gave no hand-off link, saying why', () => {
    expect(() => handoffTarget({ authorize_url: AUTHORIZE })).toThrow(ConnectLinkUnavailable);
    expect(() => handoffTarget({ authorize_url: AUTHORIZE })).toThrow(/cannot make connection links right now/);
  });

  it('follows only an http(s) link', () => {
    for (const handoff_url of ['javascript:alert(1)', 'data:text/html,hi', 'not a url'])
      expect(() => handoffTarget({ authorize_url: AUTHORIZE, handoff_url })).toThrow(ConnectLinkUnavailable);
  });
});
